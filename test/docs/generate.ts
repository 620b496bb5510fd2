import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** vitest globalSetup: extract the docs' examples before any test file imports them. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/doc-examples.mjs', import.meta.url))], { stdio: 'ignore' });
}
