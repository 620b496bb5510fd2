import { constants, generateKeyPairSync, publicEncrypt, randomBytes, scryptSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocstackError } from '../../index.js';
import { createUser, credentialOf, hashPassword, SESSION_CLASS, statusOf, USER_CLASS, verifyPassword } from '../../server/auth/index.js';
import { FailureLimiter } from '../../server/auth/rate-limit.js';
import { ADMIN, call, login, startHarness, type Harness } from './auth-harness.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('login, tokens and sessions', () => {
  let h: Harness;
  let first: Awaited<ReturnType<typeof login>>;
  let adminId: string;

  beforeAll(async () => {
    h = await startHarness();
    const logins: unknown[] = [];
    h.events.on('login', (e) => logins.push(e));
    first = await login(h, ADMIN.username, ADMIN.password);
    adminId = String((await h.stack().getDocument(String(first.body.sessionId)))?.userId);
    expect(logins).toEqual([{ username: ADMIN.username, sessionId: first.body.sessionId }]);
  });
  afterAll(() => h.close());

  it('logs in: session id and expiry, an httpOnly Strict Secure cookie, a stored session', async () => {
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['expiresAt', 'sessionId']);
    expect(Date.parse(String(first.body.expiresAt)) - Date.now()).toBeGreaterThan(3500_000);
    expect(first.setCookie).toMatch(/HttpOnly/i);
    expect(first.setCookie).toMatch(/Path=\//);
    expect(first.setCookie).toMatch(/SameSite=Strict/i);
    expect(first.setCookie).toMatch(/Secure/i);
    const session = await h.stack().getDocument(String(first.body.sessionId));
    expect(session).toMatchObject({ '~class': SESSION_CLASS, username: ADMIN.username, active: true });
    expect(await call(h, 'GET', '/api/private/test', { cookie: `jwtToken=${first.token}` })).toMatchObject({ status: 200, body: { ok: true } });
    expect((await call(h, 'GET', '/api/private/test', { token: first.token })).status).toBe(200);
    const user = await h.stack().getDocument(adminId);
    expect(String(user?.passwordHash)).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(h.logs.join('\n')).not.toContain(ADMIN.password);
  });

  it('answers a wrong password and an unknown user with the same 401', async () => {
    const wrong = await call(h, 'POST', '/login', { body: { username: ADMIN.username, password: 'nope' } });
    const unknown = await call(h, 'POST', '/login', { body: { username: 'nobody', password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect((await call(h, 'POST', '/login', { body: { username: 'x' } })).status).toBe(400);
  });

  it('refuses missing, tampered, expired, alg:none, HS256-with-the-public-key and foreign-issuer tokens', async () => {
    const sid = String(first.body.sessionId);
    const [header, payload, signature] = first.token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${b64url({ ...claims, exp: claims.exp + 3600 })}.${signature}`;
    const now = Math.floor(Date.now() / 1000);
    const sign = (alg: string, iss = h.ctx.config.jwtIssuer, exp = now + 600) =>
      new SignJWT({ sid }).setProtectedHeader({ alg }).setSubject(adminId).setIssuer(iss).setAudience(h.ctx.config.jwtAudience).setIssuedAt(now - 10).setExpirationTime(exp);
    const expired = await sign('RS256', undefined, now - 5).sign(h.ctx.keys().privateKey);
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims })}.`;
    const hs256 = await sign('HS256').sign(new TextEncoder().encode(h.keys.publicPem));
    const foreign = await sign('RS256', 'someone-else').sign(h.ctx.keys().privateKey);
    const valid = await sign('RS256').sign(h.ctx.keys().privateKey);
    for (const token of [undefined, 'garbage', tampered, expired, none, hs256, foreign]) {
      const answer = await call(h, 'GET', '/api/private/test', { token });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ error: 'unauthorized' });
    }
    expect((await call(h, 'GET', '/api/private/test', { token: valid })).status).toBe(200); // the control
  });

  it('lists the caller\'s sessions and revokes them at once (DELETE, logout)', async () => {
    const a = await login(h, ADMIN.username, ADMIN.password);
    const b = await login(h, ADMIN.username, ADMIN.password);
    const revoked: unknown[] = [];
    h.events.on('session:revoked', (e) => revoked.push(e));
    const list = await call(h, 'GET', '/api/private/sessions', { token: a.token });
    const sessions = list.body.sessions as { id: string; current: boolean }[];
    expect(sessions.map((s) => s.id)).toEqual(expect.arrayContaining([a.body.sessionId, b.body.sessionId]));
    expect(sessions.find((s) => s.current)?.id).toBe(a.body.sessionId);
    expect(JSON.stringify(list.body)).not.toMatch(/passwordHash|scrypt/);

    expect((await call(h, 'DELETE', `/api/private/sessions/${b.body.sessionId}`, { token: a.token })).status).toBe(200);
    expect((await call(h, 'GET', '/api/private/test', { token: b.token })).status).toBe(401);
    expect((await call(h, 'DELETE', `/api/private/sessions/${b.body.sessionId}`, { token: a.token })).status).toBe(404);

    const out = await call(h, 'POST', '/logout', { cookie: `jwtToken=${a.token}` });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/jwtToken=;.*Expires=Thu, 01 Jan 1970/);
    expect((await call(h, 'GET', '/api/private/test', { token: a.token })).status).toBe(401);
    expect(revoked).toEqual([
      { sessionId: b.body.sessionId, by: ADMIN.username },
      { sessionId: a.body.sessionId, by: ADMIN.username },
    ]);
    expect((await h.stack().getDocument(String(a.body.sessionId), { includeInactive: true }))?.active).toBe(false);
  });

  it('lets only the owner or an admin revoke a session (403 otherwise)', async () => {
    await createUser(h.stack(), 'bob', 'bob-password-1');
    const bob = await login(h, 'bob', 'bob-password-1');
    const admin = await login(h, ADMIN.username, ADMIN.password);
    expect((await call(h, 'DELETE', `/api/private/sessions/${admin.body.sessionId}`, { token: bob.token })).status).toBe(403);
    expect((await call(h, 'DELETE', '/api/private/sessions/~UserSession-unknown', { token: bob.token })).status).toBe(404);
    expect((await call(h, 'GET', '/api/private/test', { token: admin.token })).status).toBe(200);
    expect((await call(h, 'DELETE', `/api/private/sessions/${bob.body.sessionId}`, { token: admin.token })).status).toBe(200);
    expect((await call(h, 'GET', '/api/private/test', { token: bob.token })).status).toBe(401);
  });

  it('follows sessions written by another writer of the store (change feed; a miss reads once)', async () => {
    const stack = h.stack();
    const exp = Math.floor(Date.now() / 1000) + 600;
    // a session that names no credential (written before sessions were bound to one) is refused
    const unbound = await stack.createDoc({ '~class': SESSION_CLASS, userId: adminId, username: ADMIN.username, createdAt: new Date().toISOString(), expiresAt: new Date(exp * 1000).toISOString() });
    const unboundToken = await new SignJWT({ sid: unbound._id }).setProtectedHeader({ alg: 'RS256' }).setSubject(adminId).setIssuer(h.ctx.config.jwtIssuer).setAudience(h.ctx.config.jwtAudience).setIssuedAt().setExpirationTime(exp).sign(h.ctx.keys().privateKey);
    expect((await call(h, 'GET', '/api/private/test', { token: unboundToken })).status).toBe(401);
    const credential = credentialOf((await stack.getDocument(adminId))!);
    const session = await stack.createDoc({ '~class': SESSION_CLASS, userId: adminId, username: ADMIN.username, createdAt: new Date().toISOString(), expiresAt: new Date(exp * 1000).toISOString(), credential });
    const token = await new SignJWT({ sid: session._id }).setProtectedHeader({ alg: 'RS256' }).setSubject(adminId).setIssuer(h.ctx.config.jwtIssuer).setAudience(h.ctx.config.jwtAudience).setIssuedAt().setExpirationTime(exp).sign(h.ctx.keys().privateKey);
    expect((await call(h, 'GET', '/api/private/test', { token })).status).toBe(200);
    await stack.deleteDocument(session._id); // as another node instance would, not through this module
    let status = 200;
    for (let i = 0; i < 50 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await call(h, 'GET', '/api/private/test', { token })).status;
    }
    expect(status).toBe(401);
  });

  it('migrates a legacy RSA credential to a scrypt hash on its first successful login', async () => {
    const psw = generateKeyPairSync('rsa', { modulusLength: 2048 });
    h.ctx.config.pswPrivateKeyPem = psw.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const legacyPassword = publicEncrypt({ key: psw.publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING }, new Uint8Array(Buffer.from('old-secret'))).toString('base64');
    const user = await h.stack().createDoc({ '~class': USER_CLASS, username: 'legacy', legacyPassword, roles: [] });
    expect((await login(h, 'legacy', 'wrong')).status).toBe(401);
    expect((await h.stack().getDocument(user._id))?.legacyPassword).toBe(legacyPassword);
    expect((await login(h, 'legacy', 'old-secret')).status).toBe(200);
    const migrated = await h.stack().getDocument(user._id);
    expect(migrated?.legacyPassword).toBeUndefined();
    expect(String(migrated?.passwordHash)).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect((await login(h, 'legacy', 'old-secret')).status).toBe(200); // now by the hash
  });
});

