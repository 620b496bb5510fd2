import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { Doc } from '../../contracts/model.js';
import { compareRevs } from './leaves.js';

/**
 * One version of a conflicted document as the policies weigh it: `raw` as stored (encrypted
 * values sealed), `read` as a read answers it (decrypted where this stack holds the key).
 */
export interface Side {
  rev: string;
  raw: Doc;
  read: Doc;
}

/** The fields a resolution decides: the document's attributes and whether it lives. */
export const isDecided = (key: string): boolean => !key.startsWith('_') && !key.startsWith('~');

/** A value a plugin could not open here (the encryption plugin's `{ "~sealed": true }` marker). */
const unreadable = (value: unknown): boolean => typeof value === 'object' && value !== null && (value as Record<string, unknown>)['~sealed'] === true;

const json = (value: unknown): string | undefined => (value === undefined ? undefined : JSON.stringify(value));

/**
 * Do two versions hold the same value for `key`? Stored alike, or read alike; values this stack
 * cannot open are only the same when stored alike, and telling them apart is then impossible:
 * DS_CONFLICT_SEALED (a device with the key resolves it).
 */
export function sameValue(a: Side, b: Side, key: string): boolean {
  if (json(a.raw[key]) === json(b.raw[key])) return true;
  if (unreadable(a.read[key]) || unreadable(b.read[key])) {
    throw KERNEL_ERRORS.conflictSealed(`"${key}" of "${a.raw._id}" differs between revisions this stack cannot open; a device holding the scope's key resolves it.`, {
      path: key,
      details: { id: a.raw._id },
    });
  }
  return json(a.read[key]) === json(b.read[key]);
}

/** When a version was written: its last update, or its creation for a version never updated. */
const stamp = (side: Side): string => {
  const at = side.raw['~updateTimestamp'] ?? side.raw['~createTimestamp'];
  return typeof at === 'string' ? at : '';
};

/** Latest first: the later `~updateTimestamp`, ties by revision in PouchDB's winning order. */
export function byLatest(a: Side, b: Side): number {
  const ta = stamp(a);
  const tb = stamp(b);
  return ta !== tb ? (ta < tb ? 1 : -1) : compareRevs(b.rev, a.rev);
}

/** The latest `~updateTimestamp` of the versions: the resolution's own (the same on every device). */
export function latestStamp(sides: readonly Side[]): string {
  const latest = [...sides].sort(byLatest)[0];
  return latest ? stamp(latest) : '';
}

/** For each decided field, the version whose stored value the resolution takes. */
export type Choice = Map<string, Side>;

function decidedKeys(sides: readonly (Side | null)[]): string[] {
  const keys = new Set<string>();
  for (const side of sides) if (side) for (const key of Object.keys(side.raw)) if (isDecided(key)) keys.add(key);
  return [...keys];
}

/** 'latest': every field from the latest version. */
export function chooseLatest(sides: readonly Side[]): Choice {
  const latest = [...sides].sort(byLatest)[0];
  return new Map(decidedKeys(sides).map((key) => [key, latest]));
}

/**
 * 'merge', field by field against the common ancestor: a field no version changed keeps the
 * ancestor's value, a field changed by one version (or changed alike by several) takes that
 * change, a field changed differently by several takes the latest of those ('latest' for that
 * field). With no ancestor every field counts as changed everywhere: the whole is 'latest'.
 * `sides[0]` is the current winner: where versions agree its stored value is kept.
 */
export function chooseMerged(ancestor: Side | null, sides: readonly Side[]): Choice {
  const choice: Choice = new Map();
  for (const key of decidedKeys([ancestor, ...sides])) {
    const changers = ancestor ? sides.filter((side) => !sameValue(side, ancestor, key)) : [...sides];
    if (changers.length === 0) {
      choice.set(key, sides[0]);
      continue;
    }
    const agreed = changers.every((side) => sameValue(side, changers[0], key));
    choice.set(key, agreed ? changers[0] : [...changers].sort(byLatest)[0]);
  }
  return choice;
}

/** The body a choice makes: each decided field's stored value from its chosen version (absent where that version has none). */
export function bodyOf(choice: Choice): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, side] of choice) if (side.raw[key] !== undefined) body[key] = side.raw[key];
  return body;
}

/** Does the body leave the winner exactly as it is (then only the losing leaves go)? */
export function sameAsWinner(body: Record<string, unknown>, winner: Doc): boolean {
  const keys = new Set([...Object.keys(body), ...Object.keys(winner).filter(isDecided)]);
  for (const key of keys) {
    const mine = key === 'active' ? (body.active ?? true) : body[key];
    const theirs = key === 'active' ? (winner.active ?? true) : winner[key];
    if (json(mine) !== json(theirs)) return false;
  }
  return true;
}

/**
 * A handler's body (values in clear) in stored form where it repeats a version's value: that
 * version's stored value is reused, so an encrypted value is not sealed anew (a fresh IV would
 * make each device's resolution a different revision).
 */
export function storedFormOf(body: Record<string, unknown>, sides: readonly Side[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const same = sides.find((side) => json(side.read[key]) === json(value) && !unreadable(side.read[key]));
    out[key] = same ? same.raw[key] : value;
  }
  return out;
}
