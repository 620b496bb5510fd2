/**
 * The validation plugin, type by type: what each attribute type accepts, what it refuses
 * (with which code and path), and that a refused write stores nothing.
 */
import { describe, expect, it } from 'vitest';
import { Class, type ErrorCode } from '../../../index.js';
import { expectRefused, memoryStack } from '../../helpers/stack.js';

type Attrs = Record<string, unknown>;
type Schema = Record<string, Record<string, unknown>>;

/** A stack with a class `Thing` of the given schema, and shortcuts to write and count Things. */
async function thing(schema: Schema, extra: Record<string, Schema> = {}) {
  const stack = await memoryStack();
  for (const [name, s] of Object.entries(extra)) await Class.create(stack, name, 'class', '', s);
  await Class.create(stack, 'Thing', 'class', '', schema);
  const count = async (cls = 'Thing') => (await stack.findDocuments(cls, undefined, { includeInactive: true })).length;
  const create = (attrs: Attrs) => stack.createDoc({ '~class': 'Thing', ...attrs });
  /** the write is refused with that code and path, and no Thing is stored */
  const refused = async (attrs: Attrs, code: ErrorCode, path: string) => {
    const before = await count();
    const err = await expectRefused(create(attrs), code, path);
    expect(await count()).toBe(before);
    return err;
  };
  /** accepted, and the stored document holds `expected` (the given value by default) */
  const accepted = async (attrs: Attrs, expected: Attrs = attrs) => {
    const doc = await create(attrs);
    const stored = await stack.getDocument(doc._id);
    expect(stored).toMatchObject(expected);
    return stored!;
  };
  return { stack, count, create, refused, accepted };
}

describe('string', () => {
  it('accepts strings up to maxLength and refuses longer ones with DS_VALIDATION_MAX_LENGTH', async () => {
    const t = await thing({ code: { type: 'string', maxLength: 5 }, free: { type: 'string' } });
    await t.accepted({ code: 'abcde', free: 'x'.repeat(10_000) });
    await t.accepted({ code: '' });
    await t.refused({ code: 'abcdef' }, 'DS_VALIDATION_MAX_LENGTH', 'code');
    expect(await t.count()).toBe(2);
  });

  it('refuses values that are not strings', async () => {
    const t = await thing({ code: { type: 'string' } });
    await t.refused({ code: 42 }, 'DS_VALIDATION_TYPE', 'code');
    await t.refused({ code: true }, 'DS_VALIDATION_TYPE', 'code');
    await t.refused({ code: { a: 1 } }, 'DS_VALIDATION_TYPE', 'code');
  });
});

describe('integer', () => {
  it('accepts whole numbers within min and max (bounds included)', async () => {
    const t = await thing({ n: { type: 'integer', min: -2, max: 10 }, free: { type: 'integer' } });
    await t.accepted({ n: -2, free: -1_000_000 });
    await t.accepted({ n: 10, free: 0 });
    await t.accepted({ n: 3.0 }, { n: 3 });
  });

  it('refuses fractions (DS_VALIDATION_INTEGER), out-of-range numbers (DS_VALIDATION_RANGE) and text', async () => {
    const t = await thing({ n: { type: 'integer', min: -2, max: 10 } });
    await t.refused({ n: 2.5 }, 'DS_VALIDATION_INTEGER', 'n');
    await t.refused({ n: -3 }, 'DS_VALIDATION_RANGE', 'n');
    await t.refused({ n: 11 }, 'DS_VALIDATION_RANGE', 'n');
    await t.refused({ n: '5' }, 'DS_VALIDATION_TYPE', 'n');
  });
});

describe('decimal', () => {
  it('accepts numbers with at most `precision` decimal places, within min and max', async () => {
    const t = await thing({ price: { type: 'decimal', precision: 2, min: 0.5, max: 99.5 } });
    await t.accepted({ price: 12.34 });
    await t.accepted({ price: 12 });
    await t.accepted({ price: 0.5 });
    await t.accepted({ price: 99.5 });
  });

  it('refuses extra decimal places (DS_VALIDATION_PRECISION), out-of-range numbers and text', async () => {
    const t = await thing({ price: { type: 'decimal', precision: 2, min: 0.5, max: 99.5 }, whole: { type: 'decimal', precision: 0 } });
    await t.refused({ price: 12.345 }, 'DS_VALIDATION_PRECISION', 'price');
    await t.refused({ price: 0.49 }, 'DS_VALIDATION_RANGE', 'price');
    await t.refused({ price: 99.51 }, 'DS_VALIDATION_RANGE', 'price');
    await t.refused({ price: '1.5' }, 'DS_VALIDATION_TYPE', 'price');
    await t.accepted({ whole: 3 });
    await t.refused({ whole: 3.1 }, 'DS_VALIDATION_PRECISION', 'whole');
  });

  it('accepts any number of decimal places when there is no precision', async () => {
    const t = await thing({ x: { type: 'decimal' } });
    await t.accepted({ x: 3.14159265 });
    await t.accepted({ x: -0.000001 });
  });
});

