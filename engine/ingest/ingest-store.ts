import { DocstackError } from '../../contracts/errors.js';
import type { IngestDoc } from '../../kernel/hooks.js';
import { addDelta, type ClassCounts } from '../indexes/class-counts.js';
import { planClaims, type ClaimEntry } from '../indexes/key-claims.js';
import { uniqueViolation, type KeyEntryWrite, type PrimaryKeyIndex } from '../indexes/primary-keys.js';
import { revisionDelta, settleCounts } from './ingest-counts.js';
import type { HeldReason } from './ingest-held.js';
import { isEngineClassName, type ClassModel, type Doc } from '../../contracts/model.js';
import { editOutsideIds, inClassRange } from '../../storage/class-ids.js';
import type { WriteRequest } from '../../kernel/pipeline.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { Database } from '../../storage/database.js';

/**
 * One line per document given, in order: stored (with its revision), held (`ok`: the peer may
 * move on; stored once what it waits for arrives) or refused (with why).
 */
export type IngestResult =
  | { id: string; ok: true; rev: string; held?: HeldReason }
  | { id: string; ok: false; code: string; reason: string; status: number };

export type Kind = 'local' | 'class' | 'handled' | 'tombstone' | 'document';

/** One document of an ingest, as the kernel sorts and checks it. */
export interface Entry {
  index: number;
  doc: IngestDoc;
  previous?: Doc;
  kind: Kind;
  model?: ClassModel;
  request?: WriteRequest;
  /** IngestItem.onStored of a handled document */
  onStored?: () => Promise<void>;
}

interface StoreParts {
  db: Database;
  primaryKeys: PrimaryKeyIndex;
  counts: ClassCounts;
  stack: StackPort;
}

/**
 * Stores the batch's documents in one bulkDocs call with their primary-key entries and class
 * counters (inside the store's write lock); ids outside their class's range are listed first. Keys are planned as a local write would
 * (planClaims) and read first: a key another live document owns refuses (or reports) that
 * document alone, before anything is written. Counters take each revision's known change; a
 * revision beside the stored winner is settled once stored.
 */
export async function storeDocuments(
  deps: StoreParts,
  keyed: Entry[],
  rest: () => Entry[],
  how: { newEdits: boolean; keyConflicts: 'refuse' | 'report'; tombstones: Map<string, string> },
  refuse: (e: Entry, err: unknown) => void,
  results: (IngestResult | undefined)[],
): Promise<Entry[]> {
  const { primaryKeys, stack, counts } = deps;
  const plan = planClaims(keyed.map((e): ClaimEntry | null => (e.model ? { model: e.model, next: e.kind === 'tombstone' ? null : (e.doc as unknown as Doc), previous: e.previous } : null)));
  const report = (claim: { docId: string; className: string; attributes: string[] }, owner: unknown) => stack.emit('index:conflict', { id: claim.docId, className: claim.className, attributes: claim.attributes, owner });
  for (const { index, claim, first, error } of plan.duplicates) {
    if (how.keyConflicts === 'refuse') refuse(keyed[index], error);
    else report(claim, first);
  }
  const byDoc = new Map(keyed.map((e, i) => [e.doc._id, i]));
  const keys = await primaryKeys.prepare(plan.claims, plan.releases.map((claim) => ({ index: byDoc.get(claim.docId) ?? -1, claim })));
  for (const { index, claim, owner } of keys.conflicts) {
    if (how.keyConflicts === 'refuse') refuse(keyed[index], uniqueViolation(claim, owner));
    else report(claim, owner);
  }
  // every refusal so far has its result line: what has none is stored
  const pending = rest();
  if (pending.length === 0) return [];
  const storing = new Set(pending);
  const keyWrites = keys.writes.filter((w) => storing.has(keyed[w.index]));

  const seen = new Map<string, number>();
  for (const e of pending) seen.set(e.doc._id, (seen.get(e.doc._id) ?? 0) + 1);
  const deltas = new Map<string, number>();
  const known = new Map<Entry, number>();
  const unsettled: Entry[] = [];
  for (const e of pending) {
    if (!e.model) continue;
    const delta = revisionDelta(e.doc, e.previous, how.tombstones.get(e.doc._id), how.newEdits, seen.get(e.doc._id)! > 1);
    if (delta === null) unsettled.push(e);
    else if (delta !== 0) {
      known.set(e, delta);
      addDelta(deltas, e.model.name, delta < 0, delta > 0);
    }
  }
  await editOutsideIds(deps.db, outsideOf(pending), true);
  const counters = await counts.entries(deltas);
  const locals = [...keyWrites.map((w) => ({ ...w.entry })), ...counters.map((c) => ({ ...c }))];
  const answers = await deps.db.bulkDocs([...locals, ...pending.map((e) => e.doc)] as never[], { new_edits: how.newEdits });
  const { stored, localFailed } = record(pending, locals, answers, how.newEdits, results);
  // without new_edits PouchDB answers failures only: a counter written has the next `_local` revision
  counts.written(deltas, counters, counters.map((c, i) => (localFailed.has(c._id) ? null : how.newEdits ? (answers[keyWrites.length + i] as { rev: string }).rev : nextLocalRev(c._rev))));

  // what the counts could not know before the call: failed documents, settled revisions (apply also persists a counter whose write failed)
  const correction = new Map<string, number>();
  for (const [e, delta] of known) if (!stored.has(e)) addDelta(correction, e.model!.name, delta > 0, delta < 0);
  const settled = await settleCounts(
    deps.db,
    unsettled.filter((e) => stored.has(e)).map((e) => ({ doc: e.doc, rev: (results[e.index] as { rev: string }).rev, previous: e.previous, className: e.model!.name })),
  );
  for (const [name, d] of settled) correction.set(name, (correction.get(name) ?? 0) + d);
  await counts.apply(correction);
  await afterKeys(deps, keyWrites, keyed, stored, localFailed);
  return pending.filter((e) => stored.has(e));
}

