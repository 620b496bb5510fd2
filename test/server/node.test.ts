import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { tempDir } from '../helpers/stack.js';
import { ADMIN, login, testNode, watchOutput } from './node-helpers.js';
import { bundled } from '../helpers/bundled.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the server node', () => {
  it('answers 503 with JSON and Retry-After until start-up has finished, then serves', async () => {
    const { node } = await testNode();
    const { url } = await node.listen();
    const res = await fetch(`${url}/api/private/test`, { signal: AbortSignal.timeout(3000) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ error: 'unavailable', code: 'DS_NODE_NOT_READY' });
    const ready = new Promise((resolve) => node.once('ready', resolve));
    await node.initialize();
    await ready;
    const { token } = await login(url);
    const ok = await fetch(`${url}/api/private/test`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
  });

  it('generates its JWT keys once, the private key encrypted at rest, and keeps users, sessions and keys across a restart', async () => {
    const dataDir = await tempDir();
    const first = await testNode({ dataDir });
    const { url } = await first.node.start();
    const { token } = await login(url);
    const pem = await readFile(join(dataDir, 'keys', 'jwt-private.pem'), 'utf8');
    expect(pem).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    await first.node.stop();

    const second = await testNode({ dataDir, env: { ADMIN_PASSWORD: 'ignored after the first boot' } });
    const again = await second.node.start();
    expect(await readFile(join(dataDir, 'keys', 'jwt-private.pem'), 'utf8')).toBe(pem);
    // the token of the first run still opens a private route: same keys, same session
    expect((await fetch(`${again.url}/api/private/test`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await login(again.url)).status).toBe(200);
    expect((await login(again.url, ADMIN.username, 'ignored after the first boot')).status).toBe(401);
  });

  it('refuses to start with a clear error when the key passphrase is wrong', async () => {
    const dataDir = await tempDir();
    const first = await testNode({ dataDir });
    await first.node.start();
    await first.node.stop();
    const second = await testNode({ dataDir, env: { ENCRYPTION_PASSPHRASE: 'not the one' } });
    await expect(second.node.start()).rejects.toMatchObject({ code: 'DS_SERVER_KEY' });
  });

  it('refuses a body over the limit with 413, logs one line per request and never a secret', async () => {
    const { node, lines } = await testNode({ config: { bodyLimit: 1024 } });
    const { url } = await node.start();
    const big = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'x', password: 'y'.repeat(5000) }) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'payload_too_large' });
    const { token } = await login(url);
    await fetch(`${url}/api/private/test?token=${token}`, { headers: { authorization: `Bearer ${token}` } });
    expect(lines.some((l) => /^POST \/login 413 \d+\.\dms$/.test(l))).toBe(true);
    expect(lines.some((l) => /^GET \/api\/private\/test 200 /.test(l))).toBe(true);
    for (const line of lines) {
      expect(line).not.toContain(ADMIN.password);
      expect(line).not.toContain(token);
    }
  });
});

