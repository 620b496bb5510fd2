import { describe, expect, expectTypeOf, it } from 'vitest';
import { Class, createStack, type Doc, type DocOf } from 'docstack';
import { browser } from 'docstack/presets';

/**
 * Typed documents are types only: the engine validates against the class, never against T.
 * The `@ts-expect-error` lines are the proof that a wrong field fails to compile — `tsc -p
 * tsconfig.json` (part of the test run) fails when one of them compiles; the runtime half checks
 * that the typed calls are the same calls.
 */
interface TypedAccount {
  owner: string;
  balance: number;
}

// the app's class map, as `docstack types` writes it (`interface DocstackClasses { … }`) and an
// app adds it; the class names are this file's own, so no other test's class is typed by it
interface GeneratedClasses {
  TypedInvoice: { number: string; total: number; paid?: boolean };
}
declare module 'docstack' {
  interface DocstackClasses extends GeneratedClasses {}
}

async function openStack() {
  const stack = await createStack({ name: `typed-${Math.random()}`, adapter: 'memory', plugins: browser });
  await Class.create(stack, 'TypedAccount', 'class', '', { owner: { type: 'string' }, balance: { type: 'integer' } });
  await Class.create(stack, 'TypedInvoice', 'class', '', { number: { type: 'string' }, total: { type: 'decimal' }, paid: { type: 'boolean' } });
  return stack;
}

describe('typed documents', () => {
  it('createDoc/getDocument/updateDoc/findDocuments<T> answer DocOf<T>; without T, Doc as before', async () => {
    const stack = await openStack();
    const ann = await stack.createDoc<TypedAccount>({ '~class': 'TypedAccount', owner: 'ann', balance: 100 });
    expectTypeOf(ann.balance).toEqualTypeOf<number>();
    expectTypeOf(ann._id).toEqualTypeOf<string>();
    const read = (await stack.getDocument<TypedAccount>(ann._id))!;
    const updated = await stack.updateDoc<TypedAccount>(ann._id, { balance: read.balance - 30 });
    expectTypeOf(updated).toEqualTypeOf<DocOf<TypedAccount>>();
    const found = await stack.findDocuments<TypedAccount>('TypedAccount', { balance: { $gte: 50 } });
    expectTypeOf(found).toEqualTypeOf<DocOf<TypedAccount>[]>();
    expect(found.map((a) => [a.owner, a.balance])).toEqual([['ann', 70]]);

    const untyped = await stack.createDoc({ '~class': 'TypedAccount', owner: 'bob', balance: 0 });
    expectTypeOf(untyped).toEqualTypeOf<DocOf>();
    expectTypeOf<DocOf>().toEqualTypeOf<Doc>();
    expectTypeOf(untyped.balance).toEqualTypeOf<unknown>();

    // @ts-expect-error a wrong attribute type does not compile
    await expect(stack.createDoc<TypedAccount>({ '~class': 'TypedAccount', owner: 'cy', balance: 'lots' })).rejects.toMatchObject({ code: 'DS_VALIDATION_TYPE', path: 'balance' });
    // @ts-expect-error a missing attribute of T does not compile
    await stack.createDoc<TypedAccount>({ '~class': 'TypedAccount', owner: 'dee' }).catch(() => undefined);
    // @ts-expect-error nor does a wrong type in the changes
    await stack.updateDoc<TypedAccount>(ann._id, { balance: '70' }).catch(() => undefined);
    await stack.close();
  });

  it('a class of the DocstackClasses map is typed by its name, untyped writes to it do not compile', async () => {
    const stack = await openStack();
    const invoice = await stack.createDoc({ '~class': 'TypedInvoice', number: 'A-1', total: 12.5 });
    expectTypeOf(invoice.total).toEqualTypeOf<number>();
    expectTypeOf(invoice.paid).toEqualTypeOf<boolean | undefined>();
    const invoices = await stack.findDocuments('TypedInvoice');
    expectTypeOf(invoices[0].number).toEqualTypeOf<string>();
    // a live query of a mapped class answers the same typed documents; with T, any class
    const live = stack.live('TypedInvoice');
    expectTypeOf((await live.ready)[0].total).toEqualTypeOf<number>();
    expect((await live.ready).map((i) => i.total)).toEqual([12.5]);
    live.close();
    const accounts = stack.live<TypedAccount>('TypedAccount');
    expectTypeOf<Awaited<typeof accounts.ready>[number]['balance']>().toEqualTypeOf<number>();
    expect(await accounts.ready).toEqual([]);
    accounts.close();
    expect(invoices.map((i) => i.number)).toEqual(['A-1']);
    // a class outside the map stays untyped
    const other = await stack.findDocuments('TypedAccount');
    expectTypeOf(other).toEqualTypeOf<Doc[]>();

    // @ts-expect-error a mapped class checks its attributes by name
    await stack.createDoc({ '~class': 'TypedInvoice', number: 'A-2', total: 'twelve' }).catch(() => undefined);
    // @ts-expect-error and its mandatory ones
    await stack.createDoc({ '~class': 'TypedInvoice', number: 'A-3' }).catch(() => undefined);
    await stack.close();
  });

  it("transactions and class objects take the same type parameter", async () => {
    const stack = await openStack();
    const ann = await stack.createDoc<TypedAccount>({ '~class': 'TypedAccount', owner: 'ann', balance: 100 });
    await stack.transaction(async (tx) => {
      const from = (await tx.getDocument<TypedAccount>(ann._id))!;
      expectTypeOf(from.balance).toEqualTypeOf<number>();
      await tx.updateDoc<TypedAccount>(ann._id, { balance: from.balance + 1 });
      // @ts-expect-error
      await tx.updateDoc<TypedAccount>(ann._id, { balance: true }).catch(() => undefined);
      const accounts = await tx.getClass('TypedAccount');
      const cards = await accounts.getCards<TypedAccount>();
      expectTypeOf(cards[0].owner).toEqualTypeOf<string>();
    });
    const accounts = await Class.fetch(stack, 'TypedAccount');
    const card = (await accounts.get<TypedAccount>(ann._id))!;
    expectTypeOf(card.balance).toEqualTypeOf<number>();
    expect(card.balance).toBe(101);
    // @ts-expect-error
    await accounts.addOrUpdateCard<TypedAccount>({ owner: 'ann', balance: [] }).catch(() => undefined);
    await stack.close();
  });
});
