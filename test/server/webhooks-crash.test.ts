/**
 * Nothing is lost when the node dies: a real node process (npm start's server/main.ts, leveldb
 * on disk) is killed with SIGKILL while its deliveries are still failing, then started again on
 * the same data folder; every delivery reaches the receiver afterwards, with the webhook-id it
 * was first sent with (at least once).
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/stack.js';
import { login, nodeProcess } from './node-helpers.js';
import { signingSecret, startReceiver, until } from './webhook-receiver.js';

const DOCS = 20;

function startNode(dataDir: string) {
  return nodeProcess(dataDir, {
    ENCRYPTION_PASSPHRASE: 'crash test passphrase',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_RETRY_MAX_MS: '300',
    WEBHOOK_MAX_ATTEMPTS: '1000',
    WEBHOOK_POLL_MS: '50',
  });
}

describe('webhooks across a crash', () => {
  it('delivers every pending delivery after a SIGKILL and a restart, each with its first webhook-id', async () => {
    const hook = await startReceiver(() => 503);
    const dataDir = await tempDir();
    const first = await startNode(dataDir);
    const [, url] = await first.until(/node ready at (http:\/\/\S+)/);
    const { token } = await login(url);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBeLessThan(300);
      return res.json() as Promise<any>;
    };
    await call('POST', '/api/private/create-class/Order', { schema: { ref: { type: 'string', mandatory: true } } });
    await call('POST', '/api/private/webhooks', { url: hook.url, classes: ['Order'], secret: signingSecret() });
    await call('POST', '/api/private/docs/Order/_bulk', { docs: Array.from({ length: DOCS }, (_, i) => ({ ref: `order-${i}` })) });
    const firstIds = () => new Set(hook.received.map((r) => String(r.headers['webhook-id'])));
    await until(() => firstIds().size === DOCS, 20_000, 'every delivery tried once');
    const triedBefore = firstIds();

    first.child.kill('SIGKILL');
    await first.exited;
    hook.answerWith(() => 200);
    const acked = () => new Set(hook.received.filter((r) => r.answered === 200).map((r) => String(r.headers['webhook-id'])));
    expect(acked().size).toBe(0);

    const second = await startNode(dataDir);
    await second.until(/node ready at/);
    await until(() => acked().size === DOCS, 20_000, 'every delivery after the restart');
    expect([...acked()].sort()).toEqual([...triedBefore].sort());
    const refs = hook.received.filter((r) => r.answered === 200).map((r) => JSON.parse(r.body).data.doc.ref);
    expect(new Set(refs).size).toBe(DOCS);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    await hook.close();
  }, 60_000);
});
