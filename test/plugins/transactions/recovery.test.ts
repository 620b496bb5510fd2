/**
 * Recovery on open, from forged crash states: a commit whose documents were not all stored is
 * rolled back (an update restored, a create removed, its key given back); one whose documents all
 * were is rolled forward; claims of transactions that never committed are released.
 */
import { describe, expect, it } from 'vitest';
import { Class, createStack, getApi, type Doc } from '../../../index.js';
import { transactionsPlugin } from '../../../plugins/transactions/index.js';
import { browser } from '../../../plugins.config.js';
import { rawDb, track, uniqueName } from '../../helpers/stack.js';

const JOURNAL = '_local/~tx/journal';

async function crashed(writeNew: boolean) {
  const name = uniqueName('tx-recover');
  const stack = await createStack({ name, adapter: 'memory', plugins: browser });
  await Class.create(stack, 'Item', 'class', '', { k: { type: 'string', primaryKey: true }, v: { type: 'integer' } });
  const old = await stack.createDoc({ '~class': 'Item', k: 'old', v: 1 });
  const db = rawDb(stack);
  const tx = { id: 'T1', size: 2 };
  const claim = { keyId: '_local/~pk/Item/["new"]', docId: 'Item-new', className: 'Item', attributes: ['k'] };
  const orphan = { keyId: '_local/~pk/Item/["never"]', docId: 'Item-never', className: 'Item', attributes: ['k'] };
  await stack.primaryKeys.claim([claim, orphan]);
  await db.put({ _id: JOURNAL, held: { T1: [claim], T2: [orphan] }, commit: { tx: 'T1', ops: [{ id: old._id, prevRev: old._rev }, { id: 'Item-new', prevRev: null }], releases: [] } });
  // the crash: the update was stored, the create only when writeNew
  await db.put({ ...(await db.get(old._id)), v: 2, '~tx': tx });
  if (writeNew) await db.put({ _id: 'Item-new', '~class': 'Item', k: 'new', v: 3, active: true, '~createTimestamp': new Date().toISOString(), '~tx': tx });
  await stack.close();
  const reopened = track(await createStack({ name, adapter: 'memory', plugins: browser }));
  return { stack: reopened, old, recovery: getApi(reopened, transactionsPlugin)!.recovery };
}

describe('transaction recovery on open', () => {
  it('rolls back a commit whose documents were not all stored', async () => {
    const { stack, old, recovery } = await crashed(false);
    expect(recovery).toEqual({ commit: { tx: 'T1', outcome: 'rolled-back' }, released: 2 });
    const restored = (await stack.getDocument(old._id)) as Doc;
    expect(restored.v).toBe(1);
    expect(restored['~tx']).toBeUndefined();
    expect(await stack.primaryKeys.lookup('Item', ['new'])).toBeNull();
    expect(await stack.primaryKeys.lookup('Item', ['never'])).toBeNull();
    expect(await stack.primaryKeys.lookup('Item', ['old'])).toBe(old._id);
    expect((await rawDb(stack).get(JOURNAL)) as unknown).toMatchObject({ held: {}, commit: null });
  });

  it('rolls forward a commit whose documents were all stored', async () => {
    const { stack, old, recovery } = await crashed(true);
    expect(recovery).toEqual({ commit: { tx: 'T1', outcome: 'rolled-forward' }, released: 1 });
    expect((await stack.getDocument(old._id))?.v).toBe(2);
    expect((await stack.getDocument('Item-new'))?.v).toBe(3);
    expect(await stack.primaryKeys.lookup('Item', ['new'])).toBe('Item-new');
    expect(await stack.primaryKeys.lookup('Item', ['never'])).toBeNull();
  });
});
