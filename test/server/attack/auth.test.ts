import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { isDocstackError } from '../../../index.js';
import { createUser, hashPassword } from '../../../server/auth/index.js';
import { HashGate } from '../../../server/auth/hash-gate.js';
import { ADMIN, call, login, startHarness, type Answer, type Harness } from '../auth-harness.js';
import { testNode } from '../node-helpers.js';
import { memoryStack } from '../../helpers/stack.js';

/**
 * Issue 26, the auth slice: logins cannot starve the node, and a password change, a disable or a
 * demotion ends access on the very next request — by the routes and by a direct document write.
 */
const basic = (username: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` });

function expectCodedRefusal(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ code });
  expect(typeof answer.body.error).toBe('string');
  expect(typeof answer.body.reason).toBe('string');
}

describe('login floods', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await createUser(h.stack(), 'victim', 'victim password 1');
  });
  afterAll(() => h.close());

  it('hashes at most maxFailuresPerUser of 60 concurrent wrong logins for one user; the rest are 429 with Retry-After', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, () => login(h, 'victim', 'wrong password')));
    const checked = answers.filter((a) => a.status === 401);
    const limited = answers.filter((a) => a.status === 429);
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.length).toBeLessThanOrEqual(2); // one username holds 2 places in the hashing gate
    expect(checked.length + limited.length).toBe(60);
    for (const a of limited) {
      expectCodedRefusal(a, 429, 'DS_AUTH_RATE_LIMITED');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('never logs what was typed into the username field of a failed login', async () => {
    const h = await startHarness();
    onTestFinished(() => h.close());
    const typed = 'Tr0ub4dor&3-typed-in-the-wrong-field';
    await login(h, typed, 'whatever');
    await login(h, ADMIN.username, 'a wrong password');
    const failed = h.logs.filter((line) => line.includes('failed login'));
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(h.logs.join('\n')).not.toContain('Tr0ub4dor');
    expect(h.logs.join('\n')).not.toContain('a wrong password');
  });
});

/** POST /login from a given loopback address (127.0.0.x: each its own client address to the node). */
function loginFrom(h: Harness, localAddress: string, username: string, password: string): Promise<number> {
  const { port } = new URL(h.url);
  const body = JSON.stringify({ username, password });
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, localAddress, method: 'POST', path: '/login', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the password-hashing gate', () => {
  it('serves a first login from a clean address before a flood of bad logins from five others', async () => {
    const h = await startHarness({ auth: { hashConcurrency: 1, hashQueue: 8 } });
    onTestFinished(() => h.close());
    await createUser(h.stack(), 'newcomer', 'newcomer password');
    const order: string[] = [];
    const flood = [2, 3, 4, 5, 6].flatMap((n) =>
      Array.from({ length: 6 }, (_, i) => loginFrom(h, `127.0.0.${n}`, `guess${i}`, 'bad password').then((status) => order.push(String(status)))),
    );
    await new Promise((r) => setTimeout(r, 50)); // the flood is queued
    const newcomer = loginFrom(h, '127.0.0.9', 'newcomer', 'newcomer password').then((status) => order.push(`newcomer:${status}`));
    await Promise.all([...flood, newcomer]);
    const at = order.findIndex((o) => o.startsWith('newcomer'));
    expect(order[at]).toBe('newcomer:200');
    // overtaken by at most the hashes already running or next: not by the whole queue
    expect(order.slice(0, at).filter((o) => o === '401').length).toBeLessThanOrEqual(2);
    // what did not fit was answered 503 (the queue is bounded), never left waiting
    expect(order.filter((o) => o === '503').length).toBeGreaterThan(0);
    expect(order.filter((o) => !['401', '429', '503'].includes(o) && !o.startsWith('newcomer'))).toEqual([]);
  }, 60_000);

  it('answers 503 DS_AUTH_BUSY with Retry-After when no hash may wait', async () => {
    const h = await startHarness({ auth: { hashConcurrency: 1, hashQueue: 0 } });
    onTestFinished(() => h.close());
    const answers = await Promise.all(['a1', 'a2', 'a3'].map((name) => login(h, name, 'bad password')));
    const busy = answers.filter((a) => a.status === 503);
    expect(answers.filter((a) => a.status === 401).length).toBeGreaterThanOrEqual(1);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    for (const a of busy) {
      expectCodedRefusal(a, 503, 'DS_AUTH_BUSY');
      expect(a.headers.get('retry-after')).toBe('1');
    }
    // a busy answer was no attempt: it did not count against the address
    expect((await login(h, ADMIN.username, ADMIN.password)).status).toBe(200);
  });

  it('runs the lowest priority first and lets a better newcomer take the worst place of a full queue', async () => {
    const gate = new HashGate({ concurrency: 1, maxQueue: 2 });
    const started: string[] = [];
    let release!: () => void;
    const blocker = gate.run(0, () => new Promise<void>((r) => (release = r)));
    const task = (name: string) => async () => void started.push(name);
    const flood1 = gate.run(20, task('flood1'));
    const flood2 = gate.run(20, task('flood2'));
    const worse = gate.run(30, task('worse')); // the queue is full, and it is not better
    await expect(worse).rejects.toSatisfy((err: unknown) => isDocstackError(err, 'DS_AUTH_BUSY'));
    const newcomer = gate.run(2, task('newcomer'));
    await expect(flood2).rejects.toSatisfy((err: unknown) => isDocstackError(err, 'DS_AUTH_BUSY')); // evicted: the newest of the worst
    expect(gate.load).toEqual({ running: 1, waiting: 2 });
    release();
    await Promise.all([blocker, flood1, newcomer]);
    expect(started).toEqual(['newcomer', 'flood1']);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('lets one address hold only its share of places (429 at once, before its task runs)', async () => {
    const gate = new HashGate({ concurrency: 1, maxQueue: 10, maxPerOwner: 2 });
    let release!: () => void;
    const held = gate.run(5, () => new Promise<void>((r) => (release = r)), '10.0.0.1');
    const waiting = gate.run(5, async () => 'second', '10.0.0.1');
    let ran = false;
    await expect(gate.run(5, async () => void (ran = true), '10.0.0.1')).rejects.toSatisfy((err: unknown) => isDocstackError(err, 'DS_AUTH_RATE_LIMITED'));
    expect(ran).toBe(false);
    const other = gate.run(5, async () => 'other address', '10.0.0.2'); // another address still waits its turn
    release();
    expect(await Promise.all([held, waiting, other])).toEqual([undefined, 'second', 'other address']);
    expect(await gate.run(5, async () => 'again', '10.0.0.1')).toBe('again'); // its places came back
  });
});

describe('a password change, a disable or a demotion ends access on the very next request', () => {
  let h: Harness;
  let admin: string;
  beforeAll(async () => {
    h = await startHarness();
    admin = (await login(h, ADMIN.username, ADMIN.password)).token;
  });
  afterAll(() => h.close());

  /** A user logged in three ways: a bearer token, a cookie, and Basic credentials already verified once. */
  async function loggedIn(username: string, password: string, role: 'user' | 'admin' = 'user') {
    const user = await createUser(h.stack(), username, password, role);
    const session = await login(h, username, password);
    expect(session.status).toBe(200);
    const cookie = `jwtToken=${session.token}`;
    expect((await call(h, 'GET', '/api/private/sessions', { token: session.token })).status).toBe(200);
    expect((await call(h, 'GET', '/api/private/sessions', { cookie })).status).toBe(200);
    expect((await call(h, 'GET', '/api/private/sessions', { headers: basic(username, password) })).status).toBe(200);
    return { id: user._id, token: session.token, cookie };
  }

  async function expectLockedOut(username: string, oldPassword: string, who: { token: string; cookie: string }) {
    expectCodedRefusal(await call(h, 'GET', '/api/private/sessions', { headers: basic(username, oldPassword) }), 401, 'DS_AUTH_REQUIRED');
    expectCodedRefusal(await call(h, 'GET', '/api/private/sessions', { token: who.token }), 401, 'DS_AUTH_REQUIRED');
    expectCodedRefusal(await call(h, 'GET', '/api/private/sessions', { cookie: who.cookie }), 401, 'DS_AUTH_REQUIRED');
  }

  it('an admin sets a new password: old Basic password, old bearer token and old cookie are 401', async () => {
    const who = await loggedIn('pat', 'pat password 1');
    expect((await call(h, 'PUT', '/api/private/users/pat/password', { token: admin, body: { password: 'pat password 2' } })).status).toBe(200);
    await expectLockedOut('pat', 'pat password 1', who);
    expect((await call(h, 'GET', '/api/private/sessions', { headers: basic('pat', 'pat password 2') })).status).toBe(200);
  });

  it('a user changes their own password: the old credentials are 401, the answer carries a fresh session', async () => {
    const who = await loggedIn('quin', 'quin password 1');
    const changed = await call(h, 'PUT', '/api/private/users/quin/password', { token: who.token, body: { password: 'quin password 2', currentPassword: 'quin password 1' } });
    expect(changed.status).toBe(200);
    await expectLockedOut('quin', 'quin password 1', who);
    const fresh = /jwtToken=([^;]+)/.exec(changed.headers.get('set-cookie') ?? '')?.[1] ?? '';
    expect(fresh).not.toBe('');
    expect((await call(h, 'GET', '/api/private/sessions', { token: fresh })).status).toBe(200);
  });

  it('a password hash written directly to the ~User document ends every session and the old Basic password', async () => {
    const who = await loggedIn('rae', 'rae password 1');
    await h.stack().updateDoc(who.id, { passwordHash: await hashPassword('rae password 2') }, { origin: 'system' });
    await expectLockedOut('rae', 'rae password 1', who);
  });

  it('a user disabled by a direct document write is 401 on the very next request, every way', async () => {
    const who = await loggedIn('sam', 'sam password 1');
    await h.stack().updateDoc(who.id, { disabled: true }, { origin: 'system' });
    await expectLockedOut('sam', 'sam password 1', who);
  });

  it('an admin demoted by a direct document write is 403 on an admin route on the very next request', async () => {
    const who = await loggedIn('tess', 'tess password 1', 'admin');
    expect((await call(h, 'GET', '/api/private/users', { token: who.token })).status).toBe(200);
    expect((await call(h, 'GET', '/api/private/users', { headers: basic('tess', 'tess password 1') })).status).toBe(200);
    await h.stack().updateDoc(who.id, { role: 'user' }, { origin: 'system' });
    expectCodedRefusal(await call(h, 'GET', '/api/private/users', { token: who.token }), 403, 'DS_AUTHZ_ADMIN');
    expectCodedRefusal(await call(h, 'GET', '/api/private/users', { cookie: who.cookie }), 403, 'DS_AUTHZ_ADMIN');
    expectCodedRefusal(await call(h, 'GET', '/api/private/users', { headers: basic('tess', 'tess password 1') }), 403, 'DS_AUTHZ_ADMIN');
  });

  it('answers a non-admin the same 403 for another user and for a missing one (no username oracle)', async () => {
    const who = await loggedIn('uma', 'uma password 1');
    await createUser(h.stack(), 'vera', 'vera password 1');
    const other = await call(h, 'GET', '/api/private/users/vera/tenants', { token: who.token });
    const missing = await call(h, 'GET', '/api/private/users/nobody-at-all/tenants', { token: who.token });
    expectCodedRefusal(other, 403, 'DS_AUTHZ_SESSION');
    expect(missing).toMatchObject({ status: other.status, body: other.body });
    const otherPassword = await call(h, 'PUT', '/api/private/users/vera/password', { token: who.token, body: { password: 'taken over!!' } });
    const missingPassword = await call(h, 'PUT', '/api/private/users/nobody-at-all/password', { token: who.token, body: { password: 'taken over!!' } });
    expect(missingPassword).toMatchObject({ status: otherPassword.status, body: otherPassword.body });
    expect((await call(h, 'GET', '/api/private/users/uma/tenants', { token: who.token })).status).toBe(200);
    expect((await call(h, 'GET', '/api/private/users/nobody-at-all/tenants', { token: admin })).status).toBe(404);
  });
});

/** Opens a raw socket and sends the start of a request; resolves with what came back once the node closes it. */
function slowRequest(port: number, head: string, dripMs: number): Promise<{ answer: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let drip: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      drip = setInterval(() => socket.write('a'), dripMs); // never reaches Content-Length
    });
    socket.on('data', (d) => (answer += String(d)));
    socket.on('error', () => undefined); // a reset is a close too
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ answer, socket });
    });
    setTimeout(() => {
      clearInterval(drip);
      socket.destroy();
      reject(new Error(`the node still held the connection after 8 s; got ${JSON.stringify(answer)}`));
    }, 8000).unref();
  });
}

describe('slow requests and connection floods', () => {
  it('cuts a body that trickles in to /login and headers that never end (408 or closed within the request timeout)', async () => {
    const { node } = await testNode({ adapter: 'memory', config: { httpRequestTimeoutMs: 1000, httpHeadersTimeoutMs: 1000 } as never });
    const { port } = await node.start();
    const body = await slowRequest(port, 'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"username":"', 200);
    expect(body.answer === '' || /^HTTP\/1\.1 408/.test(body.answer)).toBe(true);
    const headers = await slowRequest(port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ', 200);
    expect(headers.answer === '' || /^HTTP\/1\.1 408/.test(headers.answer)).toBe(true);
  }, 20_000);

  it('refuses connections past the configured maximum', async () => {
    const { node } = await testNode({ adapter: 'memory', config: { httpMaxConnections: 2 } as never });
    const { port } = await node.start();
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const s = connect(port, '127.0.0.1', () => resolve(s));
        s.on('error', () => undefined);
      });
    const kept = [await open(), await open()];
    await new Promise((r) => setTimeout(r, 100)); // the server has accepted both
    const third = await open();
    const closed = await new Promise<boolean>((resolve) => {
      third.on('close', () => resolve(true));
      third.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      third.on('data', () => resolve(false));
      setTimeout(() => resolve(false), 3000).unref();
    });
    expect(closed).toBe(true);
    for (const s of kept) s.destroy();
    // once the server has seen them close, a new client is served again
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0);
    }
    expect(status).toBe(200);
  }, 20_000);
});

describe('a busy node is waited for, not a failed login', () => {
  it("devices of one office (one address, more than its 4 places in the hashing gate) starting together all sync: the client waits the node's Retry-After", async () => {
    const { node } = await testNode({ adapter: 'memory' });
    const { url } = await node.start();
    const names = ['desk1', 'desk2', 'desk3', 'desk4', 'desk5', 'desk6', 'desk7'];
    for (const name of names) await createUser(node.stack(), name, `${name} password`);
    const results = await Promise.all(
      names.map(async (name) => {
        const client = await memoryStack();
        return client.sync({ remote: `${url}/db/docstack`, auth: { username: name, password: `${name} password` } });
      }),
    );
    expect(results.map((r) => r.ok)).toEqual(names.map(() => true));
  }, 60_000);
});

