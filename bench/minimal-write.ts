/**
 * bench/serial-layers' floor sketch: the least a serial create can do under the design card —
 * a draft (natural id, timestamp, `active`), a `validate` hook (tapable, as kernel/hooks.ts
 * declares it) with one tap checking the Item's eight attributes (types, bounds, the date, the
 * foreign key against targets known in memory, as the validation plugin's cache keeps them),
 * then one `bulkDocs([doc])`. No write parts (key claims, counters, class names), no write
 * lock, no `change` event, no other plugin: what it costs over a raw `put` is what a write path
 * needs at the very least, so the engine's cost above it is its own, not the design's.
 * The hook runs as the engine runs its write plans (kernel/planned-calls.ts `runSeries`: each tap
 * called in turn), not through tapable's `promise()`, which compiles a function per hook
 * instance: a sketch made per fresh store paid that compilation on every store (bench/pipeline's
 * serial step measured it at 1.34–1.47× a `put`, above the engine), a cost the engine does not have.
 * A sketch for measuring, not a second engine: nothing else uses it.
 */
import { AsyncSeriesHook } from 'tapable';
import { naturalDocId, nowIso } from '../kernel/drafts.js';
import { runSeries } from '../kernel/planned-calls.js';
import { isPromiseLike } from '../storage/settle.js';
import type { NewDoc } from '../index.js';
import { CATEGORIES, categoryId, STATUSES } from './items.js';
import type { RawDb } from './pipeline-sides.js';

type Draft = Record<string, unknown> & { _id: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const KNOWN_TARGETS = new Set(Array.from({ length: CATEGORIES }, (_, i) => categoryId(i + 1)));

/** ITEM_SCHEMA's rules (bench/items.ts), written out. */
const CHECKS: [string, (value: unknown) => boolean][] = [
  ['code', (v) => typeof v === 'string' && v.length <= 24],
  ['label', (v) => v === undefined || (typeof v === 'string' && v.length <= 80)],
  ['quantity', (v) => v === undefined || (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 1_000_000)],
  ['price', (v) => v === undefined || (typeof v === 'number' && v >= 0 && Math.round(v * 100) / 100 === v)],
  ['inStock', (v) => v === undefined || typeof v === 'boolean'],
  ['releasedOn', (v) => v === undefined || (typeof v === 'string' && DATE.test(v) && !Number.isNaN(Date.parse(v)))],
  ['status', (v) => v === undefined || (STATUSES as readonly unknown[]).includes(v)],
  ['category', (v) => typeof v === 'string' && KNOWN_TARGETS.has(v)],
];

/** A writer of Item inputs (the engine's: attributes and `~class`) into `db` the floor-sketch way. */
export function minimalWriter(db: RawDb): (input: NewDoc) => Promise<Draft> {
  const validate = new AsyncSeriesHook<[Draft]>(['draft']);
  validate.tap('validation', (draft) => {
    for (const [name, check] of CHECKS) if (!check(draft[name])) throw new Error(`invalid ${name}: ${JSON.stringify(draft[name])}`);
  });
  return async (input) => {
    const draft: Draft = { _id: naturalDocId('Item', [input.code]) };
    for (const key in input) draft[key] = input[key];
    draft['~createTimestamp'] = nowIso();
    draft.active = true;
    const checked = runSeries(validate, draft, undefined);
    if (isPromiseLike(checked)) await checked;
    const [result] = await db.bulkDocs([draft]);
    if ('error' in result && result.error) throw new Error(`not stored: ${draft._id}`);
    draft._rev = (result as { rev: string }).rev;
    return draft;
  };
}
