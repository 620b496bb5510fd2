import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Class, createStack, type ClientStack } from '../../index.js';
import { kernelStack, rawDb, refusal, track, uniqueName } from '../helpers/stack.js';

let stack: ClientStack;
let people: Class;
const active = async () => (await stack.findDocuments('Person')).length;

beforeEach(async () => {
  stack = await kernelStack();
  people = await Class.create(stack, 'Person', 'class', 'composite natural key', {
    country: { type: 'enum', values: ['FR', 'DE', 'IT'], primaryKey: true },
    nationalId: { type: 'string', primaryKey: true },
    name: { type: 'string' },
  });
});

describe('primary keys', () => {
  it('marks key attributes mandatory in the model (the validation plugin enforces it)', async () => {
    expect(people.model.schema.nationalId.mandatory).toBe(true);
    expect(people.model.schema.country.mandatory).toBe(true);
  });

  it('getByPrimaryKeys refuses params without the whole key, naming what is missing (DS_QUERY_INVALID)', async () => {
    await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '1', name: 'Ann' });
    const one = await refusal(people.getByPrimaryKeys({ country: 'FR' }));
    expect(one.code).toBe('DS_QUERY_INVALID');
    expect(one.path).toBe('nationalId');
    expect(one.message).toBe('getByPrimaryKeys needs nationalId.');
    const both = await refusal(people.getByPrimaryKeys({ country: null, name: 'Ann' } as never));
    expect(both.path).toBe('country,nationalId');
    expect((await people.getByPrimaryKeys({ country: 'FR', nationalId: '1' }))?.name).toBe('Ann');
  });

  it('refuses a duplicate key combination, naming the owner', async () => {
    const first = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '1', name: 'Ann' });
    await stack.createDoc({ '~class': 'Person', country: 'DE', nationalId: '1', name: 'Bob' }); // other combination
    const err = await refusal(stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '1', name: 'Eve' }));
    expect(err.code).toBe('DS_UNIQUE_VIOLATION');
    expect(err.path).toBe('country,nationalId');
    expect(err.details?.existingId).toBe(first._id);
    expect(await active()).toBe(2);
  });

  it('refuses duplicates inside one createDocs batch, storing none of it', async () => {
    const err = await refusal(
      stack.createDocs([
        { '~class': 'Person', country: 'IT', nationalId: '9' },
        { '~class': 'Person', country: 'IT', nationalId: '8' },
        { '~class': 'Person', country: 'IT', nationalId: '9' },
      ]),
    );
    expect(err.code).toBe('DS_UNIQUE_VIOLATION');
    expect(await active()).toBe(0);
    expect(await people.getByPrimaryKeys({ country: 'IT', nationalId: '8' })).toBeNull();
  });

  it('lets exactly one of two concurrent creates of the same key win', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '42', name: `racer ${i}` })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason.code).toBe('DS_UNIQUE_VIOLATION');
    expect(await active()).toBe(1);
  });

  it('keeps a key with its document: a re-key is refused, a delete frees the key, a create of it revives the document', async () => {
    const doc = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7' });
    expect((await refusal(stack.updateDoc(doc._id, { nationalId: '77' }))).code).toBe('DS_PRIMARY_KEY_IMMUTABLE');
    expect((await people.getByPrimaryKeys({ country: 'FR', nationalId: '7' }))?._id).toBe(doc._id);
    expect(await people.getByPrimaryKeys({ country: 'FR', nationalId: '77' })).toBeNull();
    await stack.deleteDocument(doc._id);
    expect(await people.getByPrimaryKeys({ country: 'FR', nationalId: '7' })).toBeNull();
    const again = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '7', name: 'second owner' });
    expect(again._id).toBe(doc._id);
    expect((await people.getByPrimaryKeys({ country: 'FR', nationalId: '7' }))?.name).toBe('second owner');
  });

  it('refuses an update onto a taken key (a key never changes) and keeps the stored document', async () => {
    await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '1' });
    const other = await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '2' });
    expect((await refusal(stack.updateDoc(other._id, { nationalId: '1' }))).code).toBe('DS_PRIMARY_KEY_IMMUTABLE');
    expect((await stack.getDocument(other._id))?.nationalId).toBe('2');
    expect((await people.getByPrimaryKeys({ country: 'FR', nationalId: '2' }))?._id).toBe(other._id);
  });

  it('looks keys up by index, never by scanning the class', async () => {
    await stack.createDocs(Array.from({ length: 50 }, (_, i) => ({ '~class': 'Person', country: 'DE', nationalId: String(i) })));
    const scan = vi.spyOn(rawDb(stack), 'allDocs'); // class scans are allDocs key ranges
    const found = await people.getByPrimaryKeys({ country: 'DE', nationalId: '33' });
    expect(found?.nationalId).toBe('33');
    expect(scan).not.toHaveBeenCalled();
    expect((await refusal(people.getByPrimaryKeys({ country: 'DE' }))).code).toBe('DS_QUERY_INVALID');
  });

  it('honours a claim whose document is not written yet (a concurrent writer mid-way)', async () => {
    // a writer's claim ahead of its document (a transaction's): counted, so natural-id creates read it
    await stack.primaryKeys.claim([{ keyId: '_local/~pk/Person/["IT","6"]', docId: 'Person-being-written', className: 'Person', attributes: ['country', 'nationalId'] }]);
    expect((await refusal(stack.createDoc({ '~class': 'Person', country: 'IT', nationalId: '6' }))).code).toBe('DS_UNIQUE_VIOLATION');
    expect(await active()).toBe(0);
  });

  it('takes over a stale key entry left by a crash between the two writes', async () => {
    const longAgo = Date.now() - 10 * 60_000;
    await stack.storage.put({ _id: '_local/~pk/Person/["IT","5"]', docId: 'Person-never-written', claimedAt: longAgo });
    const doc = await stack.createDoc({ '~class': 'Person', country: 'IT', nationalId: '5' });
    expect((await people.getByPrimaryKeys({ country: 'IT', nationalId: '5' }))?._id).toBe(doc._id);
  });

  it('uniqueCheck answers before a write', async () => {
    await stack.createDoc({ '~class': 'Person', country: 'FR', nationalId: '3' });
    await expect(people.uniqueCheck({ country: 'FR', nationalId: '4' })).resolves.toBe(true);
    expect((await refusal(people.uniqueCheck({ country: 'FR', nationalId: '3' }))).code).toBe('DS_UNIQUE_VIOLATION');
  });

  it('addOrUpdateCard updates the document with the same key, creates otherwise', async () => {
    const created = await people.addOrUpdateCard({ country: 'IT', nationalId: '10', name: 'first' });
    const updated = await people.addOrUpdateCard({ country: 'IT', nationalId: '10', name: 'second' });
    expect(updated._id).toBe(created._id);
    expect(updated.name).toBe('second');
    const byId = await people.addOrUpdateCard({ ...updated, name: 'third' });
    expect(byId._id).toBe(created._id);
    expect(await active()).toBe(1);
  });

  it('a batch of natural-id creates reads its class\'s counted key entries: a pending claim refuses it, on this stack and on a fresh one', async () => {
    const name = uniqueName('batch-pk');
    const a = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    await Class.create(a, 'Tag', 'class', '', { label: { type: 'string', primaryKey: true } });
    // a batch of plain-text keys only, none counted: stored under the natural ids, nothing planned
    const stored = await a.createDocs([{ '~class': 'Tag', label: 'red' }, { '~class': 'Tag', label: 'x.y' }, { '~class': 'Tag', label: 'ünï code' }]);
    expect(stored.map((d) => d._id)).toEqual(['Tag-_22red_22', 'Tag-_22x_2Ey_22', 'Tag-_22_C3_BCn_C3_AF_20code_22']);
    // an id of a natural id's shape that is not its key's: the key gets its entry, and is held
    await a.createDocs([{ '~class': 'Tag', _id: 'Tag-_22aaa_22', label: 'bbb' }, { '~class': 'Tag', label: 'ccc' }]);
    expect((await refusal(a.createDoc({ '~class': 'Tag', label: 'bbb' }))).code).toBe('DS_UNIQUE_VIOLATION');
    expect((await (await a.getClass('Tag')).getByPrimaryKeys({ label: 'bbb' }))?._id).toBe('Tag-_22aaa_22');
    // a writer's claim ahead of its document (a transaction's): counted
    await a.primaryKeys.claim([{ keyId: '_local/~pk/Tag/["blue"]', docId: 'Tag-being-written', className: 'Tag', attributes: ['label'] }]);
    const b = track(await createStack({ name, adapter: 'memory', plugins: [] })); // knows no count yet: reads it
    for (const stack of [b, a]) {
      const err = await refusal(stack.createDocs([{ '~class': 'Tag', label: 'green' }, { '~class': 'Tag', label: 'blue' }]));
      expect(err.code).toBe('DS_UNIQUE_VIOLATION');
      expect(await stack.findDocuments('Tag')).toHaveLength(5); // green not stored either
    }
    // two of one key in a batch, plain text or not: the second is the duplicate
    for (const label of ['twice', 'tw ice']) {
      const err = await refusal(b.createDocs([{ '~class': 'Tag', label }, { '~class': 'Tag', label }]));
      expect(err.code).toBe('DS_UNIQUE_VIOLATION');
    }
    expect(await b.findDocuments('Tag')).toHaveLength(5);
  });

  it('keeps the index across two stack instances of one store', async () => {
    const name = uniqueName('shared-pk');
    const a = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    const b = track(await createStack({ name, adapter: 'memory', plugins: [] }));
    await Class.create(a, 'Tag', 'class', '', { label: { type: 'string', primaryKey: true } });
    await a.createDoc({ '~class': 'Tag', label: 'red' });
    expect((await refusal(b.createDoc({ '~class': 'Tag', label: 'red' }))).code).toBe('DS_UNIQUE_VIOLATION');
  });
});