describe('boolean', () => {
  it('accepts true and false only', async () => {
    const t = await thing({ done: { type: 'boolean' } });
    await t.accepted({ done: true });
    await t.accepted({ done: false });
    await t.refused({ done: 'true' }, 'DS_VALIDATION_TYPE', 'done');
    await t.refused({ done: 0 }, 'DS_VALIDATION_TYPE', 'done');
  });
});

describe('date', () => {
  it('without a format: an ISO date or an ISO date-time with an offset', async () => {
    const t = await thing({ at: { type: 'date' } });
    await t.accepted({ at: '2024-02-29' });
    await t.accepted({ at: '2024-02-29T10:15:00Z' });
    await t.accepted({ at: '2024-02-29T10:15:00.123+02:00' });
    for (const bad of ['2024-02-29T10:15:00', '29/02/2024', '2024-2-9', 'yesterday', '']) {
      await t.refused({ at: bad }, 'DS_VALIDATION_DATE_FORMAT', 'at');
    }
    await t.refused({ at: 20240229 }, 'DS_VALIDATION_TYPE', 'at');
  });

  it('refuses calendar dates that do not exist', async () => {
    const t = await thing({ at: { type: 'date' }, day: { type: 'date', format: 'YYYY-MM-DD' } });
    for (const bad of ['2023-02-30', '2023-02-29', '2024-04-31', '2024-13-01', '2023-02-30T10:00:00Z']) {
      await t.refused({ at: bad }, 'DS_VALIDATION_DATE_FORMAT', 'at');
    }
    await t.refused({ day: '2023-02-30' }, 'DS_VALIDATION_DATE_FORMAT', 'day');
    await t.accepted({ day: '2024-02-29' });
  });

  it("format 'date' takes a calendar date only, 'date-time' a date-time with offset only", async () => {
    const t = await thing({ d: { type: 'date', format: 'date' }, dt: { type: 'date', format: 'date-time' } });
    await t.accepted({ d: '2024-01-05', dt: '2024-01-05T10:00:00Z' });
    await t.accepted({ dt: '2024-01-05T10:00:00.5-05:30' });
    await t.refused({ d: '2024-01-05T10:00:00Z' }, 'DS_VALIDATION_DATE_FORMAT', 'd');
    await t.refused({ dt: '2024-01-05' }, 'DS_VALIDATION_DATE_FORMAT', 'dt');
    await t.refused({ dt: '2024-01-05T10:00:00' }, 'DS_VALIDATION_DATE_FORMAT', 'dt');
    await t.refused({ dt: '2023-02-30T10:00:00Z' }, 'DS_VALIDATION_DATE_FORMAT', 'dt');
  });

  it("a token pattern such as 'DD/MM/YYYY HH:mm' is matched exactly, with real dates and times", async () => {
    const t = await thing({ at: { type: 'date', format: 'DD/MM/YYYY HH:mm' } });
    await t.accepted({ at: '05/01/2024 14:30' });
    await t.accepted({ at: '29/02/2024 00:00' });
    await t.accepted({ at: '31/12/2024 23:59' });
    const bad = ['2024-01-05 14:30', '5/1/2024 14:30', '05/01/2024', '05/01/2024 14:30:00', '30/02/2023 10:00', '05/13/2024 10:00', '05/01/2024 24:00', '05/01/2024 14:60', '05-01-2024 14:30'];
    for (const value of bad) await t.refused({ at: value }, 'DS_VALIDATION_DATE_FORMAT', 'at');
  });

  it('stores a Date object as text in the format of its attribute', async () => {
    const t = await thing({
      plain: { type: 'date' },
      d: { type: 'date', format: 'date' },
      dt: { type: 'date', format: 'date-time' },
      fr: { type: 'date', format: 'DD/MM/YYYY HH:mm' },
      days: { type: 'date', format: 'YYYY.MM.DD', isArray: true },
    });
    const when = new Date(Date.UTC(2024, 0, 5, 14, 30, 15, 250));
    const doc = await t.create({ plain: when, d: when, dt: when, fr: when, days: [when, '2024.02.29'] });
    const expected = {
      plain: '2024-01-05T14:30:15.250Z',
      d: '2024-01-05',
      dt: '2024-01-05T14:30:15.250Z',
      fr: '05/01/2024 14:30',
      days: ['2024.01.05', '2024.02.29'],
    };
    expect(doc).toMatchObject(expected);
    const raw = await t.stack.storage.get(doc._id);
    expect(raw).toMatchObject(expected);

    const updated = await t.stack.updateDoc(doc._id, { fr: new Date(Date.UTC(2025, 11, 31, 23, 59)) });
    expect(updated.fr).toBe('31/12/2025 23:59');
    expect((await t.stack.getDocument(doc._id))!.fr).toBe('31/12/2025 23:59');
  });
});

