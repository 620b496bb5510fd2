import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { addTrigger, server as serverPreset, type ServerStack } from '../../../plugins.config.js';
import { appPlugins, checkAppConfig, loadAppConfig } from '../../../server/app-config.js';
import { tempDir } from '../../helpers/stack.js';
import { ADMIN, nodeProcess } from '../node-helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../../examples/docstack.config.js', import.meta.url));
const basic = `Basic ${btoa(`${ADMIN.username}:${ADMIN.password}`)}`;

/** A node store with an Invoice class whose before-trigger names the example's handler. */
async function seedStore(dataDir: string): Promise<void> {
  const plugins = appPlugins(serverPreset, await loadAppConfig(EXAMPLE));
  const stack = await createStack({ name: 'docstack', adapter: 'leveldb', dataDir, plugins });
  const invoices = await Class.create(stack, 'Invoice', 'class', '', { number: { type: 'integer' }, paid: { type: 'boolean' }, label: { type: 'string' } });
  await addTrigger(invoices, { name: 'label', when: 'before', on: ['create'], handler: 'invoices.label', params: { prefix: 'F' } });
  await stack.close();
}

const createInvoice = (url: string) =>
  fetch(`${url}/api/private/docs/Invoice`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: JSON.stringify({ number: 42, paid: false }) });

describe('app code in the stock node (DOCSTACK_CONFIG)', () => {
  it('runs the app trigger on a REST write (DS_HANDLER_UNKNOWN without the module) and serves its routes', async () => {
    const dataDir = await tempDir();
    await seedStore(dataDir);

    const bare = await nodeProcess(dataDir);
    const [, bareUrl] = await bare.until(/node ready at (http:\/\/\S+)/);
    const refused = await createInvoice(bareUrl);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'DS_HANDLER_UNKNOWN' });
    bare.child.kill('SIGTERM');
    expect(await bare.exited).toBe(0);

    const run = await nodeProcess(dataDir, { DOCSTACK_CONFIG: './examples/docstack.config.js' });
    const [, url] = await run.until(/node ready at (http:\/\/\S+)/);
    expect(run.output()).toMatch(/app configuration \.\/examples\/docstack\.config\.js loaded/);
    const created = await createInvoice(url);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ number: 42, label: 'F-00042' });
    // the module's route: behind the session check, reading the node's stack
    expect((await fetch(`${url}/api/app/invoices/open`)).status).toBe(401);
    const open = await fetch(`${url}/api/app/invoices/open`, { headers: { authorization: basic } });
    expect(await open.json()).toEqual({ open: 1 });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }, 60_000);

  it('refuses a missing file, a module without a default export and a bad part: one coded line, exit 1', async () => {
    const dataDir = await tempDir();
    const noDefault = join(dataDir, 'no-default.mjs');
    await writeFile(noDefault, 'export const triggers = {};\n');
    const badPart = join(dataDir, 'bad-part.mjs');
    await writeFile(badPart, "export default { triggers: { 'a.b': 'not a function' } };\n");
    for (const [file, reason] of [
      [join(dataDir, 'missing.js'), /the module cannot be loaded: no such file/],
      [noDefault, /the module has no default export/],
      [badPart, /"triggers\.a\.b" must be a function/],
    ] as const) {
      const run = await nodeProcess(dataDir, { DOCSTACK_CONFIG: file });
      expect(await run.exited).toBe(1);
      const lines = run.output().trim().split('\n');
      expect(lines, run.output()).toHaveLength(1);
      expect(lines[0]).toMatch(/^docstack: cannot start — DS_SERVER_CONFIG_INVALID: DOCSTACK_CONFIG \(/);
      expect(lines[0]).toMatch(reason);
    }
  }, 60_000);

  it('checks each part of a configuration, naming it', () => {
    const refused = (value: unknown) => {
      try {
        checkAppConfig(value, 'x.js');
      } catch (err) {
        return err as { code: string; path: string };
      }
      throw new Error('accepted');
    };
    expect(refused([])).toMatchObject({ code: 'DS_SERVER_CONFIG_INVALID' });
    expect(refused({ trigger: {} })).toMatchObject({ path: 'trigger' });
    expect(refused({ plugins: {} })).toMatchObject({ path: 'plugins' });
    expect(refused({ jobs: { 'a.b': { handler: 1 } } })).toMatchObject({ path: 'jobs.a.b' });
    expect(refused({ routes: {} })).toMatchObject({ path: 'routes' });
    expect(checkAppConfig({ jobs: { 'a.b': { handler: () => 1, timeoutMs: 10 } } }, 'x.js').jobs).toBeDefined();
  });

  it('registers jobs and conflict handlers on each stack it opens', async () => {
    const config = await loadAppConfig(EXAMPLE);
    const stack = (await createStack({ name: 'app-handlers', adapter: 'memory', plugins: appPlugins(serverPreset, config) })) as ServerStack;
    await Class.create(stack, 'Invoice', 'class', '', { number: { type: 'integer' }, paid: { type: 'boolean' } });
    await stack.createDoc({ '~class': 'Invoice', number: 1, paid: false });
    await stack.jobs.define({ name: 'overdue', handler: 'invoices.overdue' });
    expect(await stack.jobs.run('overdue')).toMatchObject({ status: 'SUCCESS', result: { open: 1 } });
    // the conflict handler is the stack's already: a second registration of its name is refused
    expect(() => stack.registerConflictHandler('invoices.keepPaid', ({ winner }) => winner)).toThrow(expect.objectContaining({ code: 'DS_HANDLER_DUPLICATE' }));
    await stack.close();
  });
});
