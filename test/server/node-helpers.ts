import { createServerNode, type ServerNode, type ServerNodeOptions } from '../../server/node.js';
import { tempDir } from '../helpers/stack.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';
import { createUser } from '../../server/auth/index.js';
import { bundled } from '../helpers/bundled.js';

const nodes: ServerNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

export const ADMIN = { username: 'admin', password: 'admin password for tests' };

/** A node on 127.0.0.1, port 0, a temp data dir, quiet logs (kept in `lines`), stopped after the test. */
export async function testNode(options: ServerNodeOptions & { dataDir?: string; env?: Record<string, string> } = {}) {
  const lines: string[] = [];
  const dataDir = options.dataDir ?? (await tempDir());
  const node = createServerNode({
    ...options,
    env: { NODE_ENV: 'test', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ENCRYPTION_PASSPHRASE: 'test key passphrase', ...options.env },
    config: { port: 0, host: '127.0.0.1', dataDir, ...options.config },
    log: (line) => lines.push(line),
  });
  nodes.push(node);
  return { node, lines, dataDir };
}

export async function login(url: string, username = ADMIN.username, password = ADMIN.password): Promise<{ token: string; sessionId: string; status: number }> {
  const res = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const cookie = res.headers.get('set-cookie') ?? '';
  const token = /jwtToken=([^;]+)/.exec(cookie)?.[1] ?? '';
  const body = (await res.json()) as { sessionId?: string };
  return { token, sessionId: body.sessionId ?? '', status: res.status };
}

/** A quiet node on 127.0.0.1, port 0, a temp data dir, for a whole test file: the caller stops it (afterAll). */
export async function fileNode(options: ServerNodeOptions = {}): Promise<ServerNode> {
  return createServerNode({
    ...options,
    env: { NODE_ENV: 'test', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ENCRYPTION_PASSPHRASE: 'test key passphrase', ...options.env },
    config: { port: 0, host: '127.0.0.1', dataDir: await tempDir(), ...options.config },
    log: options.log ?? (() => undefined),
  });
}

/**
 * A node for a whole test file (the caller stops it in afterAll) with one logged-in `user`:
 * the fuzz and robustness suites attack it as a peer that is not an admin.
 */
export async function userNode(user: { username: string; password: string }, options: Pick<ServerNodeOptions, 'adapter'> = {}): Promise<{ node: ServerNode; url: string; token: string }> {
  const node = await fileNode({ ...options, config: { stackName: 'docstack' } });
  const { url } = await node.start();
  await createUser(node.stack(), user.username, user.password);
  const { token } = await login(url, user.username, user.password);
  return { node, url, token };
}

/** Collects a child process's stdout and stderr; `until(pattern)` waits for a line to appear. */
export function watchOutput(child: ChildProcess, timeoutMs = 30_000) {
  let output = '';
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = async (pattern: RegExp, ms = timeoutMs) => {
    const end = Date.now() + ms;
    while (!pattern.test(output)) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; output:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return pattern.exec(output)!;
  };
  return { child, exited, until, output: () => output };
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const processes: Array<ReturnType<typeof watchOutput>> = [];
afterAll(() => {
  for (const run of processes.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
});

/**
 * A node process as `npm start` runs it (server/main.ts bundled, helpers/bundled.ts; leveldb in `dataDir`, 127.0.0.1 port 0,
 * the test admin), its output watched; `env` adds settings. Killed after the file if still running.
 */
export async function nodeProcess(dataDir: string, env: Record<string, string> = {}) {
  const run = watchOutput(
    spawn(process.execPath, [await bundled('server/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, ENVFILE: join(dataDir, 'no.env'), DATA_DIR: dataDir, SERVER_PORT: '0', SERVER_HOST: '127.0.0.1', NODE_ENV: 'test', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    30_000,
  );
  processes.push(run);
  return run;
}