describe('enum', () => {
  it('accepts the listed values only (case-sensitive)', async () => {
    const t = await thing({ status: { type: 'enum', values: ['draft', 'published'] } });
    await t.accepted({ status: 'draft' });
    await t.accepted({ status: 'published' });
    await t.refused({ status: 'archived' }, 'DS_VALIDATION_ENUM', 'status');
    await t.refused({ status: 'Draft' }, 'DS_VALIDATION_ENUM', 'status');
  });
});

describe('object', () => {
  it('accepts plain objects (nested values kept) and refuses scalars', async () => {
    const t = await thing({ meta: { type: 'object' } });
    await t.accepted({ meta: { a: 1, nested: { b: [1, 'two', null] } } });
    await t.accepted({ meta: {} });
    await t.refused({ meta: 'text' }, 'DS_VALIDATION_TYPE', 'meta');
    await t.refused({ meta: 42 }, 'DS_VALIDATION_TYPE', 'meta');
    await t.refused({ meta: [1, 2] }, 'DS_VALIDATION_ARRAY', 'meta');
  });

  it('refuses objects that are not plain JSON data (a Date would be stored as text, a Map as {})', async () => {
    const t = await thing({ meta: { type: 'object' } });
    await t.refused({ meta: new Date() }, 'DS_VALIDATION_TYPE', 'meta');
    await t.refused({ meta: new Map([['a', 1]]) }, 'DS_VALIDATION_TYPE', 'meta');
    await t.accepted({ meta: Object.assign(Object.create(null), { a: 1 }) }, { meta: { a: 1 } });
  });
});

describe('foreign_key', () => {
  const people = { name: { type: 'string' } };
  const fkSchema: Schema = {
    owner: { type: 'foreign_key', targetClass: 'Person' },
    owners: { type: 'foreign_key', targetClass: 'Person', isArray: true },
  };

  async function withPeople() {
    const t = await thing(fkSchema, { Person: people, Pet: people });
    const [ann, bob, gone] = await t.stack.createDocs(['Ann', 'Bob', 'Gone'].map((name) => ({ '~class': 'Person', name })));
    await t.stack.deleteDocument(gone._id);
    const rex = await t.stack.createDoc({ '~class': 'Pet', name: 'Rex' });
    return { ...t, ann, bob, gone, rex };
  }

  it('accepts an id of an active document of the targetClass', async () => {
    const t = await withPeople();
    await t.accepted({ owner: t.ann._id, owners: [t.ann._id, t.bob._id] });
    await t.accepted({ owners: [] });
  });

  it('refuses a missing, inactive or other-class target', async () => {
    const t = await withPeople();
    const missing = await t.refused({ owner: 'Person-nobody' }, 'DS_VALIDATION_FOREIGN_KEY', 'owner');
    expect(missing.details).toMatchObject({ attribute: 'owner', targetClass: 'Person', id: 'Person-nobody' });
    await t.refused({ owner: t.gone._id }, 'DS_VALIDATION_FOREIGN_KEY', 'owner');
    await t.refused({ owner: t.rex._id }, 'DS_VALIDATION_FOREIGN_KEY', 'owner');
    await t.refused({ owner: 'Person' }, 'DS_VALIDATION_FOREIGN_KEY', 'owner'); // the class document itself
    await t.refused({ owner: 7 }, 'DS_VALIDATION_TYPE', 'owner');
  });

  it('checks every id of an array, naming the bad element', async () => {
    const t = await withPeople();
    await t.refused({ owners: [t.ann._id, t.bob._id, 'Person-nobody'] }, 'DS_VALIDATION_FOREIGN_KEY', 'owners[2]');
    await t.refused({ owners: [t.gone._id, t.ann._id] }, 'DS_VALIDATION_FOREIGN_KEY', 'owners[0]');
    await t.refused({ owners: [t.ann._id, t.rex._id] }, 'DS_VALIDATION_FOREIGN_KEY', 'owners[1]');
  });

  it('accepts a target created in the same createDocs batch, before or after its referrer', async () => {
    const t = await withPeople();
    const docs = await t.stack.createDocs([
      { '~class': 'Thing', owner: 'Person-later', owners: ['Person-earlier', 'Person-later'] },
      { '~class': 'Person', _id: 'Person-later', name: 'Later' },
      { '~class': 'Person', _id: 'Person-earlier', name: 'Earlier' },
      { '~class': 'Thing', owner: 'Person-earlier' },
    ]);
    expect(docs).toHaveLength(4);
    expect(await t.count()).toBe(2);
    expect((await t.stack.getDocument(docs[0]._id))!.owners).toEqual(['Person-earlier', 'Person-later']);
  });

  it('a batch with one bad foreign key stores none of its documents', async () => {
    const t = await withPeople();
    const persons = await t.count('Person');
    const err = await expectRefused(
      t.stack.createDocs([
        { '~class': 'Person', _id: 'Person-new', name: 'New' },
        { '~class': 'Thing', owner: 'Person-new' },
        { '~class': 'Thing', owners: ['Person-new', 'Pet-x'] },
      ]),
      'DS_VALIDATION_FOREIGN_KEY',
      'owners[1]',
    );
    expect(err.details).toMatchObject({ id: 'Pet-x' });
    expect(await t.count()).toBe(0);
    expect(await t.count('Person')).toBe(persons);
  });
});

