/**
 * classObj.schemaZOD (docs/data-model.md#schemazod): the zod schema of a class's documents,
 * accepting and refusing what a create through the pipeline does for the synchronous rules, and
 * rebuilt when the class changes (Attribute.create, a patch, a replicated class document).
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, type ClientStack } from '../../../index.js';
import { kernelStack, memoryStack } from '../../helpers/stack.js';

type Schema = Record<string, Record<string, unknown>>;

/** The pipeline's answer (accepted, or the refusal's code) and schemaZOD's, for one document. */
async function both(stack: ClientStack, cls: Class, attrs: Record<string, unknown>) {
  const doc = { '~class': cls.name, ...attrs };
  const parsed = cls.schemaZOD!.safeParse(doc);
  const pipeline = await stack.createDoc(doc).then(
    () => true,
    (err: { code?: string }) => err.code ?? String(err),
  );
  return { pipeline, zod: parsed.success, parsed };
}

/** Per attribute model: values each side must accept, and values each side must refuse. */
const cases: { config: Record<string, unknown>; good: unknown[]; bad: unknown[] }[] = [
  { config: { type: 'string', maxLength: 3 }, good: ['', 'abc', null], bad: ['abcd', 3, true, ['a']] },
  { config: { type: 'string', mandatory: true }, good: ['x', ''], bad: [null, undefined, 1] },
  // a default is stamped on an absent attribute; null is a value given (and clears it): refused
  { config: { type: 'string', mandatory: true, defaultValue: 'd' }, good: [undefined, 'x'], bad: [null, 2] },
  { config: { type: 'integer', min: -2, max: 10 }, good: [-2, 10, 3.0], bad: [2.5, -3, 11, '5'] },
  { config: { type: 'decimal', precision: 2, min: 0.5 }, good: [0.5, 12.34, 12], bad: [12.345, 0.25, Number.NaN, 'x'] },
  { config: { type: 'boolean' }, good: [true, false], bad: ['true', 0] },
  { config: { type: 'date' }, good: ['2024-02-29', '2024-01-01T10:00:00+02:00', new Date(0)], bad: ['2023-02-29', '2024-01-01 10:00', 5, new Date(Number.NaN)] },
  { config: { type: 'date', format: 'DD/MM/YYYY', min: '15/01/2024', max: '10/02/2024' }, good: ['01/02/2024', '15/01/2024', new Date(Date.UTC(2024, 0, 20))], bad: ['14/01/2024', '2024-01-20', '31/02/2024'] },
  { config: { type: 'enum', values: ['a', { value: 'b' }] }, good: ['a', 'b'], bad: ['c', ''] },
  { config: { type: 'object' }, good: [{}, { x: [1] }], bad: ['x', [1], new Map()] },
  { config: { type: 'string', isArray: true, maxLength: 2 }, good: [[], ['ab', 'c']], bad: ['ab', ['abc'], [1]] },
  { config: { type: 'date', format: 'date', isArray: true, max: '2024-12-31' }, good: [['2024-01-01', new Date(0)]], bad: [['2025-01-01'], '2024-01-01'] },
];

