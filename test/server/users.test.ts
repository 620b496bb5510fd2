import { describe, expect, it } from 'vitest';
import { ADMIN, login, testNode } from './node-helpers.js';

/** The admin user routes under /api/private/users, on a real node with real logins. */
async function started() {
  const { node, lines, dataDir } = await testNode();
  const { url } = await node.start();
  const admin = (await login(url)).token;
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${url}/api/private${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { node, lines, url, admin, call, dataDir };
}

describe('user management', () => {
  it('lets an admin create users with a role, list them without hashes, and refuses bad bodies and taken names', async () => {
    const { admin, call } = await started();
    const created = await call('POST', '/users', admin, { username: 'una', password: 'una password 1', role: 'user' });
    expect(created).toMatchObject({ status: 201, body: { username: 'una', role: 'user', disabled: false } });
    expect((await call('POST', '/users', admin, { username: 'una', password: 'another password' })).status).toBe(409);
    expect(await call('POST', '/users', admin, { username: 'x y', password: 'long enough' })).toMatchObject({ status: 400, body: { code: 'DS_REQUEST_INVALID', path: 'username' } });
    expect(await call('POST', '/users', admin, { username: 'short', password: 'short' })).toMatchObject({ status: 400, body: { code: 'DS_REQUEST_INVALID', path: 'password' } });
    expect(await call('POST', '/users', admin, { username: 'boss', password: 'long enough', role: 'root' })).toMatchObject({ status: 400, body: { path: 'role' } });
    const listed = await call('GET', '/users', admin);
    expect(listed.body.users.map((u: { username: string; role: string }) => [u.username, u.role])).toEqual([
      ['admin', 'admin'],
      ['una', 'user'],
    ]);
    expect(JSON.stringify(listed.body)).not.toMatch(/scrypt|passwordHash|legacy/);
  });

  it('refuses every user-management route to a user: nobody makes themself admin', async () => {
    const { url, admin, call } = await started();
    await call('POST', '/users', admin, { username: 'una', password: 'una password 1' });
    const una = (await login(url, 'una', 'una password 1')).token;
    for (const [method, path, body] of [
      ['GET', '/users', undefined],
      ['POST', '/users', { username: 'mine', password: 'mine password', role: 'admin' }],
      ['PUT', '/users/una/role', { role: 'admin' }],
      ['POST', '/users/admin/disable', undefined],
      ['POST', '/users/una/enable', undefined],
    ] as const) {
      expect(await call(method, path, una, body), `${method} ${path}`).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_ADMIN' } });
    }
    expect((await call('GET', '/users', admin)).body.users.find((u: { username: string }) => u.username === 'una').role).toBe('user');
  });

  it('changes passwords: an admin for anyone, a user for themself with the current password', async () => {
    const { url, admin, call } = await started();
    await call('POST', '/users', admin, { username: 'una', password: 'una password 1' });
    await call('POST', '/users', admin, { username: 'vic', password: 'vic password 1' });
    const una = (await login(url, 'una', 'una password 1')).token;
    expect(await call('PUT', '/users/vic/password', una, { password: 'taken over!' })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SESSION' } });
    expect(await call('PUT', '/users/una/password', una, { password: 'una password 2', currentPassword: 'wrong' })).toMatchObject({ status: 401, body: { code: 'DS_AUTH_CREDENTIALS' } });
    expect((await call('PUT', '/users/una/password', una, { password: 'una password 2', currentPassword: 'una password 1' })).status).toBe(200);
    expect((await login(url, 'una', 'una password 1')).status).toBe(401);
    expect((await login(url, 'una', 'una password 2')).status).toBe(200);
    expect((await call('PUT', '/users/vic/password', admin, { password: 'vic password 2' })).status).toBe(200);
    expect((await login(url, 'vic', 'vic password 2')).status).toBe(200);
    expect(await call('PUT', '/users/nobody/password', admin, { password: 'whatever 123' })).toMatchObject({ status: 404, body: { code: 'DS_USER_NOT_FOUND' } });
  });

  it('disabling a user ends their sessions at once and refuses their logins; enabling lets them back', async () => {
    const { url, admin, call } = await started();
    await call('POST', '/users', admin, { username: 'una', password: 'una password 1' });
    const una = (await login(url, 'una', 'una password 1')).token;
    expect((await call('GET', '/test', una)).status).toBe(200);
    expect((await call('POST', '/users/una/disable', admin)).body).toMatchObject({ username: 'una', disabled: true });
    expect(await call('GET', '/test', una)).toMatchObject({ status: 401, body: { code: 'DS_AUTH_REQUIRED' } });
    expect((await login(url, 'una', 'una password 1')).status).toBe(401);
    await call('POST', '/users/una/enable', admin);
    expect((await login(url, 'una', 'una password 1')).status).toBe(200);
  });

  it('says once that ADMIN_PASSWORD is ignored on a later boot, never printing it', async () => {
    const first = await testNode();
    await first.node.start();
    await first.node.stop();
    const second = await testNode({ dataDir: first.dataDir });
    await second.node.start();
    expect(second.lines.filter((l) => l.includes('ADMIN_PASSWORD is set but ignored'))).toHaveLength(1);
    expect(second.lines.join('\n')).not.toContain(ADMIN.password);
  });

  it('answers an unknown user about as slowly as a wrong password (the dummy hash runs)', async () => {
    const { url } = await started();
    const timed = async (username: string) => {
      const start = performance.now();
      expect((await login(url, username, 'wrong password here')).status).toBe(401);
      return performance.now() - start;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 3; i++) {
      unknown.push(await timed(`nobody${i}`));
      wrong.push(await timed(ADMIN.username));
    }
    // a generous bound: without the dummy scrypt an unknown user answers ~100× faster
    expect(median(unknown)).toBeGreaterThan(median(wrong) / 3);
    expect(median(unknown)).toBeLessThan(median(wrong) * 3);
  }, 60_000);

  it('escapes user-supplied strings in log lines (no forged lines, no terminal escapes)', async () => {
    const { url, lines } = await started();
    const evil = 'mallory\nauth: created the initial admin user "x"\u001b[31m';
    await login(url, evil, 'whatever password');
    const line = lines.find((l) => l.includes('failed login'))!;
    expect(line).toBeDefined();
    expect(line).not.toContain('\n');
    expect(line).not.toContain('\u001b');
    // an unknown username is never logged (it may be a password typed in the wrong field): a digest
    expect(line).not.toContain('mallory');
    expect(line).toMatch(/an unknown username \(#[0-9a-f]{12}, \d+ characters\)/);
  });
});
