import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundled } from '../helpers/bundled.js';
import { tempDir } from '../helpers/stack.js';
import { login, watchOutput } from './node-helpers.js';

/** What an operator runs: the node's process (server/main.ts) and the user CLI (server/cli/user.ts). */
const root = fileURLToPath(new URL('../..', import.meta.url));

async function run(script: string, args: string[], env: Record<string, string>, options: { stdin?: string; umask?: string } = {}) {
  // through sh, so the test can hand the child a permissive umask as a careless shell would;
  // the entry bundled (helpers/bundled.ts): it starts ~1 s sooner than with `--import tsx`
  const command = `umask ${options.umask ?? '022'}; exec "${process.execPath}" ${await bundled(script)} ${args.map((a) => `'${a}'`).join(' ')}`;
  const child = spawn('sh', ['-c', command], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(options.stdin ?? '');
  return watchOutput(child);
}

async function modes(dir: string): Promise<Array<[string, string]>> {
  const found: Array<[string, string]> = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    found.push([path, ((await stat(path)).mode & 0o777).toString(8)]);
    if (entry.isDirectory()) found.push(...(await modes(path)));
  }
  return found;
}

describe('the operator', () => {
  it('gets store files 0600 and folders 0700 even under umask 022', async () => {
    const dataDir = join(await tempDir(), 'data');
    const env = { ENVFILE: join(dataDir, 'none.env'), DATA_DIR: dataDir, SERVER_PORT: '0', NODE_ENV: 'test', ADMIN_PASSWORD: 'admin password for tests' };
    const node = await run('server/main.ts', [], env);
    await node.until(/node ready at/);
    node.child.kill('SIGTERM');
    expect(await node.exited).toBe(0);
    expect(((await stat(dataDir)).mode & 0o777).toString(8)).toBe('700');
    const all = await modes(dataDir);
    expect(all.length).toBeGreaterThan(5); // keys, leveldb files
    for (const [path, mode] of all) {
      const isDir = (await stat(path)).isDirectory();
      expect(mode, path).toBe(isDir ? '700' : '600');
    }
  }, 60_000);

  it('resets a lost password with the CLI (refused while the node runs), ending the sessions', async () => {
    const dataDir = await tempDir();
    const env = { ENVFILE: join(dataDir, 'none.env'), DATA_DIR: dataDir, SERVER_PORT: '0', NODE_ENV: 'test', ADMIN_PASSWORD: 'the forgotten password' };
    const node = await run('server/main.ts', [], env);
    const [, url] = await node.until(/node ready at (http:\/\/\S+)/);
    expect((await login(url, 'admin', 'the forgotten password')).status).toBe(200);

    const whileRunning = await run('server/cli/user.ts', ['reset-password', 'admin'], env, { stdin: 'a brand new password\n' });
    expect(await whileRunning.exited).toBe(1);
    expect(whileRunning.output()).toMatch(/^docstack user: DS_STORAGE_LOCKED: /m);
    node.child.kill('SIGTERM');
    expect(await node.exited).toBe(0);

    const piped = await run('server/cli/user.ts', ['reset-password', 'admin'], env, { stdin: 'a brand new password\n' });
    expect(await piped.exited).toBe(0);
    expect(piped.output()).toMatch(/password of "admin" was reset; 1 session\(s\) ended/);
    expect(piped.output()).not.toContain('a brand new password');

    const unknown = await run('server/cli/user.ts', ['reset-password', 'nobody'], env);
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toMatch(/DS_USER_NOT_FOUND/);

    const restarted = await run('server/main.ts', [], env);
    const [, url2] = await restarted.until(/node ready at (http:\/\/\S+)/);
    expect((await login(url2, 'admin', 'the forgotten password')).status).toBe(401);
    expect((await login(url2, 'admin', 'a brand new password')).status).toBe(200);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
  }, 60_000);
});
