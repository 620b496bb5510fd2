import { describe, expect, it } from 'vitest';
import { Attribute, Class, createStack } from '../../../index.js';
import { browserWithSql } from '../../../plugins.config.js';
import { durableAdapter, tempDir, testAdapter, track, uniqueName } from '../../helpers/stack.js';
import { shop, sqlStack } from './fixture.js';

type Plan = { table: string; alias: string; path: string; selector: Record<string, unknown>; estimated: number | null; read: number };
const explain = (stack: Awaited<ReturnType<typeof sqlStack>>, statement: string, params?: unknown[]) => stack.sql<Plan[]>(`EXPLAIN ${statement}`, params);

describe('sql: reading only what is needed', () => {
  it('EXPLAIN shows the access path, the selector pushed down, and the documents estimated and read', async () => {
    const stack = await sqlStack();
    const ids = await shop(stack);
    expect(await explain(stack, 'SELECT name FROM Customer WHERE age >= 30 AND age < 40')).toEqual([
      { table: 'Customer', alias: 'Customer', path: 'index:age', selector: { age: { $gte: 30, $lt: 40 }, active: true }, estimated: 2, read: 2 },
    ]);
    expect(await explain(stack, "SELECT name FROM Customer WHERE code = 'B'")).toMatchObject([{ path: 'primary-key', selector: { code: 'B', active: true }, estimated: 1, read: 1 }]);
    expect(await explain(stack, 'SELECT name FROM Customer WHERE _id IN (?, ?)', [ids.ann, ids.cy])).toMatchObject([{ path: 'id-range', estimated: 2, read: 2 }]);
    expect(await explain(stack, "SELECT name FROM Customer WHERE _id LIKE 'customer-%'")).toMatchObject([{ path: 'id-range', read: 4 }]);
    expect(await explain(stack, "SELECT name FROM Customer WHERE city = 'Paris'")).toMatchObject([{ path: 'scan', selector: { active: true }, estimated: 4, read: 4 }]);
    expect(await explain(stack, 'SELECT name FROM Customer WHERE age = 30 OR age = 40')).toMatchObject([{ path: 'index:age', selector: { age: { $in: [30, 40] } }, read: 2 }]);
    // an OR over two columns cannot narrow one: the scan reads everything, alasql filters
    expect(await explain(stack, "SELECT name FROM Customer WHERE age = 30 OR city = 'Lyon'")).toMatchObject([{ path: 'scan', read: 4 }]);
    // a value of another kind never narrows (alasql compares with ===)
    expect(await explain(stack, "SELECT name FROM Customer WHERE age = '30'")).toMatchObject([{ path: 'scan' }]);
  });

  it('a join reads the second table through the values the first one holds', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const plan = await explain(stack, 'SELECT c.name, o.amount FROM "Order" o JOIN Customer c ON o.customer = c._id WHERE c.age > 32');
    expect(plan).toEqual([
      { table: 'Order', alias: 'o', path: 'index:customer', selector: { customer: { $in: '2 values of c._id' }, active: true }, estimated: 1, read: 1 },
      { table: 'Customer', alias: 'c', path: 'index:age', selector: { age: { $gt: 32 }, active: true }, estimated: 2, read: 2 },
    ]);
    expect(await stack.sql('SELECT c.name, o.amount FROM "Order" o JOIN Customer c ON o.customer = c._id WHERE c.age > 32')).toEqual([{ name: 'Dee', amount: 50 }]);
  });

  it('findDocuments reads through the same indexes', async () => {
    const stack = await sqlStack();
    const ids = await shop(stack);
    const reads: string[] = [];
    stack.hooks.findCandidates.tap({ name: 'spy', stage: 100 }, () => void reads.push('scan'));
    const found = await stack.findDocuments('Customer', { age: { $gte: 30, $lte: 35 } });
    expect(found.map((d) => d.name)).toEqual(expect.arrayContaining(['Ann', 'Dee']));
    expect(found).toHaveLength(2);
    expect(reads).toEqual([]); // the sql tap answered: nobody else was asked
    expect((await stack.findDocuments('Customer', { _id: { $in: [ids.bob] }, age: { $gt: 1 } })).map((d) => d.name)).toEqual(['Bob']);
    expect(reads).toEqual([]);
    // the primary key is not a findDocuments path (a scan answers it, as without the plugin)
    expect((await stack.findDocuments('Customer', { code: 'C' })).map((d) => d.name)).toEqual(['Cy']);
    expect(await stack.findDocuments('Customer', { city: 'Paris' }, { fields: ['name'] })).toHaveLength(2);
    expect(reads).toEqual(['scan', 'scan']);
  });

  it('is exact after updates, deletes and documents from a peer (stack.ingest)', async () => {
    const stack = await sqlStack();
    const ids = await shop(stack);
    const ages = async () => (await stack.sql<{ code: string }[]>('SELECT code FROM Customer WHERE age >= 30 ORDER BY code')).map((r) => r.code).join('');
    expect(await ages()).toBe('ACD');
    await stack.updateDoc(ids.bob, { age: 31 });
    await stack.updateDoc(ids.ann, { age: 29 });
    expect(await ages()).toBe('BCD');
    await stack.deleteDocument(ids.cy);
    expect(await ages()).toBe('BD');
    expect(await stack.sql('SELECT code FROM Customer WHERE age >= 30 AND active = false')).toEqual([{ code: 'C' }]);
    const dee = (await stack.getDocument(ids.dee))!;
    const [line] = await stack.ingest([{ ...dee, age: 99, _rev: `${Number.parseInt(dee._rev!, 10) + 1}-${'f'.repeat(32)}`, _revisions: undefined }], { newEdits: false });
    expect(line).toMatchObject({ ok: true });
    expect(await stack.sql('SELECT code, age FROM Customer WHERE age > 90')).toEqual([{ code: 'D', age: 99 }]);
    // a peer's new document
    await stack.ingest([{ _id: 'Customer-peer1', _rev: `1-${'a'.repeat(32)}`, '~class': 'Customer', code: 'P', name: 'Pat', age: 33, active: true, '~createTimestamp': new Date().toISOString() }]);
    expect(await ages()).toBe('BDP');
    // a purge (a real delete) is seen through the changes feed
    await stack.purgeDocuments(['Customer-peer1']);
    expect(await ages()).toBe('BD');
  });

  it('is exact for writes by another instance of the same store', async () => {
    const name = uniqueName('sql-shared');
    const a = track(await createStack({ name, adapter: testAdapter, plugins: browserWithSql }));
    await shop(a);
    const b = track(await createStack({ name, adapter: testAdapter, plugins: browserWithSql }));
    expect(await a.sql('SELECT COUNT(*) AS n FROM Customer WHERE age > 25')).toEqual([{ n: 3 }]);
    await b.createDoc({ '~class': 'Customer', code: 'E', name: 'Eve', age: 60 });
    expect(await a.sql('SELECT name FROM Customer WHERE age > 50')).toEqual([{ name: 'Eve' }]);
  });

  it('survives a reopen (leveldb): the saved index is loaded, then caught up', async () => {
    const dir = await tempDir();
    const name = uniqueName('sql-disk');
    const first = await createStack({ name, adapter: durableAdapter, dataDir: dir, plugins: browserWithSql });
    const ids = await shop(first);
    expect(await first.sql('SELECT COUNT(*) AS n FROM Customer WHERE age >= 30')).toEqual([{ n: 3 }]);
    await first.updateDoc(ids.bob, { age: 50 });
    await first.close(); // saves the index
    const events: unknown[] = [];
    const second = track(await createStack({ name, adapter: durableAdapter, dataDir: dir, plugins: browserWithSql }));
    second.on('sql:index', (e) => events.push(e));
    expect(await second.sql('SELECT code FROM Customer WHERE age >= 30 ORDER BY code')).toEqual([{ code: 'A' }, { code: 'B' }, { code: 'C' }, { code: 'D' }]);
    expect(events).toEqual([]); // loaded, not rebuilt
    await second.updateDoc(ids.ann, { age: 10 });
    expect(await second.sql('SELECT code FROM Customer WHERE age < 15')).toEqual([{ code: 'A' }]);
  });

  it('is built when an indexed attribute is added to a class with documents, with progress events', async () => {
    const stack = await sqlStack();
    await shop(stack);
    const customer = await Class.fetch(stack, 'Customer');
    await Attribute.create(customer, 'rank', 'integer', '', { indexed: true, defaultValue: 7 });
    const events: { phase: string; done: number; attributes: string[] }[] = [];
    stack.on('sql:index', (e) => events.push(e));
    expect(await explain(stack, 'SELECT name FROM Customer WHERE rank = 7')).toMatchObject([{ path: 'index:rank', estimated: 4, read: 4 }]);
    expect(events.at(0)).toMatchObject({ phase: 'building', done: 0, attributes: ['age', 'rank'] });
    expect(events.at(-1)).toMatchObject({ phase: 'built', done: 4 });
    await getApiRebuild(stack);
    expect(events.filter((e) => e.phase === 'built')).toHaveLength(2);
  });

  it('`indexed` is refused on encrypted, object and list attributes, and needs the sql plugin', async () => {
    const stack = await sqlStack();
    const { expectRefused } = await import('../../helpers/stack.js');
    await expectRefused(Class.create(stack, 'Bad1', 'class', '', { secret: { type: 'string', encrypted: true, indexed: true } }), 'DS_ATTRIBUTE_CONFIG_INVALID');
    await expectRefused(Class.create(stack, 'Bad2', 'class', '', { blob: { type: 'object', indexed: true } }), 'DS_ATTRIBUTE_CONFIG_INVALID');
    await expectRefused(Class.create(stack, 'Bad3', 'class', '', { tags: { type: 'string', isArray: true, indexed: true } }), 'DS_ATTRIBUTE_CONFIG_INVALID');
    await expectRefused(Class.create(stack, 'Bad4', 'class', '', { n: { type: 'integer', indexed: 'yes' } }), 'DS_ATTRIBUTE_CONFIG_INVALID');
    const { memoryStack } = await import('../../helpers/stack.js');
    const plain = await memoryStack();
    await expectRefused(Class.create(plain, 'NoSql', 'class', '', { n: { type: 'integer', indexed: true } }), 'DS_ATTRIBUTE_CONFIG_INVALID');
  });

  it('countDocuments counts a selector its indexes answer whole from the index, reading no document', async () => {
    const stack = await sqlStack();
    await Class.create(stack, 'Part', 'class', '', { size: { type: 'integer', indexed: true }, color: { type: 'string', indexed: true }, note: { type: 'string' } });
    const colors = ['red', 'green', 'blue'];
    const made = await stack.createDocs(Array.from({ length: 60 }, (_, i) => ({ '~class': 'Part', size: i % 10, color: colors[i % 3], note: i % 2 ? 'odd' : 'even' })));
    await stack.deleteDocument(made[0]._id); // soft-deleted: no longer counted
    await stack.updateDoc(made[1]._id, { size: 42 });
    // a count that reads documents asks findCandidates for them first (an index, else the class scan)
    let reads = 0;
    stack.hooks.findCandidates.tapPromise({ name: 'test-spy', stage: -1000 }, async () => {
      reads++;
      return undefined;
    });
    const exact: Record<string, unknown>[] = [
      { size: 3 },
      { size: { $gte: 2, $lt: 5 } },
      { size: { $in: [1, 42, 99] } },
      { $and: [{ size: { $gt: 5 } }, { size: { $lte: 7 } }] },
      { size: { $lte: 4 }, color: 'red' },
      { color: { $in: [] } },
    ];
    for (const selector of exact) {
      const expected = (await stack.findDocuments('Part', selector)).length;
      reads = 0;
      expect({ selector, count: await stack.countDocuments('Part', selector) }).toEqual({ selector, count: expected });
      expect({ selector, reads }).toEqual({ selector, reads: 0 });
    }
    expect(await stack.countDocuments('Part', { size: 0 })).toBe(5); // 6 of size 0, one soft-deleted
    expect(await stack.countDocuments('Part', { size: 42 })).toBe(1);
    // not said exactly by an index: counted by matching (documents read), still exact
    const matched: Record<string, unknown>[] = [{ note: 'odd' }, { size: { $ne: 3 } }, { size: '3' }, { size: 3, note: 'odd' }, { $or: [{ size: 1 }, { size: 2 }] }];
    for (const selector of matched) {
      const expected = (await stack.findDocuments('Part', selector)).length;
      reads = 0;
      expect({ selector, count: await stack.countDocuments('Part', selector) }).toEqual({ selector, count: expected });
      expect(reads).toBeGreaterThan(0);
    }
  });
});

async function getApiRebuild(stack: Awaited<ReturnType<typeof sqlStack>>): Promise<void> {
  const { getApi } = await import('../../../index.js');
  const { sqlPlugin } = await import('../../../plugins/sql/index.js');
  await getApi(stack, sqlPlugin)!.rebuildIndex('Customer');
}
