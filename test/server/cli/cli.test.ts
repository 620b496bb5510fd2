import { spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { server as serverPreset } from '../../../plugins.config.js';
import { bundled } from '../../helpers/bundled.js';
import { tempDir } from '../../helpers/stack.js';
import { ADMIN, login, nodeProcess, watchOutput } from '../node-helpers.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** `docstack …` as the bin runs it (server/cli/docstack.ts bundled), on `dataDir`; `stdin` piped. */
async function docstack(dataDir: string, args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, ENVFILE: join(dataDir, 'no.env'), DATA_DIR: dataDir, NODE_ENV: 'test' };
  for (const name of ['DOCSTACK_ADMIN_PASSWORD', 'DOCSTACK_URL', 'DOCSTACK_CONFIG']) delete env[name]; // only what a test gives
  Object.assign(env, options.env);
  const child = spawn(process.execPath, [await bundled('server/cli/docstack.ts'), ...args], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(options.stdin ?? '');
  const run = watchOutput(child);
  const code = await run.exited;
  return { code, output: run.output() };
}

/** A node store with the test admin (a node's first boot) and an Invoice class of two documents. */
async function seededStore(): Promise<string> {
  const dataDir = await tempDir();
  const boot = await nodeProcess(dataDir);
  await boot.until(/node ready at/);
  boot.child.kill('SIGTERM');
  expect(await boot.exited).toBe(0);
  const stack = await createStack({ name: 'docstack', adapter: 'leveldb', dataDir, plugins: serverPreset });
  await Class.create(stack, 'Invoice', 'class', '', { number: { type: 'integer', mandatory: true }, status: { type: 'enum', values: ['draft', 'paid'] } });
  const first = await stack.createDoc({ '~class': 'Invoice', number: 1, status: 'draft' });
  await stack.updateDoc(first._id, { status: 'paid' });
  await stack.createDoc({ '~class': 'Invoice', number: 2 });
  await stack.close();
  return dataDir;
}

describe('the docstack command line', () => {
  it('manages users and tenants, generates types, backs a store up and restores it on another node', async () => {
    const dataDir = await seededStore();
    expect(await docstack(dataDir, ['user', 'add', 'alice', '--tenants', 'north'], { stdin: 'alice password\n' })).toMatchObject({ code: 0, output: expect.stringMatching(/"alice" created \(role user\)/) });
    const generated = await docstack(dataDir, ['user', 'add', 'bob']);
    expect(generated.output).toMatch(/new password \(shown once\): \S{20,}/);
    expect((await docstack(dataDir, ['user', 'disable', 'bob'])).code).toBe(0);
    const users = await docstack(dataDir, ['user', 'list']);
    expect(users.output.trim().split('\n')).toEqual(['admin\tadmin', 'alice\tuser\ttenants: north', 'bob\tuser\tdisabled']);
    expect(await docstack(dataDir, ['user', 'disable', 'nobody'])).toMatchObject({ code: 1, output: expect.stringMatching(/^docstack user: DS_USER_NOT_FOUND: /m) });

    expect((await docstack(dataDir, ['tenant', 'add', 'acme', '--classes', 'Invoice', '--users', 'alice'])).code).toBe(0);
    expect((await docstack(dataDir, ['tenant', 'list'])).output.trim()).toBe('acme\tclasses: Invoice\tusers: alice');
    expect(await docstack(dataDir, ['tenant', 'add', 'Bad Name', '--classes', 'Invoice'])).toMatchObject({ code: 1, output: expect.stringMatching(/DS_TENANT_INVALID/) });

    const typesFile = join(dataDir, 'types.ts');
    // the store's folder as the argument (here from another DATA_DIR's point of view)
    expect((await docstack(await tempDir(), ['types', join(dataDir, 'docstack'), '--out', typesFile])).output).toMatch(/1 class\(es\) from the store "docstack"/);
    expect(await readFile(typesFile, 'utf8')).toMatch(/export interface Invoice extends DocstackDocFields<"Invoice"> \{[\s\S]*number: number;[\s\S]*status\?: "draft" \| "paid";/);

    const file = join(dataDir, 'backup.ndjson');
    expect(await docstack(dataDir, ['backup', file])).toMatchObject({ code: 0, output: expect.stringMatching(/document\(s\), \d+ leaf revision\(s\) of "docstack" written/) });
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600'); // it holds password hashes

    // restored on another node: the same documents and revisions, users and their tenants
    const other = await tempDir();
    expect(await docstack(other, ['restore', file])).toMatchObject({ code: 0, output: expect.stringMatching(/restored into "docstack"/) });
    expect(await docstack(other, ['restore', file])).toMatchObject({ code: 1, output: expect.stringMatching(/DS_RESTORE_TARGET_EXISTS/) });
    const source = await createStack({ name: 'docstack', adapter: 'leveldb', dataDir, plugins: serverPreset });
    const originals = await source.findDocuments('Invoice');
    await source.close();
    const node = await nodeProcess(other);
    const [, url] = await node.until(/node ready at (http:\/\/\S+)/);
    expect((await login(url, 'alice', 'alice password')).status).toBe(200);
    const basic = { authorization: `Basic ${btoa(`${ADMIN.username}:${ADMIN.password}`)}` };
    const listed = (await (await fetch(`${url}/api/private/docs/Invoice`, { headers: basic })).json()) as { docs: Array<{ _id: string; _rev: string; status?: string }> };
    expect(listed.docs.map((d) => [d._id, d._rev, d.status]).sort()).toEqual(originals.map((d) => [d._id, d._rev, d.status]).sort());
    const created = await fetch(`${url}/api/private/docs/Invoice`, { method: 'POST', headers: { ...basic, 'content-type': 'application/json' }, body: JSON.stringify({ number: 3 }) });
    expect(created.status).toBe(201); // the restored store takes writes (its indexes rebuilt)
    const duplicate = await fetch(`${url}/api/private/users`, { method: 'POST', headers: { ...basic, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'another password' }) });
    expect(duplicate.status).toBe(409); // the restored users' unique names are indexed again
    node.child.kill('SIGTERM');
    expect(await node.exited).toBe(0);

    await writeFile(join(other, 'bad.ndjson'), '{"format":"docstack-backup","version":1}\n{"_id":"x"}\n');
    expect(await docstack(await tempDir(), ['restore', join(other, 'bad.ndjson')])).toMatchObject({ code: 1, output: expect.stringMatching(/DS_BACKUP_INVALID: Line 2/) });
  }, 240_000);

  it('manages the users of a running node through its API, with an admin login', async () => {
    const dataDir = await seededStore();
    const node = await nodeProcess(dataDir);
    const [, url] = await node.until(/node ready at (http:\/\/\S+)/);
    const viaNode = { env: { DOCSTACK_ADMIN_PASSWORD: ADMIN.password } };

    // without the admin's password: the store is the node's, and the refusal says what to do
    const locked = await docstack(dataDir, ['user', 'reset-password', 'admin'], { stdin: 'x\n' });
    expect(locked.code).toBe(1);
    expect(locked.output).toMatch(/^docstack user: DS_STORAGE_LOCKED: .*DOCSTACK_ADMIN_PASSWORD/m);

    expect(await docstack(dataDir, ['user', 'add', 'carol', '--url', url], { stdin: 'carol password\n', ...viaNode })).toMatchObject({ code: 0, output: expect.stringContaining(`through the node at ${url}`) });
    expect((await login(url, 'carol', 'carol password')).status).toBe(200);
    const reset = await docstack(dataDir, ['user', 'reset-password', 'carol', '--url', url], { stdin: 'carol new password\n', ...viaNode });
    expect(reset.output).toMatch(/the password of "carol" was reset; every session\(s\) ended/);
    expect((await login(url, 'carol', 'carol password')).status).toBe(401);
    expect((await login(url, 'carol', 'carol new password')).status).toBe(200);
    expect((await docstack(dataDir, ['user', 'list', '--url', url], viaNode)).output.trim().split('\n')).toEqual(['admin\tadmin', 'carol\tuser']);
    expect((await docstack(dataDir, ['user', 'disable', 'carol', '--url', url], viaNode)).code).toBe(0);
    expect((await login(url, 'carol', 'carol new password')).status).toBe(401);
    expect(await docstack(dataDir, ['user', 'list', '--url', url], { env: { DOCSTACK_ADMIN_PASSWORD: 'wrong' } })).toMatchObject({ code: 1, output: expect.stringMatching(/DS_AUTH/) });

    expect((await docstack(dataDir, ['tenant', 'add', 'west', '--classes', 'Invoice', '--users', 'carol', '--url', url], viaNode)).code).toBe(0);
    expect((await docstack(dataDir, ['tenant', 'list', '--url', url], viaNode)).output.trim()).toBe('west\tclasses: Invoice\tusers: carol');
    expect((await docstack(dataDir, ['types', '--url', url], viaNode)).output).toMatch(/export interface DocstackClasses \{\n {2}Invoice: Invoice;\n\}/);
    // a backup reads the store itself: refused while the node holds it
    expect(await docstack(dataDir, ['backup', join(dataDir, 'b.ndjson')])).toMatchObject({ code: 1, output: expect.stringMatching(/DS_STORAGE_LOCKED/) });
    node.child.kill('SIGTERM');
    expect(await node.exited).toBe(0);
  }, 240_000);

  it('prints its usage for a missing or unknown command and a bad option (exit 2)', async () => {
    const dataDir = await tempDir();
    for (const args of [[], ['nonsense'], ['user'], ['user', 'list', '--bogus'], ['backup']]) {
      const run = await docstack(dataDir, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.output).toMatch(/usage: docstack/);
    }
    expect(await docstack(dataDir, ['--help'])).toMatchObject({ code: 0, output: expect.stringMatching(/start \[--config/) });
  }, 60_000);
});