describe('classObj.schemaZOD', () => {
  it.each(cases)('agrees with the pipeline on $config', async ({ config, good, bad }) => {
    const stack = await memoryStack();
    const cls = await Class.create(stack, 'Thing', 'class', '', { v: config } as Schema);
    for (const value of good) {
      const answer = await both(stack, cls, value === undefined ? {} : { v: value });
      expect({ value, ...answer, parsed: undefined }).toMatchObject({ pipeline: true, zod: true });
    }
    for (const value of bad) {
      const answer = await both(stack, cls, value === undefined ? {} : { v: value });
      expect({ value, ...answer, parsed: undefined }).toMatchObject({ pipeline: expect.stringMatching(/^DS_VALIDATION_/), zod: false });
    }
  });

  it('refuses unknown attributes as the pipeline does; system fields are not attributes', async () => {
    const stack = await memoryStack();
    const cls = await Class.create(stack, 'Thing', 'class', '', { label: { type: 'string' } });
    expect(await both(stack, cls, { label: 'a', colour: 'red' })).toMatchObject({ pipeline: 'DS_VALIDATION_UNKNOWN_ATTRIBUTE', zod: false });
    const { parsed } = await both(stack, cls, { labl: 'a' });
    expect(parsed.success ? null : parsed.error.issues[0]).toMatchObject({ path: ['labl'], params: { code: 'DS_VALIDATION_UNKNOWN_ATTRIBUTE' } });
    expect(await both(stack, cls, { label: 'a', _id: 'Thing-1', active: true })).toMatchObject({ pipeline: true, zod: true });
  });

  it("checks the document as a create prepares it (defaults, null, a Date) and leaves the foreign key's target to the asynchronous check", async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Person', 'class', '', {});
    const cls = await Class.create(stack, 'Thing', 'class', '', {
      at: { type: 'date', format: 'date' },
      n: { type: 'integer', defaultValue: 7, mandatory: true },
      note: { type: 'string' },
      owner: { type: 'foreign_key', targetClass: 'Person' },
    });
    const given = { '~class': 'Thing', at: new Date(Date.UTC(2024, 4, 6)), note: null };
    // data is the input as given (the pipeline stores the prepared form)
    expect(cls.schemaZOD!.safeParse(given)).toEqual({ success: true, data: given });
    expect(await both(stack, cls, given)).toMatchObject({ pipeline: true, zod: true });
    // a refusal is the pipeline's first, its code in params.code, its path as zod's
    const { parsed } = await both(stack, cls, { n: 1, at: ['2024-01-01'] });
    expect(parsed.success ? null : parsed.error.issues).toEqual([expect.objectContaining({ path: ['at'], params: expect.objectContaining({ code: 'DS_VALIDATION_ARRAY' }) })]);
    // an id of the right shape passes the schema; that it names a live Person is read from the store
    expect(await both(stack, cls, { owner: 'Person-none' })).toMatchObject({ pipeline: 'DS_VALIDATION_FOREIGN_KEY', zod: true });
    expect(await both(stack, cls, { owner: '' })).toMatchObject({ pipeline: 'DS_VALIDATION_TYPE', zod: false });
    expect(cls.schemaZOD!.safeParse('Thing-1')).toMatchObject({ success: false });
  });

  it('is rebuilt when the class changes: Attribute.create, a patch, a class document replicated from a peer', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Thing', 'class', '', { a: { type: 'string' } });
    const cls = await stack.getClass('Thing');
    const first = cls.schemaZOD!;
    expect(cls.schemaZOD).toBe(first); // the same model, the same schema
    expect(first.safeParse({ '~class': 'Thing', b: 1 }).success).toBe(false);

    await Attribute.create(cls, 'b', 'integer', '', { max: 5 });
    expect(cls.schemaZOD).not.toBe(first);
    expect(cls.schemaZOD!.safeParse({ '~class': 'Thing', b: 1 }).success).toBe(true);
    expect(cls.schemaZOD!.safeParse({ '~class': 'Thing', b: 6 }).success).toBe(false);

    await stack.patches.apply({ target: 'zod-test', version: '1.0.0', changes: [{ kind: 'updateAttribute', className: 'Thing', name: 'b', config: { max: 9 } }] });
    expect(cls.schemaZOD!.safeParse({ '~class': 'Thing', b: 6 }).success).toBe(true);

    const peer = await memoryStack();
    await peer.ingest([await stack.storage.replication.get('Thing', { revs: true })]);
    await Attribute.create(await peer.getClass('Thing'), 'c', 'boolean', '', { mandatory: true });
    // a live class object follows another writer's change of its class through its 'model' listeners
    const followed = new Promise((resolve) => cls.once('model', resolve));
    const [result] = await stack.ingest([await peer.storage.replication.get('Thing', { revs: true })]);
    expect(result).toMatchObject({ ok: true });
    await followed;
    expect(cls.schemaZOD!.safeParse({ '~class': 'Thing', b: 6 }).success).toBe(false); // c is mandatory now
    expect(cls.schemaZOD!.safeParse({ '~class': 'Thing', b: 6, c: true }).success).toBe(true);
  });

  it('accepts any object for a simple class, and is undefined on a stack without a validator', async () => {
    const stack = await memoryStack();
    const simple = await Class.create(stack, 'Raw', 'class', '', {}, { simple: true });
    expect(simple.schemaZOD!.safeParse({ '~class': 'Raw', anything: [1] }).success).toBe(true);
    const bare = await kernelStack();
    expect((await Class.create(bare, 'Thing', 'class', '', { a: { type: 'string' } })).schemaZOD).toBeUndefined();
  });
});
