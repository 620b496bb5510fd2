/**
 * Dates (docs/data-model.md#dates): stored as given; `format` tokens; `min` / `max` written in the
 * attribute's format and enforced on every write path (createDoc, updateDoc, stack.ingest).
 */
import { describe, expect, it } from 'vitest';
import { Attribute, Class, type ClientStack, type ErrorCode } from '../../../index.js';
import { expectRefused, memoryStack } from '../../helpers/stack.js';
import { refusedAttribute } from '../../helpers/attribute-cases.js';

type Schema = Record<string, Record<string, unknown>>;

async function dated(schema: Schema, stack?: ClientStack) {
  stack ??= await memoryStack();
  const cls = await Class.create(stack, 'Event', 'class', '', schema);
  const create = (attrs: Record<string, unknown>) => stack.createDoc({ '~class': 'Event', ...attrs });
  const refused = async (attrs: Record<string, unknown>, code: ErrorCode, path: string) => {
    const before = await stack.countDocuments('Event');
    const err = await expectRefused(create(attrs), code, path);
    expect(await stack.countDocuments('Event')).toBe(before);
    return err;
  };
  /** accepted, and stored exactly as given */
  const accepted = async (attrs: Record<string, unknown>) => {
    const doc = await create(attrs);
    expect(await stack.getDocument(doc._id)).toMatchObject(attrs);
    return doc;
  };
  return { stack, cls, create, refused, accepted };
}

describe('date formats', () => {
  it('stores the value as given (no normalisation), whatever the format', async () => {
    const t = await dated({ at: { type: 'date' }, fr: { type: 'date', format: 'DD/MM/YYYY' }, z: { type: 'date', format: 'YYYY-MM-DDTHH:mmZ' } });
    const doc = await t.accepted({ at: '2024-03-01T10:00:00.5+02:00', fr: '01/03/2024', z: '2024-03-01T10:00-05:30' });
    expect(doc.at).toBe('2024-03-01T10:00:00.5+02:00');
  });

  it('Z stands for "Z" or an offset ±HH:mm; a Date is written with Z', async () => {
    const t = await dated({ z: { type: 'date', format: 'YYYY-MM-DD HH:mm:ss.SSSZ' } });
    await t.accepted({ z: '2024-03-01 10:00:00.000Z' });
    await t.accepted({ z: '2024-03-01 10:00:00.000+01:00' });
    await t.refused({ z: '2024-03-01 10:00:00.000' }, 'DS_VALIDATION_DATE_FORMAT', 'z');
    await t.refused({ z: '2024-03-01 10:00:00.000+0100' }, 'DS_VALIDATION_DATE_FORMAT', 'z');
    await t.refused({ z: '2024-03-01 10:00:00.000+24:00' }, 'DS_VALIDATION_DATE_FORMAT', 'z');
    const doc = await t.create({ z: new Date(Date.UTC(2024, 2, 1, 10, 0, 0, 7)) });
    expect(doc.z).toBe('2024-03-01 10:00:00.007Z');
  });

  it('refuses text of another format, an impossible date, and a value that is not text', async () => {
    const t = await dated({ d: { type: 'date', format: 'YYYY/MM/DD' } });
    await t.refused({ d: '2024-03-01' }, 'DS_VALIDATION_DATE_FORMAT', 'd');
    await t.refused({ d: '2023/02/29' }, 'DS_VALIDATION_DATE_FORMAT', 'd');
    await t.refused({ d: 20240301 }, 'DS_VALIDATION_TYPE', 'd');
  });
});