describe('password hashes', () => {
  it('verifies a hash stored with the earlier parameters (N=2^17, r=8, p=1) and writes new ones with N=2^15, r=8, p=3', async () => {
    const salt = randomBytes(16);
    const key = scryptSync('earlier password', new Uint8Array(salt), 64, { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
    const earlier = ['scrypt', 2 ** 17, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    expect(await verifyPassword('earlier password', earlier)).toBe(true);
    expect(await verifyPassword('another password', earlier)).toBe(false);
    const now = await hashPassword('a new password');
    expect(now).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(await verifyPassword('a new password', now)).toBe(true);
  });
});

describe('cookie flags and failure limits', () => {
  it('relaxes the cookie in development only (SameSite=Lax, no Secure)', async () => {
    const h = await startHarness({ config: { development: true } });
    try {
      const answer = await login(h, ADMIN.username, ADMIN.password);
      expect(answer.status).toBe(200);
      expect(answer.setCookie).toMatch(/HttpOnly/i);
      expect(answer.setCookie).toMatch(/SameSite=Lax/i);
      expect(answer.setCookie).not.toMatch(/Secure/i);
    } finally {
      await h.close();
    }
  });

  it('answers 429 after repeated failures for a username, then for an address', async () => {
    const h = await startHarness({ auth: { maxFailuresPerUser: 3, maxFailuresPerAddress: 5 } });
    try {
      for (let i = 0; i < 3; i++) expect((await login(h, ADMIN.username, 'bad')).status).toBe(401);
      const limited = await login(h, ADMIN.username, ADMIN.password); // even the right password
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe('too_many_requests');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      for (const name of ['x1', 'x2']) expect((await login(h, name, 'bad')).status).toBe(401);
      expect((await login(h, 'x3', 'bad')).status).toBe(429); // the address is now over its limit
    } finally {
      await h.close();
    }
  });

  it('keeps a sliding window per key; reset clears a key', () => {
    const limiter = new FailureLimiter({ max: 2, windowMs: 1000 });
    limiter.fail('u', 0);
    limiter.fail('u', 500);
    expect(limiter.retryAfter('u', 600)).toBe(1);
    expect(limiter.retryAfter('u', 1001)).toBe(0); // the first failure left the window
    limiter.reset('u');
    expect(limiter.retryAfter('u', 700)).toBe(0);
  });
});

describe('statusOf', () => {
  it('maps engine codes and carried statuses', () => {
    expect(statusOf(new DocstackError('DS_CLASS_EXISTS', 'x'))).toBe(409);
    expect(statusOf(new DocstackError('DS_CLASS_NOT_FOUND', 'x'))).toBe(404);
    expect(statusOf(new DocstackError('DS_DOC_NOT_FOUND', 'x'))).toBe(404);
    expect(statusOf(new DocstackError('DS_VALIDATION_TYPE', 'x'))).toBe(400);
    expect(statusOf(new DocstackError('DS_ATTRIBUTE_TYPE_UNKNOWN', 'x'))).toBe(400);
    expect(statusOf(new DocstackError('DS_CLASS_INVALID', 'x'))).toBe(400);
    expect(statusOf(new DocstackError('DS_STACK_CLOSED', 'x'))).toBe(503);
    expect(statusOf(Object.assign(new Error('too large'), { status: 413 }))).toBe(413);
    expect(statusOf(new Error('boom'))).toBe(500);
  });
});
