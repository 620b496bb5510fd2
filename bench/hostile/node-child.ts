/**
 * The node under attack, in a process of its own and started as the README's main command
 * starts it: `node scripts/start.mjs` (what `npm start` execs; it rebuilds dist/ first when a
 * source is newer than the last build) — or, with `mode: 'tsx'`, `server/main.ts` from the
 * sources (`node --import tsx`), for a quick run without a build. Leveldb in a temp folder,
 * 127.0.0.1 on a port the system picks, NODE_ENV=production, the admin from the environment.
 *
 * The child is killed on every way out of the bench: stop(), an exception, Ctrl-C, the bench
 * process exiting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** what is kept of the child's output (its request log is one line a request) */
const OUTPUT_KEPT = 64 * 1024;

export interface NodeChild {
  origin: string;
  pid: number;
  /** the last 64 kB the child printed */
  output(): string;
  /** the child's resident set (VmRSS of /proc/<pid>/status), in MB; null once it is gone */
  rssMb(): Promise<number | null>;
  /** SIGTERM (the node's graceful stop), SIGKILL after `graceMs` */
  stop(graceMs?: number): Promise<void>;
}

export interface NodeChildOptions {
  dataDir: string;
  admin: { username: string; password: string };
  mode: 'start' | 'tsx';
  /** how long to wait for "node ready" (a first `npm start` builds dist/ first) */
  readyTimeoutMs: number;
  log: (line: string) => void;
}

const children = new Set<ChildProcess>();
let guarded = false;
/** Kills every child still running when the bench process goes, however it goes. */
function guardExit(): void {
  if (guarded) return;
  guarded = true;
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) child.kill('SIGKILL');
      process.exit(130);
    });
  }
}

export async function startNodeChild(options: NodeChildOptions): Promise<NodeChild> {
  guardExit();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ENVFILE: join(options.dataDir, 'no.env'), // a .env in the working folder must not change the run
    DATA_DIR: join(options.dataDir, 'node'),
    SERVER_PORT: '0',
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    ADMIN_USERNAME: options.admin.username,
    ADMIN_PASSWORD: options.admin.password,
    ENCRYPTION_PASSPHRASE: 'hostile-load bench passphrase',
  };
  // HOSTILE_PROFILE=<dir>: the node (--node=tsx) writes a V8 CPU profile there (bench/profile-top.ts reads it)
  const args = options.mode === 'start' ? ['scripts/start.mjs'] : [...(process.env.HOSTILE_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HOSTILE_PROFILE}`] : []), '--import', 'tsx', 'server/main.ts'];
  options.log(`starting the node: node ${args.join(' ')} (DATA_DIR ${env.DATA_DIR})`);
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (chunk: unknown) => {
    output += String(chunk);
    if (output.length > OUTPUT_KEPT * 2) output = output.slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => children.delete(child));

  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const end = Date.now() + options.readyTimeoutMs;
  let match: RegExpExecArray | null = null;
  while (!(match = /node ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(output))) {
    if (child.exitCode !== null) throw new Error(`the node exited (status ${child.exitCode}) before it was ready:\n${output.slice(-4000)}`);
    if (Date.now() > end) {
      await stop(1000);
      throw new Error(`the node was not ready in ${options.readyTimeoutMs / 1000} s:\n${output.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pid = child.pid ?? 0;
  return {
    origin: match[1],
    pid,
    output: () => output.slice(-OUTPUT_KEPT),
    rssMb: async () => {
      try {
        const status = await readFile(`/proc/${pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
        return kb ? Number(kb) / 1024 : null;
      } catch {
        return null;
      }
    },
    stop,
  };
}
