/**
 * stack.transaction: all or nothing, reads see the transaction's writes, refusals throw inside,
 * keys held for the transaction's lifetime, optimistic conflicts re-run the function.
 */
import { describe, expect, it } from 'vitest';
import { Class, getApi } from '../../../index.js';
import { addTrigger, registerTriggerHandler } from '../../../plugins/triggers/index.js';
import { transactionsPlugin } from '../../../plugins/transactions/index.js';
import { memoryStack, refusal } from '../../helpers/stack.js';

async function setup() {
  const stack = await memoryStack();
  await Class.create(stack, 'Account', 'class', '', {
    owner: { type: 'string', primaryKey: true },
    balance: { type: 'integer', min: 0, mandatory: true },
  });
  const a = await stack.createDoc({ '~class': 'Account', owner: 'ann', balance: 100 });
  const b = await stack.createDoc({ '~class': 'Account', owner: 'bob', balance: 0 });
  return { stack, a, b };
}

describe('stack.transaction', () => {
  it('binds class objects to the transaction: getByPrimaryKeys and addOrUpdateCard see its writes, nothing stored before commit', async () => {
    const { stack, a } = await setup();
    const seen: unknown[] = [];
    const failed = await refusal(
      stack.transaction(async (tx) => {
        const accounts = await tx.getClass('Account');
        const dan = await accounts.createDoc({ owner: 'dan', balance: 1 });
        expect((await accounts.getByPrimaryKeys({ owner: 'dan' }))?._id).toBe(dan._id);
        const again = await accounts.addOrUpdateCard({ owner: 'dan', balance: 9 }); // updates the one this tx made
        expect(again._id).toBe(dan._id);
        await accounts.addOrUpdateCard({ owner: 'ann', balance: 1 }); // updates the stored one
        seen.push((await accounts.getCards({ balance: { $lt: 10 } })).map((d) => d.owner).sort());
        expect(await stack.getDocument(dan._id)).toBeNull(); // outside the transaction: nothing yet
        throw new Error('changed my mind');
      }),
    );
    expect(failed.message).toBe('changed my mind');
    expect(seen).toEqual([['ann', 'bob', 'dan']]);
    expect((await stack.getDocument(a._id))?.balance).toBe(100);
    expect(await (await stack.getClass('Account')).getByPrimaryKeys({ owner: 'dan' })).toBeNull();
    await stack.transaction(async (tx) => {
      await (await tx.getClass('Account')).addOrUpdateCard({ owner: 'dan', balance: 2 });
    });
    expect((await (await stack.getClass('Account')).getByPrimaryKeys({ owner: 'dan' }))?.balance).toBe(2);
  });

  it('commits every write when the function returns, and returns its value', async () => {
    const { stack, a, b } = await setup();
    const result = await stack.transaction(async (tx) => {
      const from = (await tx.getDocument(a._id))!;
      await tx.updateDoc(a._id, { balance: (from.balance as number) - 30 });
      await tx.updateDoc(b._id, { balance: 30 });
      const created = await tx.createDoc({ '~class': 'Account', owner: 'cy', balance: 5 });
      // reads inside see the transaction's own writes
      expect((await tx.getDocument(a._id))?.balance).toBe(70);
      expect((await tx.findDocuments('Account', { balance: { $gt: 10 } })).map((d) => d.owner)).toEqual(expect.arrayContaining(['ann', 'bob']));
      expect(await tx.findDocuments('Account')).toHaveLength(3);
      return created._id;
    });
    expect((await stack.getDocument(a._id))?.balance).toBe(70);
    expect((await stack.getDocument(b._id))?.balance).toBe(30);
    const cy = await stack.getDocument(result);
    expect(cy?.['~tx']).toMatchObject({ id: expect.any(String), size: 3, by: { Account: 3 } });
    expect((await stack.getDocument(a._id))?.['~tx']).toEqual(cy?.['~tx']);
  });

  it('stores nothing and rethrows when the function throws', async () => {
    const { stack, a } = await setup();
    const err = await refusal(
      stack.transaction(async (tx) => {
        await tx.updateDoc(a._id, { balance: 1 });
        await tx.createDoc({ '~class': 'Account', owner: 'dan', balance: 1 });
        throw new Error('changed my mind');
      }),
    );
    expect(err.message).toBe('changed my mind');
    expect((await stack.getDocument(a._id))?.balance).toBe(100);
    expect(await stack.findDocuments('Account')).toHaveLength(2);
    // the key claimed inside was given back
    await stack.createDoc({ '~class': 'Account', owner: 'dan', balance: 1 });
  });

  it('refuses a write inside, through the pipeline, when it is made', async () => {
    const { stack, a } = await setup();
    const codes: string[] = [];
    await stack.transaction(async (tx) => {
      codes.push((await refusal(tx.updateDoc(a._id, { balance: -5 }))).code!);
      codes.push((await refusal(tx.createDoc({ '~class': 'Account', owner: 'bob', balance: 1 }))).code!);
      codes.push((await refusal(tx.createDoc({ '~class': 'Account', balance: 1, extra: true }))).code!);
      codes.push((await refusal(tx.updateDoc('Account-missing', { balance: 1 }))).code!);
      await tx.deleteDocument(a._id);
      codes.push((await refusal(tx.updateDoc(a._id, { balance: 1 }))).code!);
    });
    expect(codes).toEqual(['DS_VALIDATION_RANGE', 'DS_UNIQUE_VIOLATION', 'DS_VALIDATION_UNKNOWN_ATTRIBUTE', 'DS_DOC_NOT_FOUND', 'DS_DOC_NOT_FOUND']);
    expect(await stack.getDocument(a._id)).toBeNull();
  });

  it('holds a key claimed inside for its lifetime: a concurrent writer is refused', async () => {
    const { stack } = await setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const running = stack.transaction(async (tx) => {
      await tx.createDoc({ '~class': 'Account', owner: 'eve', balance: 1 });
      await gate;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect((await refusal(stack.createDoc({ '~class': 'Account', owner: 'eve', balance: 2 }))).code).toBe('DS_UNIQUE_VIOLATION');
    release();
    await running;
    expect(await stack.findDocuments('Account', { owner: 'eve' })).toHaveLength(1);
  });

  it('re-runs the function when a document it read changed before commit, then gives up with DS_TX_CONFLICT', async () => {
    const { stack, a, b } = await setup();
    let runs = 0;
    await stack.transaction(async (tx) => {
      runs++;
      const from = (await tx.getDocument(a._id))!;
      if (runs === 1) await stack.updateDoc(a._id, { balance: 50 }); // another writer, mid-transaction
      await tx.updateDoc(b._id, { balance: from.balance });
    });
    expect(runs).toBe(2);
    expect((await stack.getDocument(b._id))?.balance).toBe(50);

    let attempts = 0;
    const err = await refusal(
      stack.transaction(
        async (tx) => {
          attempts++;
          await tx.updateDoc(a._id, { balance: 1 });
          await stack.updateDoc(a._id, { balance: 2 + attempts }); // a written document changed too
        },
        { retries: 2 },
      ),
    );
    expect(err.code).toBe('DS_TX_CONFLICT');
    expect(attempts).toBe(3);
    expect((await stack.getDocument(a._id))?.balance).toBe(5);
  });

  it('re-runs the function when a document it read and then wrote changed in between (no lost update)', async () => {
    const { stack, a } = await setup();
    let runs = 0;
    await stack.transaction(async (tx) => {
      runs++;
      const read = (await tx.getDocument(a._id))!;
      if (runs === 1) await stack.updateDoc(a._id, { balance: 10 }); // another writer, between read and write
      await tx.updateDoc(a._id, { balance: (read.balance as number) + 1 });
    });
    expect(runs).toBe(2);
    expect((await stack.getDocument(a._id))?.balance).toBe(11);

    // with no retry left, nothing of the transaction is stored and the other writer's value stays
    const err = await refusal(
      stack.transaction(
        async (tx) => {
          const read = (await tx.getDocument(a._id))!;
          await stack.updateDoc(a._id, { balance: 20 });
          await tx.updateDoc(a._id, { balance: (read.balance as number) + 1 });
          await tx.createDoc({ '~class': 'Account', owner: 'cid', balance: 1 });
        },
        { retries: 0 },
      ),
    );
    expect(err.code).toBe('DS_TX_CONFLICT');
    expect((await stack.getDocument(a._id))?.balance).toBe(20);
    expect(await stack.findDocuments('Account', { owner: 'cid' })).toEqual([]);
  });

  it('checks the reads inside the write lock: a writer during its validation at commit is caught', async () => {
    const { stack, a, b } = await setup();
    let interleave = true;
    // a validate tap of the commit's own pipeline call: runs before the store's write lock is taken
    stack.hooks.validate.tapPromise('test.interleave', async (_draft, ctx) => {
      if (ctx.dryRun || ctx.transaction === undefined || !interleave) return;
      interleave = false;
      await stack.updateDoc(a._id, { balance: 50 });
    });
    let runs = 0;
    await stack.transaction(async (tx) => {
      runs++;
      const from = (await tx.getDocument(a._id))!;
      await tx.updateDoc(b._id, { balance: from.balance });
    });
    expect(runs).toBe(2);
    expect((await stack.getDocument(b._id))?.balance).toBe(50);
  });

  it('runs after-triggers once, after commit', async () => {
    const { stack } = await setup();
    const seen: string[] = [];
    registerTriggerHandler(stack, 'test.seen', (doc) => void seen.push(doc.owner as string));
    await addTrigger(await stack.getClass('Account'), { name: 'seen', when: 'after', on: ['create', 'update'], handler: 'test.seen' });
    await stack.transaction(async (tx) => {
      const doc = await tx.createDoc({ '~class': 'Account', owner: 'fay', balance: 1 });
      await tx.updateDoc(doc._id, { balance: 2 });
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['fay']);
  });

  it('refuses a transaction object used after the end, and bad options', async () => {
    const { stack } = await setup();
    let kept: { getDocument(id: string): Promise<unknown> } | undefined;
    await stack.transaction(async (tx) => void (kept = tx));
    expect((await refusal(kept!.getDocument('x'))).code).toBe('DS_TX_CLOSED');
    expect((await refusal(stack.transaction(async () => 1, { retries: -1 }))).code).toBe('DS_TX_INVALID');
    expect(getApi(stack, transactionsPlugin)?.recovery).toEqual({ released: 0 });
  });
});
