/**
 * bench/login-flood (issue 26): `npx tsx bench/login-flood.ts [seconds]`.
 *
 * A real node (server/node.ts, leveldb in a temp folder). Beside one REST writer (sequential
 * `POST /api/private/docs/Note` with a bearer token), 60 clients log in with wrong passwords
 * from 127.0.0.2 and 5 more from 127.0.0.3–7 (one each), each again as soon as it is answered,
 * usernames rotating; meanwhile a new user logs in for the first time from 127.0.0.9, twice.
 * Printed: the writer's p50/p99/max before and during the flood, each newcomer login's time and
 * status, the answers the flood got by status, the node's peak RSS (the writer and the newcomer
 * run in the node's process; the flood in a child process of its own).
 *
 * Settings come from the environment as for `npm start` (AUTH_HASH_CONCURRENCY, AUTH_HASH_QUEUE…).
 */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Class } from '../index.js';
import { createUser } from '../server/auth/index.js';
import { createServerNode } from '../server/node.js';

const SECONDS = Number(process.argv[2] ?? 12);
const ADMIN = { username: 'admin', password: 'bench admin password' };
const FLOOD_MAIN = 60;
const FLOOD_OTHERS = 5;

function post(url: string, path: string, body: unknown, localAddress: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; ms: number }> {
  const { hostname, port } = new URL(url);
  const data = JSON.stringify(body);
  const start = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: hostname, port, localAddress, method: 'POST', path, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, ms: performance.now() - start }));
      },
    );
    req.on('error', () => resolve({ status: 0, text: '', ms: performance.now() - start }));
    req.end(data);
  });
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const summary = (xs: number[]) => `n=${xs.length} p50=${percentile(xs, 50).toFixed(1)} ms p99=${percentile(xs, 99).toFixed(1)} ms max=${Math.max(...xs).toFixed(1)} ms`;

const dir = await mkdtemp(join(tmpdir(), 'login-flood-'));
const node = createServerNode({
  env: { NODE_ENV: 'test', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ENCRYPTION_PASSPHRASE: 'bench key passphrase', ...process.env },
  config: { port: 0, host: '127.0.0.1', dataDir: dir },
  log: () => undefined,
});
const { url } = await node.start();
await Class.create(node.stack(), 'Note', 'class', '', { text: { type: 'string', maxLength: 200 } });
await createUser(node.stack(), 'newcomer', 'newcomer password');
const adminLogin = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
const token = /jwtToken=([^;]+)/.exec(adminLogin.headers.get('set-cookie') ?? '')?.[1] ?? '';
if (!token) throw new Error('bench: the admin login failed');

let peakRss = 0;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

let flooding = false;
let stop = false;
const before: number[] = [];
const during: number[] = [];
const writerErrors: number[] = [];
async function writer(): Promise<void> {
  for (let i = 0; !stop; i++) {
    const r = await post(url, '/api/private/docs/Note', { text: `note ${i}` }, '127.0.0.1', { authorization: `Bearer ${token}` });
    if (r.status !== 201) writerErrors.push(r.status);
    (flooding ? during : before).push(r.ms);
  }
}

/**
 * The flood runs in a child process (plain Node, no TypeScript), so its own client work does not
 * share the node's event loop — as an attacker's machine would not. It prints its answers by status.
 */
const FLOOD_SCRIPT = `
const http = require('node:http');
const [url, seconds, main, others] = process.argv.slice(1);
const { hostname, port } = new URL(url);
const statuses = {};
const end = Date.now() + Number(seconds) * 1000;
function login(address, username) {
  const data = JSON.stringify({ username, password: 'not the password' });
  return new Promise((resolve) => {
    const req = http.request({ host: hostname, port, localAddress: address, method: 'POST', path: '/login', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end(data);
  });
}
async function client(address, n) {
  for (let i = 0; Date.now() < end; i++) {
    const status = await login(address, 'guess-' + n + '-' + (i % 50));
    statuses[status] = (statuses[status] || 0) + 1;
  }
}
const clients = [];
for (let n = 0; n < Number(main); n++) clients.push(client('127.0.0.2', n));
for (let n = 0; n < Number(others); n++) clients.push(client('127.0.0.' + (3 + n), 100 + n));
Promise.all(clients).then(() => console.log(JSON.stringify(statuses)));
`;
function flood(seconds: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', FLOOD_SCRIPT, url, String(seconds), String(FLOOD_MAIN), String(FLOOD_OTHERS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.on('exit', () => resolve(out.trim()));
  });
}

const writing = writer();
await new Promise((r) => setTimeout(r, 2000));
flooding = true;
const floodAnswers = flood(SECONDS);
const floodStart = performance.now();
const sleepUntil = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, floodStart + ms - performance.now())));
const newcomer: string[] = [];
for (const at of [2000, (SECONDS * 1000) / 2]) {
  await sleepUntil(at);
  const r = await post(url, '/login', { username: 'newcomer', password: 'newcomer password' }, '127.0.0.9');
  newcomer.push(`${r.status} in ${r.ms.toFixed(0)} ms`);
}
await sleepUntil(SECONDS * 1000);
stop = true;
const floodStatuses = await floodAnswers;
await writing;
clearInterval(rssTimer);

const hashes = `AUTH_HASH_CONCURRENCY=${node.config.authHashConcurrency ?? '(none)'} AUTH_HASH_QUEUE=${node.config.authHashQueue ?? '(none)'}`;
console.log(`login-flood: ${SECONDS} s, ${FLOOD_MAIN} bad-login clients from one address + ${FLOOD_OTHERS} from others; ${hashes}`);
console.log(`  writer before the flood: ${summary(before)}`);
console.log(`  writer during the flood: ${summary(during)}; errors ${writerErrors.length}`);
console.log(`  newcomer's first logins during the flood: ${newcomer.join(', ')}`);
console.log(`  flood answers by status: ${floodStatuses}`);
console.log(`  peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MB`);
await node.stop();
await rm(dir, { recursive: true, force: true });