/** The documents of user classes given an id outside their class's range, by class (listed ahead of the call). */
function outsideOf(pending: readonly Entry[]): Map<string, string[]> {
  const byClass = new Map<string, string[]>();
  for (const { doc, kind } of pending) {
    const className = doc['~class'];
    if ((kind !== 'document' && kind !== 'handled') || typeof className !== 'string' || isEngineClassName(className) || inClassRange(className, doc._id)) continue;
    byClass.set(className, [...(byClass.get(className) ?? []), doc._id]);
  }
  return byClass;
}

/**
 * Key entries that did not hold: a claim taken meanwhile by another process (its document is
 * stored: reported as a key clash), a release of a document that was not stored (put back).
 */
async function afterKeys(deps: StoreParts, keyWrites: KeyEntryWrite[], keyed: Entry[], stored: Set<Entry>, localFailed: Set<string>): Promise<void> {
  const restores: object[] = [];
  for (const w of keyWrites) {
    const entry = keyed[w.index];
    if (w.claim && localFailed.has(w.entry._id) && stored.has(entry)) {
      deps.stack.emit('index:conflict', { id: w.claim.docId, className: w.claim.className, attributes: w.claim.attributes, owner: '(a concurrent writer)' });
    }
    if (w.restore && !stored.has(entry) && !localFailed.has(w.entry._id)) restores.push({ ...w.restore });
  }
  if (restores.length > 0) await deps.db.bulkDocs(restores as never[]);
  await deps.primaryKeys.released(keyWrites.filter((w) => !localFailed.has(w.entry._id) && stored.has(keyed[w.index])));
}

/**
 * Records each document's result from a bulkDocs answer (every line with new_edits, only the
 * failures without it, as CouchDB does); returns the entries stored and the `_local` ids that failed.
 */
function record(pending: Entry[], locals: { _id: string }[], answers: unknown[], newEdits: boolean, results: (IngestResult | undefined)[]): { stored: Set<Entry>; localFailed: Set<string> } {
  type Answer = { id?: string; rev?: string; error?: unknown; name?: string; status?: number; message?: string; reason?: string };
  const failures = new Map<string, Answer>();
  const localFailed = new Set<string>();
  const localIds = new Set(locals.map((l) => l._id));
  (answers as Answer[]).forEach((answer, i) => {
    const id = newEdits ? (i < locals.length ? locals[i]._id : pending[i - locals.length].doc._id) : answer.id;
    if (!answer.error || id === undefined) return;
    if (localIds.has(id)) localFailed.add(id);
    else failures.set(id, answer);
  });
  const stored = new Set<Entry>();
  pending.forEach((entry, i) => {
    const failure = failures.get(entry.doc._id);
    if (failure) {
      const status = failure.status ?? 500;
      const code = status === 409 ? 'DS_DOC_CONFLICT' : 'DS_DOC_INVALID';
      results[entry.index] = { id: entry.doc._id, ok: false, code, reason: failure.reason ?? failure.message ?? String(failure.name ?? 'storage error'), status };
      return;
    }
    const answer = newEdits ? (answers as Answer[])[locals.length + i] : undefined;
    results[entry.index] = { id: entry.doc._id, ok: true, rev: answer?.rev ?? entry.doc._rev ?? '' };
    stored.add(entry);
  });
  return { stored, localFailed };
}

/** Stores documents as they came; returns the entries stored and records every result. */
export async function storeAsCame(deps: StoreParts, entries: Entry[], newEdits: boolean, results: (IngestResult | undefined)[]): Promise<Entry[]> {
  const pending = entries.filter((e) => results[e.index] === undefined);
  if (pending.length === 0) return [];
  const answers = await deps.db.bulkDocs(pending.map((e) => e.doc) as never[], { new_edits: newEdits });
  const written: Entry[] = [];
  pending.forEach((entry, i) => {
    const answer = answers[i] as { rev?: string; error?: unknown; name?: string; status?: number; message?: string; reason?: string } | undefined;
    if (answer?.error) {
      const status = answer.status ?? 500;
      const code = status === 409 ? 'DS_DOC_CONFLICT' : 'DS_DOC_INVALID';
      results[entry.index] = { id: entry.doc._id, ok: false, code, reason: answer.reason ?? answer.message ?? String(answer.name ?? 'storage error'), status };
      return;
    }
    results[entry.index] = { id: entry.doc._id, ok: true, rev: answer?.rev ?? entry.doc._rev ?? '' };
    written.push(entry);
  });
  return written;
}

/** The revision PouchDB gives a `_local` document written over `rev` ("0-N" → "0-N+1"). */
function nextLocalRev(rev: string | undefined): string {
  return `0-${rev ? Number(rev.split('-')[1]) + 1 : 1}`;
}
