import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the built package', () => {
  it('builds to dist/ and resolves `docstack` and `docstack/presets` from its own folder', async () => {
    await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root });
    const script = `
      const { createStack, ClientStack, Class, Attribute, DocstackError, definePlugin } = await import('docstack');
      const { browser, server } = await import('docstack/presets');
      const stack = await createStack({ name: 'exports-check', adapter: 'memory', plugins: browser });
      await Class.create(stack, 'Ping', 'class', '', { n: { type: 'integer' } });
      const doc = await stack.createDoc({ '~class': 'Ping', n: 1 });
      let code = null;
      try { await stack.createDoc({ '~class': 'Ping', n: 1.5 }); } catch (e) { code = e instanceof DocstackError ? e.code : 'other'; }
      await stack.close();
      console.log(JSON.stringify({
        ok: doc.n === 1, code, presets: browser.length > 0 && server.length >= browser.length, types: [typeof ClientStack, typeof Attribute, typeof definePlugin],
      }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(result).toEqual({ ok: true, code: 'DS_VALIDATION_INTEGER', presets: true, types: ['function', 'function', 'function'] });
  }, 120_000);
});
