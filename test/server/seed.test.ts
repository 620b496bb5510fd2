import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, USER_CLASS } from '../../server/auth/index.js';
import { ADMIN, call, login, startHarness, type Harness } from './auth-harness.js';

describe('the seed\'s private routes', () => {
  let h: Harness;
  let admin: string;
  let carol: string;

  beforeAll(async () => {
    h = await startHarness();
    admin = (await login(h, ADMIN.username, ADMIN.password)).token;
    await createUser(h.stack(), 'carol', 'carol-password-1');
    carol = (await login(h, 'carol', 'carol-password-1')).token;
  });
  afterAll(() => h.close());

  it('answers the readiness probe for a session only', async () => {
    expect(await call(h, 'GET', '/api/private/test', { token: carol })).toMatchObject({ status: 200, body: { ok: true } });
    expect((await call(h, 'GET', '/api/private/test')).status).toBe(401);
  });

  it('creates a class (201), refuses it again (409) and refuses invalid models (400, nothing stored)', async () => {
    const body = { description: 'notes', schema: { slug: { type: 'string', primaryKey: true } }, options: {} };
    const created = await call(h, 'POST', '/api/private/create-class/Note', { token: admin, body });
    expect(created.status).toBe(201);
    // answered as stored: the specification's attribute shape, primary keys made mandatory
    expect(created.body).toMatchObject({ _id: 'Note', name: 'Note', description: 'notes', schema: { slug: { name: 'slug', type: 'string', config: { primaryKey: true, mandatory: true } } } });

    const again = await call(h, 'POST', '/api/private/create-class/Note', { token: admin, body });
    expect(again).toMatchObject({ status: 409, body: { error: 'conflict', code: 'DS_CLASS_EXISTS' } });

    const badType = await call(h, 'POST', '/api/private/create-class/Bad', { token: admin, body: { schema: { x: { type: 'nope' } } } });
    expect(badType).toMatchObject({ status: 400, body: { error: 'bad_request', code: 'DS_ATTRIBUTE_TYPE_UNKNOWN' } });
    expect(typeof badType.body.reason).toBe('string');
    const badName = await call(h, 'POST', '/api/private/create-class/9lives', { token: admin, body: {} });
    expect(badName).toMatchObject({ status: 400, body: { code: 'DS_CLASS_INVALID' } });
    const classes = await h.stack().listClasses();
    expect(classes).not.toContain('Bad');
    expect(classes).not.toContain('9lives');

    expect(await call(h, 'POST', '/api/private/create-class/~Mine', { token: admin, body: {} })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_INTERNAL' } });
    expect(await call(h, 'POST', '/api/private/create-class/Mine', { token: carol, body: {} })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_SCHEMA' } });
    expect(await h.stack().listClasses()).not.toContain('Mine');
  });

  it('takes attribute models in the specification\'s shape and in the flat one, and answers the stored shape', async () => {
    const spec = { name: 'Shelf', schema: { label: { name: 'label', type: 'string', config: { maxLength: 40, mandatory: true }, description: 'on the front' } } };
    const created = await call(h, 'POST', '/api/private/create-class/Shelf', { token: admin, body: spec });
    expect(created.status).toBe(201);
    expect(created.body.schema).toEqual(spec.schema);
    const flat = await call(h, 'PUT', '/api/private/create-attribute/Shelf', { token: admin, body: { name: 'slots', type: 'integer', min: 1, max: 12 } });
    expect(flat.status).toBe(200);
    expect((flat.body.schema as Record<string, unknown>).slots).toEqual({ name: 'slots', type: 'integer', config: { min: 1, max: 12 } });
    expect((await h.stack().requireClass('Shelf')).schema.slots).toEqual({ name: 'slots', type: 'integer', min: 1, max: 12 });
    // a key set twice (in config and beside it) is refused, nothing stored
    const twice = await call(h, 'PUT', '/api/private/create-attribute/Shelf', { token: admin, body: { name: 'depth', type: 'integer', max: 3, config: { max: 4 } } });
    expect(twice).toMatchObject({ status: 400, body: { code: 'DS_ATTRIBUTE_CONFIG_INVALID' } });
    expect((await h.stack().requireClass('Shelf')).schema.depth).toBeUndefined();
  });

  it('adds an attribute (200), refuses unknown classes (404), a duplicate (409, like create-class) and refused attributes (400 with the code)', async () => {
    const added = await call(h, 'PUT', '/api/private/create-attribute/Note', { token: admin, body: { name: 'text', type: 'string', config: { maxLength: 10 }, description: 'body' } });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ name: 'Note', schema: { slug: { type: 'string' }, text: { name: 'text', type: 'string', config: { maxLength: 10 }, description: 'body' } } });

    const missing = await call(h, 'PUT', '/api/private/create-attribute/Missing', { token: admin, body: { name: 'a', type: 'string' } });
    expect(missing).toMatchObject({ status: 404, body: { error: 'not_found', code: 'DS_CLASS_NOT_FOUND' } });

    const twice = await call(h, 'PUT', '/api/private/create-attribute/Note', { token: admin, body: { name: 'text', type: 'string' } });
    expect(twice).toMatchObject({ status: 409, body: { error: 'conflict', code: 'DS_ATTRIBUTE_EXISTS' } });
    const badType = await call(h, 'PUT', '/api/private/create-attribute/Note', { token: admin, body: { name: 'n', type: 'nope' } });
    expect(badType).toMatchObject({ status: 400, body: { code: 'DS_ATTRIBUTE_TYPE_UNKNOWN' } });
    const badConfig = await call(h, 'PUT', '/api/private/create-attribute/Note', { token: admin, body: { name: 'n', type: 'string', config: 'x' } });
    expect(badConfig).toMatchObject({ status: 400, body: { code: 'DS_ATTRIBUTE_CONFIG_INVALID' } });
    expect(Object.keys((await h.stack().requireClass('Note')).schema).sort()).toEqual(['slug', 'text']);
    expect((await call(h, 'PUT', `/api/private/create-attribute/${USER_CLASS}`, { token: admin, body: { name: 'x', type: 'string' } })).status).toBe(403);
  });

  it('clears only a connection this node hosts, for admins only', async () => {
    const name = h.ctx.config.stackName;
    expect((await call(h, 'GET', `/api/private/clear/${name}`, { token: carol })).status).toBe(403);
    for (const path of ['/clear/other', '/clear:other', '/clear/..%2F..%2Fetc', `/clear/${name}%2Fx`, '/clear/..']) {
      const answer = await call(h, 'GET', `/api/private${path}`, { token: admin });
      expect(answer.status, path).toBe(404);
    }
    await h.stack().createDoc({ '~class': 'Note', slug: 'a', text: 'kept?' });
    // the colon of `/clear:conn` is required: a path that merely starts with "clear" is no route
    for (const path of [`/clear${name}`, `/clear${name}x`, '/clearing']) {
      const answer = await call(h, 'GET', `/api/private${path}`, { token: admin });
      expect(answer.status, path).toBe(404);
    }
    expect(await h.stack().listClasses()).toContain('Note');
    const cleared = await call(h, 'GET', `/api/private/clear:${name}`, { token: admin });
    expect(cleared).toMatchObject({ status: 200, body: { ok: true } });
    expect(await h.stack().listClasses()).not.toContain('Note');
    admin = (await login(h, ADMIN.username, ADMIN.password)).token; // a reset signs everybody out
    carol = (await login(h, 'carol', 'carol-password-1')).token;
  });

  it('resets the database for admins only: data gone, users kept, sessions revoked', async () => {
    await call(h, 'POST', '/api/private/create-class/Temp', { token: admin, body: {} });
    expect(await h.stack().listClasses()).toContain('Temp');
    expect((await call(h, 'GET', '/api/private/reset', { token: carol })).status).toBe(403);
    expect(await h.stack().listClasses()).toContain('Temp');

    const reset = await call(h, 'GET', '/api/private/reset', { token: admin });
    expect(reset).toMatchObject({ status: 200, body: { ok: true } });
    const classes = await h.stack().listClasses();
    expect(classes).not.toContain('Temp');
    expect(classes).toContain(USER_CLASS);
    expect((await call(h, 'GET', '/api/private/test', { token: admin })).status).toBe(401);
    const again = await login(h, ADMIN.username, ADMIN.password);
    expect(again.status).toBe(200);
    expect((await call(h, 'GET', '/api/private/test', { token: again.token })).status).toBe(200);
  });
});
