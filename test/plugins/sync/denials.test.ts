/**
 * stack.denials() / stack.resolveDenial(id) with the sync plugin as their source (issue 28):
 * two devices claim one unique (non-key) value offline, the node keeps the first and refuses
 * the second with DS_UNIQUE_VIOLATION, and the second device lists it until the app fixes it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Class, createStack, type Denial } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { rawDb, track, uniqueName } from '../../helpers/stack.js';
import { nodeAndClient, TOKEN, type TestNode } from './harness.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

describe('stack.denials with the sync plugin', () => {
  it('a unique value claimed offline on two devices: the second is listed (code, class) until changed and resolved, then the next sync stores it', async () => {
    const { server, client: phone } = await nodeAndClient(nodes, 'denials-phone');
    await Class.create(server.stack, 'Member', 'class', '', { name: { type: 'string' }, email: { type: 'string', unique: true } });
    const laptop = track(await createStack({ name: uniqueName('denials-laptop'), adapter: 'memory', plugins: browser }));
    const sync = (device: typeof phone) => device.sync({ remote: server.url, auth: { token: TOKEN } });
    // both devices know the classes, then go offline (no authority connection: claims stay local)
    await sync(phone);
    await sync(laptop);

    const first = await phone.createDoc({ '~class': 'Member', name: 'Ann', email: 'ann@example.org' });
    const second = await laptop.createDoc({ '~class': 'Member', name: 'Anna', email: 'ann@example.org' });
    expect((await sync(phone)).ok).toBe(true);
    const refused = await sync(laptop);

    expect(refused.ok).toBe(false);
    expect(refused.refused).toEqual([expect.objectContaining({ id: second._id, code: 'DS_UNIQUE_VIOLATION', direction: 'push' })]);
    expect(await server.stack.getDocument(second._id)).toBeNull();
    const listed: Denial[] = await laptop.denials();
    expect(listed).toEqual([
      // a node's refusal line names no revision: `rev` is left out
      { id: second._id, className: 'Member', code: 'DS_UNIQUE_VIOLATION', reason: expect.any(String), direction: 'push', at: expect.any(String), source: 'sync' },
    ]);
    expect(await laptop.denials('Member')).toEqual(listed);
    expect(await laptop.denials('Item')).toEqual([]);
    expect(await phone.denials()).toEqual([]); // the first holder was accepted
    await expect(laptop.denials(42 as never)).rejects.toMatchObject({ code: 'DS_QUERY_INVALID' });

    // the app gives the document another value, then says the denial is dealt with
    await laptop.updateDoc(second._id, { email: 'anna@example.org' });
    expect(await laptop.resolveDenial(second._id)).toBe(true);
    expect(await laptop.denials()).toEqual([]);
    expect(await laptop.resolveDenial(second._id)).toBe(false); // resolved already: not an error
    expect(await laptop.resolveDenial('Member-unknown')).toBe(false);

    const next = await sync(laptop);
    expect(next).toMatchObject({ ok: true, refused: [] });
    expect(await server.stack.getDocument(second._id)).toMatchObject({ email: 'anna@example.org' });
    expect(await server.stack.getDocument(first._id)).toMatchObject({ email: 'ann@example.org' });
    expect(await laptop.denials()).toEqual([]);
  });

  it('a refusal on pull is listed with the class named by its id (it was never stored here)', async () => {
    const { server, client } = await nodeAndClient(nodes, 'denials-pull');
    await server.stack.createDoc({ '~class': 'Item', title: 'ok', n: 1 });
    // written around the node's pipeline: this client's validation refuses it, so it is never stored here
    await rawDb(server.stack).put({ _id: 'Item-raw', '~class': 'Item', title: 42 });
    await client.sync({ remote: server.url, auth: { token: TOKEN } });
    expect(await client.denials('Item')).toEqual([expect.objectContaining({ id: 'Item-raw', className: 'Item', code: 'DS_VALIDATION_TYPE', direction: 'pull', source: 'sync' })]);
    expect(await client.resolveDenial('Item-raw')).toBe(true);
    expect(await client.denials()).toEqual([]);
  });
});