describe('CORS', () => {
  it('answers cross-origin requests only in development, only for the configured origin, with credentials', async () => {
    const dev = await testNode({ env: { NODE_ENV: 'development', CORS_ORIGIN: 'http://localhost:5173' } });
    const { url } = await dev.node.start();
    const preflight = await fetch(`${url}/login`, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    const stranger = await fetch(`${url}/health`, { headers: { origin: 'http://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const prod = await testNode({ env: { NODE_ENV: 'production', CORS_ORIGIN: 'http://localhost:5173' } });
    const p = await prod.node.start();
    const none = await fetch(`${p.url}/health`, { headers: { origin: 'http://localhost:5173' } });
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers cross-origin requests for CORS_ORIGINS in any environment, and COOKIE_SAMESITE sets the session cookie', async () => {
    const app = 'https://app.example.com';
    const prod = await testNode({ env: { NODE_ENV: 'production', CORS_ORIGINS: `${app}, http://127.0.0.1:8080`, COOKIE_SAMESITE: 'none' } });
    const { url } = await prod.node.start();
    const preflight = await fetch(`${url}/db/docstack/_changes`, { method: 'OPTIONS', headers: { origin: app, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(app);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const second = await fetch(`${url}/health`, { headers: { origin: 'http://127.0.0.1:8080' } });
    expect(second.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8080');
    const stranger = await fetch(`${url}/health`, { headers: { origin: 'http://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const res = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: app }, body: JSON.stringify(ADMIN) });
    expect(res.headers.get('set-cookie')).toMatch(/jwtToken=.*SameSite=None/i);
    expect(res.headers.get('set-cookie')).toMatch(/Secure/);
    for (const env of [{ CORS_ORIGINS: '*' }, { CORS_ORIGINS: 'https://app.example.com/path' }, { COOKIE_SAMESITE: 'sometimes' }]) {
      expect(() => loadConfig(env)).toThrow(expect.objectContaining({ code: 'DS_SERVER_CONFIG_INVALID' }));
    }
  });
});

describe('npm start (server/main.ts)', () => {
  // server/main.ts bundled once (helpers/bundled.ts): ~1.4 s less per start than `--import tsx`
  async function start(env: Record<string, string>) {
    const child = spawn(process.execPath, [await bundled('server/main.ts')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return watchOutput(child, 20_000);
  }

  it('starts on a fresh machine without .env, prints the admin password once, and stops gracefully on SIGTERM', async () => {
    const dataDir = await tempDir();
    const env = { ENVFILE: join(dataDir, 'no.env'), DATA_DIR: dataDir, SERVER_PORT: '0', SERVER_HOST: '127.0.0.1', NODE_ENV: 'test' };
    const first = await start(env);
    const [, url] = await first.until(/node ready at (http:\/\/\S+)/);
    const [, password] = await first.until(/created with the password: (\S+)/);
    expect((await login(url, 'admin', password)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await start(env);
    await second.until(/node ready at/);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(second.output()).not.toMatch(/password/);
  }, 60_000);

  it('skips runtime initialisation when BUILDING is set', async () => {
    const dataDir = await tempDir();
    const run = await start({ BUILDING: '1', DATA_DIR: join(dataDir, 'never'), ENVFILE: join(dataDir, 'no.env') });
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/BUILDING is set/);
    await expect(readFile(join(dataDir, 'never'))).rejects.toThrow();
  }, 30_000);

  it('refuses bad settings and a store in use with one coded line, exit 1, no stack trace', async () => {
    const dataDir = await tempDir();
    const base = { ENVFILE: join(dataDir, 'no.env'), DATA_DIR: dataDir, SERVER_PORT: '0', NODE_ENV: 'test', ADMIN_PASSWORD: 'admin password for tests' };
    for (const [env, code] of [
      [{ SERVER_PORT: 'abc' }, 'DS_SERVER_CONFIG_INVALID'],
      [{ JWT_TTL: '-5' }, 'DS_SERVER_CONFIG_INVALID'],
    ] as const) {
      const run = await start({ ...base, ...env });
      expect(await run.exited).toBe(1);
      const lines = run.output().trim().split('\n');
      expect(lines, run.output()).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^docstack: cannot start — ${code}: `));
      expect(run.output()).not.toMatch(/\n\s+at /); // no stack trace
    }
    // a second node on the same data folder: the first holds the leveldb lock
    const first = await start(base);
    await first.until(/node ready at/);
    const second = await start(base);
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/^docstack: cannot start — DS_STORAGE_LOCKED: /m);
    expect(second.output()).not.toMatch(/\n\s+at /);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  }, 60_000);

  it('binds 127.0.0.1 unless HOST is set, and prints the address it bound', async () => {
    const dataDir = await tempDir();
    const base = { ENVFILE: join(dataDir, 'no.env'), DATA_DIR: dataDir, SERVER_PORT: '0', NODE_ENV: 'test', ADMIN_PASSWORD: 'admin password for tests' };
    const loopback = await start(base);
    const [, url] = await loopback.until(/node ready at (http:\/\/\S+)/);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*$/);
    loopback.child.kill('SIGTERM');
    expect(await loopback.exited).toBe(0);
    const everywhere = await start({ ...base, HOST: '0.0.0.0' });
    await everywhere.until(/node ready at/);
    expect(everywhere.output()).toMatch(/listening on 0\.0\.0\.0:[1-9]/);
    everywhere.child.kill('SIGTERM');
    expect(await everywhere.exited).toBe(0);
  }, 60_000);
});

describe('npm start (scripts/start.mjs)', () => {
  it('builds only when the sources changed, and stops the node when npm gets SIGTERM', async () => {
    const dataDir = await tempDir();
    const env = { ...process.env, ENVFILE: join(dataDir, 'no.env'), DATA_DIR: dataDir, SERVER_PORT: '0', NODE_ENV: 'test', ADMIN_PASSWORD: 'admin password for tests' };
    const run = async () => {
      const child = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += String(d)));
      child.stderr.on('data', (d) => (output += String(d)));
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      const end = Date.now() + 90_000;
      while (!/node ready at (http:\/\/\S+)/.test(output)) {
        if (Date.now() > end) throw new Error(`npm start did not get ready:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const url = /node ready at (http:\/\/\S+)/.exec(output)![1];
      expect((await fetch(`${url}/db/docstack`)).status).toBe(401); // serving
      child.kill('SIGTERM'); // to npm, not to node
      const { code, signal } = await exited;
      // npm forwards the signal, waits for the node, then ends itself by the same signal
      expect(code === 0 || signal === 'SIGTERM', `code ${code}, signal ${signal}`).toBe(true);
      // the node runs its own graceful stop, and is gone within moments
      const gone = Date.now() + 10_000;
      while (!/docstack: SIGTERM received, stopping/.test(output) || (await fetch(`${url}/db/docstack`).then(() => true, () => false))) {
        if (Date.now() > gone) throw new Error(`the node outlived npm:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return output;
    };
    await run(); // builds when dist/ is missing or older than the sources
    const second = await run();
    expect(second).not.toMatch(/building dist/);
  }, 120_000); // two npm starts, the first building dist/ with tsc: ~20 s, ~50 s beside other test files
});