describe('date min / max', () => {
  const bounded = { day: { type: 'date', format: 'DD/MM/YYYY', min: '15/01/2024', max: '10/02/2024' } };

  it('are compared as dates read with the format (not as text), bounds included, on createDoc', async () => {
    const t = await dated(bounded);
    await t.accepted({ day: '15/01/2024' });
    await t.accepted({ day: '10/02/2024' });
    await t.accepted({ day: '01/02/2024' }); // before "15/01/2024" as text, after it as a date
    const low = await t.refused({ day: '14/01/2024' }, 'DS_VALIDATION_RANGE', 'day');
    expect(low.message).toContain('at least 15/01/2024');
    const high = await t.refused({ day: '11/02/2024' }, 'DS_VALIDATION_RANGE', 'day');
    expect(high.message).toContain('at most 10/02/2024');
    // a value that is no date of the format reports the format, not the range
    await t.refused({ day: '2024-01-20' }, 'DS_VALIDATION_DATE_FORMAT', 'day');
  });

  it('are enforced on updateDoc, element by element in an array', async () => {
    const t = await dated({ ...bounded, days: { type: 'date', format: 'date', min: '2024-01-01', isArray: true } });
    const doc = await t.create({ day: '20/01/2024', days: ['2024-01-01'] });
    await expectRefused(t.stack.updateDoc(doc._id, { day: '11/02/2024' }), 'DS_VALIDATION_RANGE', 'day');
    await expectRefused(t.stack.updateDoc(doc._id, { days: ['2024-05-01', '2023-12-31'] }), 'DS_VALIDATION_RANGE', 'days[1]');
    expect((await t.stack.getDocument(doc._id))?.day).toBe('20/01/2024');
    expect((await t.stack.updateDoc(doc._id, { day: '09/02/2024' })).day).toBe('09/02/2024');
  });

  it('without a format, are ISO 8601 and compare instants (a calendar date is midnight UTC)', async () => {
    const t = await dated({ at: { type: 'date', min: '2024-01-01', max: '2024-01-31T23:59:59Z' } });
    await t.accepted({ at: '2024-01-01T01:30:00+01:00' }); // 00:30 UTC
    await t.accepted({ at: '2024-01-31' });
    await t.refused({ at: '2024-01-01T00:30:00+01:00' }, 'DS_VALIDATION_RANGE', 'at'); // 23:30 UTC the day before
    await t.accepted({ at: '2024-02-01T00:30:00+01:00' }); // 23:30 UTC on the 31st
    await t.refused({ at: '2024-02-01T01:30:00+01:00' }, 'DS_VALIDATION_RANGE', 'at'); // 00:30 UTC on the 1st
  });

  it('with an offset token, compare the UTC instants', async () => {
    const t = await dated({ t: { type: 'date', format: 'YYYY-MM-DD HH:mmZ', max: '2024-06-01 12:00Z' } });
    await t.accepted({ t: '2024-06-01 13:30+02:00' }); // 11:30 UTC
    await t.refused({ t: '2024-06-01 12:30+00:00' }, 'DS_VALIDATION_RANGE', 't');
  });

  it('are enforced on a replicated write (stack.ingest), which stores the peer value as it came', async () => {
    const peer = await memoryStack();
    const here = await memoryStack();
    for (const stack of [peer, here]) await Class.create(stack, 'Event', 'class', '', bounded);
    const ok = await peer.createDoc({ '~class': 'Event', day: '01/02/2024' });
    const [accepted] = await here.ingest([await peer.storage.replication.get(ok._id, { revs: true })]);
    expect(accepted).toMatchObject({ id: ok._id, ok: true });
    expect((await here.getDocument(ok._id))?.day).toBe('01/02/2024');
    const forged = { ...(await peer.storage.replication.get(ok._id, { revs: true })), _id: 'Event-forged', day: '01/03/2024', _rev: '1-abc', _revisions: { start: 1, ids: ['abc'] } };
    const [refused] = await here.ingest([forged]);
    expect(refused).toMatchObject({ id: 'Event-forged', ok: false, code: 'DS_VALIDATION_RANGE' });
    expect(await here.storage.get('Event-forged')).toBeNull();
  });

  it('a defaultValue outside them is refused; one inside is stamped as given', async () => {
    const t = await dated({ label: { type: 'string' } });
    await t.create({ label: 'before' });
    await refusedAttribute(t.cls, 'due', 'date', { format: 'date', min: '2024-01-01', defaultValue: '2023-12-31' }, 'DS_ATTRIBUTE_DEFAULT_INVALID');
    await Attribute.create(t.cls, 'due', 'date', '', { format: 'date', min: '2024-01-01', defaultValue: '2024-01-02' });
    expect((await t.stack.findDocuments('Event'))[0].due).toBe('2024-01-02');
  });

  it('are refused when not dates of the format, or out of order (DS_ATTRIBUTE_CONFIG_INVALID)', async () => {
    const { cls } = await dated({});
    for (const config of [
      { format: 'DD/MM/YYYY', min: '2024-01-01' },
      { format: 'date', max: '2024-02-30' },
      { min: 'yesterday' },
      { min: 20240101 },
      { format: 'date', min: '2024-02-01', max: '2024-01-01' },
    ]) {
      await refusedAttribute(cls, 'd', 'date', config, 'DS_ATTRIBUTE_CONFIG_INVALID');
    }
    await Attribute.create(cls, 'd', 'date', '', { format: 'date', min: '2024-01-01', max: '2024-01-01' });
    expect(cls.model.schema.d).toMatchObject({ min: '2024-01-01', max: '2024-01-01' });
  });
});