describe('isArray', () => {
  const cases: { type: string; config?: Attrs; good: unknown[]; bad: unknown[]; code: ErrorCode }[] = [
    { type: 'string', config: { maxLength: 3 }, good: ['a', 'bb', 'ccc'], bad: ['a', 'bb', 'dddd'], code: 'DS_VALIDATION_MAX_LENGTH' },
    { type: 'string', good: ['a', 'b', 'c'], bad: ['a', 'b', 3], code: 'DS_VALIDATION_TYPE' },
    { type: 'integer', config: { min: 0 }, good: [0, 1, 2], bad: [0, 1, 2.5], code: 'DS_VALIDATION_INTEGER' },
    { type: 'integer', config: { max: 9 }, good: [9, 1, 2], bad: [0, 1, 10], code: 'DS_VALIDATION_RANGE' },
    { type: 'decimal', config: { precision: 1 }, good: [0.5, 1, 2.5], bad: [0.5, 1, 0.25], code: 'DS_VALIDATION_PRECISION' },
    { type: 'boolean', good: [true, false, true], bad: [true, false, 'no'], code: 'DS_VALIDATION_TYPE' },
    { type: 'date', config: { format: 'date' }, good: ['2024-01-01', '2024-02-29', '2024-12-31'], bad: ['2024-01-01', '2024-01-02', '2023-02-30'], code: 'DS_VALIDATION_DATE_FORMAT' },
    { type: 'enum', config: { values: ['a', 'b'] }, good: ['a', 'b', 'a'], bad: ['a', 'b', 'c'], code: 'DS_VALIDATION_ENUM' },
    { type: 'object', good: [{ x: 1 }, {}, { y: [2] }], bad: [{}, {}, 'x'], code: 'DS_VALIDATION_TYPE' },
  ];

  it.each(cases)('$type $config: lists accepted, element errors at list[2], scalar/list mix-ups refused', async ({ type, config, good, bad, code }) => {
    const t = await thing({ list: { type, ...config, isArray: true }, single: { type, ...config } });
    await t.accepted({ list: good });
    await t.accepted({ list: [] });
    await t.refused({ list: bad }, code, 'list[2]');
    await t.refused({ list: good[0] }, 'DS_VALIDATION_ARRAY', 'list');
    await t.refused({ single: good }, 'DS_VALIDATION_ARRAY', 'single');
    await t.accepted({ single: good[0] });
    expect(await t.count()).toBe(3);
  });

  it('foreign_key: a scalar for an array, or a list for a scalar, is DS_VALIDATION_ARRAY', async () => {
    const t = await thing(
      { list: { type: 'foreign_key', targetClass: 'Person', isArray: true }, single: { type: 'foreign_key', targetClass: 'Person' } },
      { Person: {} },
    );
    const p = await t.stack.createDoc({ '~class': 'Person' });
    await t.refused({ list: p._id }, 'DS_VALIDATION_ARRAY', 'list');
    await t.refused({ single: [p._id] }, 'DS_VALIDATION_ARRAY', 'single');
    await t.refused({ list: [p._id, p._id, 5] }, 'DS_VALIDATION_TYPE', 'list[2]');
    await t.accepted({ list: [p._id, p._id], single: p._id });
  });
});
