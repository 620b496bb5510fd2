/**
 * Server-only credentials: set by an admin route, sealed (AES-256-GCM under a key derived from the
 * node's own key) in the leveldb store, readable by server code through the stack's container
 * (a job handler here), and never found in the store's files, the node's log lines, or the
 * answer of any route — replication included.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../index.js';
import { registerJobHandler } from '../../plugins/jobs/index.js';
import type { ServerStack } from '../../plugins.config.js';
import { createUser } from '../../server/auth/index.js';
import { SECRETS, type SecretReader } from '../../server/node.js';
import { login, testNode } from './node-helpers.js';

const SECRET = `sk_live_${'s3cr3t'.repeat(4)}_${Date.now()}`;

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}
async function storeHolds(dir: string, text: string): Promise<boolean> {
  for (const file of await filesUnder(dir)) if ((await readFile(file)).includes(Buffer.from(text))) return true;
  return false;
}

function useSecretJob(stack: ClientStack) {
  registerJobHandler(stack, 'call-crm', async ({ stack: s }) => {
    const key = await s.container.resolve<SecretReader>(SECRETS).get('crm-key');
    // what a real job would do is call out with it; never return or store it
    return { matches: key === SECRET, length: key?.length ?? 0 };
  });
}

describe('server-only credentials', () => {
  it('are sealed at rest, readable by server jobs through the container, and never answered, logged or replicated', async () => {
    const { node, lines, dataDir } = await testNode();
    const { url } = await node.start();
    const stack = node.stack() as ServerStack;
    await createUser(stack, 'sam', 'sam password for tests');
    const admin = (await login(url)).token;
    const user = (await login(url, 'sam', 'sam password for tests')).token;
    const outputs: string[] = [];
    const call = async (method: string, path: string, body?: unknown, token = admin) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const text = await res.text();
      outputs.push(`${method} ${path} ${res.status} ${JSON.stringify(Object.fromEntries(res.headers as unknown as Iterable<[string, string]>))} ${text}`);
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    expect(await call('PUT', '/api/private/secrets/crm-key', { value: SECRET })).toMatchObject({ status: 200, body: { name: 'crm-key' } });
    expect((await call('PUT', '/api/private/secrets/crm-key', { value: SECRET }, user)).body.code).toBe('DS_AUTHZ_ADMIN');
    expect((await call('PUT', '/api/private/secrets/bad name', { value: 'x' })).body).toMatchObject({ code: 'DS_SECRET_INVALID', path: 'name' });
    expect((await call('PUT', '/api/private/secrets/~mine', { value: 'x' })).body.code).toBe('DS_SECRET_INVALID');
    expect((await call('PUT', '/api/private/secrets/empty', { value: '' })).body).toMatchObject({ code: 'DS_SECRET_INVALID', path: 'value' });
    expect((await call('DELETE', '/api/private/secrets/none')).body.code).toBe('DS_SECRET_NOT_FOUND');
    expect((await call('GET', '/api/private/secrets')).body.secrets).toEqual([expect.objectContaining({ name: 'crm-key' })]);

    // a server job reads it through the container
    useSecretJob(stack);
    await stack.jobs.define({ name: 'sync-crm', handler: 'call-crm' });
    const run = await stack.jobs.run('sync-crm');
    expect(run).toMatchObject({ status: 'SUCCESS', result: { matches: true, length: SECRET.length } });

    // every route a caller can reach, as admin and as user
    await Class.create(stack, 'Lead', 'class', '', { name: { type: 'string' } });
    const marker = `plain-marker-${Date.now()}`;
    await call('POST', '/api/private/docs/Lead', { name: marker });
    for (const token of [admin, user]) {
      for (const path of [
        '/api/private/secrets', '/api/private/webhooks', '/api/private/webhooks/deliveries', '/api/openapi.json', '/api/private/docs/Lead',
        '/api/private/sessions', '/api/private/users', '/api/private/patches', '/api/private/test',
        '/db/docstack/_all_docs?include_docs=true', '/db/docstack/_changes?include_docs=true&style=all_docs', '/db/docstack/~Secret-crm-key',
        '/api/private/docs/~Secret', '/api/private/docs/~Secret/~Secret-crm-key',
      ]) await call('GET', path, undefined, token);
      await call('POST', '/api/private/sql', { statement: 'SELECT * FROM [~Secret]' }, token);
      await call('POST', '/db/docstack/_bulk_get', { docs: [{ id: '~Secret-crm-key' }] }, token);
    }
    expect(outputs.join('\n')).toContain(marker); // the outputs were read
    expect(outputs.join('\n')).not.toContain(SECRET);
    expect(outputs.join('\n')).not.toContain(SECRET.slice(8, 24));

    // the node's log lines
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.join('\n')).not.toContain(SECRET);

    // the store's files, once closed (the marker shows the grep reads what leveldb writes)
    await node.stop();
    expect(await storeHolds(dataDir, marker)).toBe(true);
    expect(await storeHolds(dataDir, '~Secret-crm-key')).toBe(true);
    expect(await storeHolds(dataDir, SECRET)).toBe(false);
    expect(await storeHolds(dataDir, SECRET.slice(8, 24))).toBe(false);

    // after a restart the node opens it again with its key
    const again = await testNode({ dataDir });
    await again.node.start();
    expect(await again.node.stack().container.resolve<SecretReader>(SECRETS).get('crm-key')).toBe(SECRET);
  }, 60_000);
});
