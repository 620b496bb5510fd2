/**
 * The node of a convergence run: `server/main.ts` (what `npm start` runs) in a child process on
 * leveldb in a temp folder, so it can be killed with SIGKILL mid-sync and started again on the
 * same folder and port. No vitest import: the bench runs this outside the test runner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createStack, type ClientStack } from '../../../index.js';
import { server as serverPreset } from '../../../plugins.config.js';
import { bundled } from '../../helpers/bundled.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const NODE_ADMIN = { username: 'admin', password: 'convergence admin password' };
const STACK_NAME = 'docstack';

/** Where the node's leveldb store lives inside a run's temp folder. */
export const nodeDataDir = (dir: string) => join(dir, 'node');

export interface NodeProcess {
  /** `http://127.0.0.1:<port>/db/docstack` */
  readonly remote: string;
  /** a Bearer token of the admin, renewed at every start */
  readonly token: string;
  /** SIGKILL, then wait for the exit */
  kill(): Promise<void>;
  /** a new child on the same folder and port */
  restart(): Promise<void>;
  /** SIGTERM (a clean stop), then wait for the exit */
  stop(): Promise<void>;
  /** the node's store opened in this process (after stop): to read what the node holds */
  openStore(): Promise<ClientStack>;
  /** everything the children printed, for a report on failure */
  output(): string;
}

export async function startNodeProcess(dataDir: string): Promise<NodeProcess> {
  let output = '';
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let port = 0;
  let token = '';

  const launch = async () => {
    const env = {
      ...process.env,
      ENVFILE: join(dataDir, 'no.env'),
      DATA_DIR: nodeDataDir(dataDir),
      SERVER_PORT: String(port),
      SERVER_HOST: '127.0.0.1',
      NODE_ENV: 'test',
      STACK_NAME,
      ADMIN_USERNAME: NODE_ADMIN.username,
      ADMIN_PASSWORD: NODE_ADMIN.password,
      ENCRYPTION_PASSPHRASE: 'convergence node passphrase',
    };
    const proc = spawn(process.execPath, [await bundled('server/main.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    const onData = (d: unknown) => (output += String(d));
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    exited = new Promise((resolve) => proc.on('exit', () => resolve()));
    const started = output.length;
    const end = Date.now() + 120_000;
    let match: RegExpExecArray | null = null;
    while (!(match = /node ready at http:\/\/127\.0\.0\.1:(\d+)/.exec(output.slice(started)))) {
      if (proc.exitCode !== null) throw new Error(`the node exited before it was ready:\n${output.slice(started)}`);
      if (Date.now() > end) throw new Error(`the node did not start in 120 s:\n${output.slice(started)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    port = Number(match[1]);
    // a token survives a restart (the signing key is in the data folder): keep it and spare a
    // password hash; log in again only when the node does not take it
    if (!token || !(await accepts(`http://127.0.0.1:${port}/db/${STACK_NAME}`, token))) token = await login(`http://127.0.0.1:${port}`);
  };
  const waitExit = async () => {
    await exited;
    child = null;
  };

  await launch();
  return {
    get remote() {
      return `http://127.0.0.1:${port}/db/${STACK_NAME}`;
    },
    get token() {
      return token;
    },
    kill: async () => {
      child?.kill('SIGKILL');
      await waitExit();
    },
    restart: launch,
    stop: async () => {
      child?.kill('SIGTERM');
      await waitExit();
    },
    openStore: () => createStack({ name: STACK_NAME, adapter: 'leveldb', dataDir: nodeDataDir(dataDir), plugins: serverPreset }),
    output: () => output,
  };
}

async function accepts(remote: string, token: string): Promise<boolean> {
  const res = await fetch(remote, { headers: { authorization: `Bearer ${token}` } });
  await res.text();
  return res.ok;
}

async function login(origin: string): Promise<string> {
  const res = await fetch(`${origin}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(NODE_ADMIN) });
  const token = /jwtToken=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!token) throw new Error(`the admin login failed: ${res.status} ${await res.text()}`);
  return token;
}
