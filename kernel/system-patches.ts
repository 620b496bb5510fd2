import type { Clock } from '../contracts/clock.js';
import { nowIso } from './drafts.js';
import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { Storage } from '../storage/facade.js';
import type { SystemPatch } from './patch-types.js';

const RECORD_ID = '_local/~system-patches';

interface PatchRecord {
  _id: string;
  _rev?: string;
  applied: { id: string; at: string }[];
}

/**
 * Applies the system patches this database has not recorded yet, recording each as it
 * lands (a crash between two patches resumes at the second). Returns how many are applied
 * in all. When `expectedCount` is set (PATCH_COUNT), a different total refuses to open: a
 * deployment pinned to a patch level must not run against another one unnoticed.
 */
export async function applySystemPatches(
  storage: Storage,
  expectedCount: number | undefined,
  clock: Clock,
  patches: readonly SystemPatch[],
): Promise<number> {
  const record = await readRecord(storage);
  const done = new Set(record.applied.map((p) => p.id));
  for (const patch of patches) {
    if (done.has(patch.id)) continue;
    const now = nowIso(clock);
    await patch.apply({ storage, now });
    record.applied.push({ id: patch.id, at: now });
    record._rev = await storage.put(record);
  }
  const count = record.applied.length;
  if (expectedCount !== undefined && count !== expectedCount) {
    throw KERNEL_ERRORS.stackPatchCount(
      `PATCH_COUNT is ${expectedCount} but ${count} system patch${count === 1 ? ' is' : 'es are'} applied to this database; ` +
        'deploy the engine version that matches the data, or update PATCH_COUNT.',
      { details: { expected: expectedCount, applied: count } },
    );
  }
  return count;
}

async function readRecord(storage: Storage): Promise<PatchRecord> {
  return (await storage.get<PatchRecord>(RECORD_ID)) ?? { _id: RECORD_ID, applied: [] };
}

/** PATCH_COUNT from the options, else from the environment where there is one (Node). */
export function expectedPatchCount(option: number | undefined): number | undefined {
  if (option !== undefined) return option;
  const raw = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.PATCH_COUNT;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw KERNEL_ERRORS.stackOptionsInvalid(`PATCH_COUNT must be a whole number, not "${raw}".`);
  }
  return n;
}
