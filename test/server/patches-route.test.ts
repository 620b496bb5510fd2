import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getApi } from '../../index.js';
import { patchesPlugin } from '../../plugins/patches/index.js';
import { createUser } from '../../server/auth/index.js';
import { ADMIN, call, login, startHarness, type Harness } from './auth-harness.js';

describe('GET /api/private/patches', () => {
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

  it('lists what the node applied and what is pending, for admins only', async () => {
    const patches = getApi(h.stack(), patchesPlugin)!;
    await patches.apply({ target: 'crm', version: '1.0.0', changes: [{ kind: 'addClass', name: 'Lead' }] });
    const answer = await call(h, 'GET', '/api/private/patches', { token: admin });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ applied: [{ target: 'crm', version: '1.0.0', by: await patches.replica() }], pending: [] });
    expect(await call(h, 'GET', '/api/private/patches', { token: carol })).toMatchObject({ status: 403, body: { code: 'DS_AUTHZ_ADMIN' } });
    expect((await call(h, 'GET', '/api/private/patches')).status).toBe(401);
  });
});
