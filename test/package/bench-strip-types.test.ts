import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const register = fileURLToPath(new URL('../../bench/strip-types/register.mjs', import.meta.url));

/**
 * The benches run the engine's TypeScript through bench/strip-types (docs/benchmarks.md): types
 * stripped, nothing added — unlike tsx, whose keepNames wraps every named closure in `__name`.
 */
describe('bench/strip-types: the benches run TypeScript as tsc ships it', () => {
  it('loads a .ts file, resolves its `.js` imports to the .ts beside them, and adds no __name wrapper', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docstack-strip-types-'));
    await writeFile(join(dir, 'maker.ts'), 'export function makeCounter(start: number): () => number {\n  let n: number = start;\n  const next = (): number => ++n;\n  return next;\n}\n');
    await writeFile(
      join(dir, 'main.ts'),
      "import { makeCounter } from './maker.js';\nimport type { Server } from 'node:http';\nconst counter = makeCounter(41);\nconst unused: Server | undefined = undefined;\nconsole.log(JSON.stringify({ value: counter(), source: makeCounter.toString(), unused: unused ?? null }));\n",
    );
    const { stdout } = await run(process.execPath, ['--import', register, join(dir, 'main.ts')], { cwd: dir });
    const out = JSON.parse(stdout) as { value: number; source: string };
    expect(out.value).toBe(42);
    expect(out.source).toContain('const next = () => ++n;'); // the closure as written, types gone
    expect(out.source).not.toContain('__name');
  });

  it('leaves a missing module missing (a `.js` import with no .ts beside it is still an error)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docstack-strip-types-'));
    await writeFile(join(dir, 'main.ts'), "import './nowhere.js';\n");
    await expect(run(process.execPath, ['--import', register, join(dir, 'main.ts')], { cwd: dir })).rejects.toMatchObject({ stderr: expect.stringContaining('ERR_MODULE_NOT_FOUND') });
  });
});
