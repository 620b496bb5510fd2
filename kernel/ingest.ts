import type { ClassCache } from './class-cache.js';
import { DocstackError } from './errors.js';
import type { AdmitContext, IngestDoc, IngestItem, KernelHooks, WriteContext, WriteOrigin } from './hooks.js';
import { addDelta, type ClassCounts } from './indexes/class-counts.js';
import { planClaims, uniqueViolation, type ClaimEntry, type KeyEntryWrite, type PrimaryKeyIndex } from './indexes/primary-keys.js';
import { revisionDelta, settleCounts } from './ingest-counts.js';
import { checkClassDocument } from './model/class-check.js';
import { CLASS_META, isEngineClassName, SELF_META, type ClassModel, type Doc } from './model/types.js';
import type { DocChangeEvent, WriteExtras, WriteRequest } from './pipeline.js';
import type { ClientStack } from './stack.js';
import type { Database } from './storage.js';
import type { WriteLock } from './write-lock.js';
import { storedWinners } from './winners.js';

export interface IngestOptions {
  /** default 'replication': plugins tell a peer's documents from the caller's by it */
  origin?: WriteOrigin;
  /** false (the default): revisions are kept as the peer made them, as CouchDB's `new_edits: false` */
  newEdits?: boolean;
  /** who sends the documents, for the `admit` taps (the node passes the pushing user) */
  session?: unknown;
  /**
   * A document whose primary key another live document owns here: 'refuse' it (the default: a
   * node keeps keys unique) or store it and 'report' the clash (`index:conflict` on the stack:
   * a client pulling from its node, which has already decided).
   */
  keyConflicts?: 'refuse' | 'report';
  /**
   * true (the default): a document refused as ahead of this stack's schema may be kept aside by
   * a `hold` tap (the patches plugin) and ingested later. The node passes false: it answers a
   * pusher at once, and a held document would later be ingested without the pusher's session.
   */
  hold?: boolean;
}

/** One line per document given, in order: stored (with its revision) or refused (with why). */
export type IngestResult = { id: string; ok: true; rev: string } | { id: string; ok: false; code: string; reason: string; status: number };

type Kind = 'local' | 'class' | 'handled' | 'tombstone' | 'document';

interface Entry {
  index: number;
  doc: IngestDoc;
  previous?: Doc;
  kind: Kind;
  model?: ClassModel;
  request?: WriteRequest;
}

interface IngestDeps {
  db: Database;
  hooks: KernelHooks;
  classCache: ClassCache;
  primaryKeys: PrimaryKeyIndex;
  counts: ClassCounts;
  lock: WriteLock;
  stack: ClientStack;
  check(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras): Promise<unknown>;
}

const isClassDoc = (doc: Record<string, unknown>) => doc['~class'] === CLASS_META || doc['~class'] === SELF_META;

/**
 * The one path for documents stored with their peer's revisions (the node's `_bulk_docs` and
 * `PUT`, `stack.sync` pulling): each document is admitted (the `admit` taps: the node's
 * authorization, plugins owning class-less documents), class documents are stored first (a new
 * class often arrives with its first documents), the rest is validated as a write of its
 * origin, its primary key claimed, stored as it came, and announced (`change` events,
 * `afterWrite`) once. A refused document gets its own result; the others of the batch go on.
 */
export class Ingestor {
  constructor(private readonly deps: IngestDeps) {}

  async ingest(input: readonly unknown[], options: IngestOptions = {}): Promise<IngestResult[]> {
    const origin = options.origin ?? 'replication';
    const newEdits = options.newEdits === true;
    const extras: WriteExtras = options.session !== undefined ? { session: options.session } : {};
    const results: (IngestResult | undefined)[] = new Array(input.length);
    const refuse = (entry: { index: number; doc?: unknown }, err: unknown) => {
      results[entry.index] = refusal(idOf(entry.doc), err);
    };

    const entries: Entry[] = [];
    input.forEach((doc, index) => {
      if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || typeof (doc as IngestDoc)._id !== 'string' || (doc as IngestDoc)._id === '') {
        refuse({ index, doc }, new DocstackError('DS_DOC_INVALID', 'A document must be a JSON object with a string _id.'));
      } else entries.push({ index, doc: doc as IngestDoc, kind: 'document' });
    });

    const { found: stored, tombstones } = await storedWinners(this.deps.db, entries.map((e) => e.doc._id).filter((id) => !id.startsWith('_local/')));
    const admitted = await this.admit(entries, stored, { stack: this.deps.stack, origin, newEdits, ...extras }, refuse);

    const classes: Entry[] = [];
    for (const entry of admitted.filter((e) => e.kind === 'class')) {
      try {
        // the engine's own classes (`~…`, the meta-classes) are written by system patches on each peer
        if (!isEngineClassName(entry.doc._id)) await checkClassDocument(this.deps.stack, entry.doc, (entry.previous as unknown as ClassModel | undefined) ?? null);
        classes.push(entry);
      } catch (err) {
        refuse(entry, err);
      }
    }
    const written = await this.store(classes, newEdits, results);
    for (const entry of classes) this.deps.classCache.invalidate(entry.doc._id);

    // a document this stack cannot take yet may be held by a plugin: reported stored, taken later
    const admitCtx: AdmitContext = { stack: this.deps.stack, origin, newEdits, ...extras };
    const refuseOrHold = async (entry: Entry, err: unknown) => {
      const held = !newEdits && options.hold !== false && (await this.deps.hooks.hold.promise(entry.doc, err, admitCtx));
      if (held) results[entry.index] = { id: entry.doc._id, ok: true, rev: String(entry.doc._rev) };
      else refuse(entry, err);
    };
    const documents: Entry[] = [];
    for (const entry of admitted.filter((e) => e.kind === 'document')) {
      try {
        entry.request = await this.requestFor(entry);
        entry.model = entry.request.classModel;
        documents.push(entry);
      } catch (err) {
        await refuseOrHold(entry, err);
      }
    }
    const valid = await this.validate(documents, origin, extras, refuseOrHold);
    for (const entry of admitted.filter((e) => e.kind === 'tombstone')) entry.model = await this.modelOf(entry.previous);

    const keyed = [...valid, ...admitted.filter((e) => e.kind === 'tombstone')];
    const rest = () => admitted.filter((e) => e.kind !== 'class' && results[e.index] === undefined);
    const keyConflicts = options.keyConflicts ?? 'refuse';
    written.push(...(await this.deps.lock(() => this.storeDocuments(keyed, rest, { newEdits, keyConflicts, tombstones }, refuse, results))));

    await this.announce(written, results, origin, extras);
    return results as IngestResult[];
  }

  /** The admit taps, document by document; what they let through is sorted by kind. */
  private async admit(entries: Entry[], stored: Map<string, Doc>, ctx: AdmitContext, refuse: (e: Entry, err: unknown) => void): Promise<Entry[]> {
    const admitted: Entry[] = [];
    for (const entry of entries) {
      const previous = stored.get(entry.doc._id);
      const item: IngestItem = { doc: entry.doc, ...(previous ? { previous } : {}), handled: false };
      try {
        await this.deps.hooks.admit.promise(item, ctx);
      } catch (err) {
        refuse(entry, err);
        continue;
      }
      const { doc } = entry;
      const kind: Kind = doc._id.startsWith('_local/')
        ? 'local'
        : doc._deleted === true
          ? 'tombstone'
          : item.handled
            ? 'handled'
            : isClassDoc(doc)
              ? 'class'
              : 'document';
      admitted.push({ ...entry, kind, ...(previous ? { previous } : {}) });
    }
    return admitted;
  }

  /** The write request a peer's revision stands for (its class must exist here). */
  private async requestFor(entry: Entry): Promise<WriteRequest> {
    const { doc, previous } = entry;
    const className = doc['~class'];
    if (typeof className !== 'string' || className === '') {
      throw new DocstackError('DS_CLASS_MISSING', 'A document needs a "~class" naming its class.', { path: '~class' });
    }
    const model = await this.deps.classCache.get(className);
    if (!model || !isClassDoc(model as unknown as Record<string, unknown>) || model.active === false) {
      throw new DocstackError('DS_CLASS_NOT_FOUND', `There is no class named ${JSON.stringify(className)} here.`, { details: { className } });
    }
    if (!doc._id.startsWith(`${className}-`)) {
      throw new DocstackError('DS_DOC_ID_INVALID', `The _id of a ${className} document must start with "${className}-".`, { path: '_id', details: { id: doc._id } });
    }
    const { _revisions: _r, _attachments: _a, _conflicts: _c, ...draft } = doc;
    const deleting = doc.active === false && previous !== undefined && previous.active !== false;
    return { op: deleting ? 'delete' : previous ? 'update' : 'create', draft: draft as unknown as Doc, ...(previous ? { previous } : {}), classModel: model };
  }

  /** The pipeline's checks (a dry run): the whole batch at once, one by one only when it fails. */
  private async validate(entries: Entry[], origin: WriteOrigin, extras: WriteExtras, refuse: (e: Entry, err: unknown) => Promise<void>): Promise<Entry[]> {
    if (entries.length === 0) return [];
    try {
      await this.deps.check(
        entries.map((e) => e.request!),
        origin,
        extras,
      );
      return entries;
    } catch {
      // one refused draft fails a whole check: find which, so the others of the batch still pass
    }
    const valid: Entry[] = [];
    for (const entry of entries) {
      try {
        await this.deps.check([entry.request!], origin, extras);
        valid.push(entry);
      } catch (err) {
        await refuse(entry, err);
      }
    }
    return valid;
  }

  /**
   * Stores the batch's documents in one bulkDocs call with their primary-key entries and class
   * counters (inside the store's write lock). Keys are planned as a local write would
   * (planClaims) and read first: a key another live document owns refuses (or reports) that
   * document alone, before anything is written. Counters take each revision's known change; a
   * revision beside the stored winner is settled once stored.
   */
  private async storeDocuments(
    keyed: Entry[],
    rest: () => Entry[],
    how: { newEdits: boolean; keyConflicts: 'refuse' | 'report'; tombstones: Map<string, string> },
    refuse: (e: Entry, err: unknown) => void,
    results: (IngestResult | undefined)[],
  ): Promise<Entry[]> {
    const { primaryKeys, stack, counts } = this.deps;
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
    const counters = await counts.entries(deltas);
    const locals = [...keyWrites.map((w) => ({ ...w.entry })), ...counters.map((c) => ({ ...c }))];
    const answers = await this.deps.db.bulkDocs([...locals, ...pending.map((e) => e.doc)] as never[], { new_edits: how.newEdits });
    const { stored, localFailed } = this.record(pending, locals, answers, how.newEdits, results);
    // without new_edits PouchDB answers failures only: a counter written has the next `_local` revision
    counters.forEach((c, i) => counts.stored(c, localFailed.has(c._id) ? null : how.newEdits ? (answers[keyWrites.length + i] as { rev: string }).rev : nextLocalRev(c._rev)));

    // what the batch's counters could not hold: failed documents, a counter another process moved, settled revisions
    const correction = new Map<string, number>();
    for (const [e, delta] of known) if (!stored.has(e)) addDelta(correction, e.model!.name, delta > 0, delta < 0);
    for (const c of counters) {
      const name = c._id.slice('_local/~count/'.length);
      if (localFailed.has(c._id)) correction.set(name, (correction.get(name) ?? 0) + (deltas.get(name) ?? 0));
    }
    const settled = await settleCounts(
      this.deps.db,
      unsettled.filter((e) => stored.has(e)).map((e) => ({ doc: e.doc, rev: (results[e.index] as { rev: string }).rev, previous: e.previous, className: e.model!.name })),
    );
    for (const [name, d] of settled) correction.set(name, (correction.get(name) ?? 0) + d);
    if ([...correction.values()].some((d) => d !== 0)) await counts.apply(correction);
    await this.afterKeys(keyWrites, keyed, stored, localFailed);
    return pending.filter((e) => stored.has(e));
  }

  /**
   * Key entries that did not hold: a claim taken meanwhile by another process (its document is
   * stored: reported as a key clash), a release of a document that was not stored (put back).
   */
  private async afterKeys(keyWrites: KeyEntryWrite[], keyed: Entry[], stored: Set<Entry>, localFailed: Set<string>): Promise<void> {
    const restores: object[] = [];
    for (const w of keyWrites) {
      const entry = keyed[w.index];
      if (w.claim && localFailed.has(w.entry._id) && stored.has(entry)) {
        this.deps.stack.emit('index:conflict', { id: w.claim.docId, className: w.claim.className, attributes: w.claim.attributes, owner: '(a concurrent writer)' });
      }
      if (w.restore && !stored.has(entry) && !localFailed.has(w.entry._id)) restores.push({ ...w.restore });
    }
    if (restores.length > 0) await this.deps.db.bulkDocs(restores as never[]);
  }

  /**
   * Records each document's result from a bulkDocs answer (every line with new_edits, only the
   * failures without it, as CouchDB does); returns the entries stored and the `_local` ids that failed.
   */
  private record(pending: Entry[], locals: { _id: string }[], answers: unknown[], newEdits: boolean, results: (IngestResult | undefined)[]): { stored: Set<Entry>; localFailed: Set<string> } {
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
  private async store(entries: Entry[], newEdits: boolean, results: (IngestResult | undefined)[]): Promise<Entry[]> {
    const pending = entries.filter((e) => results[e.index] === undefined);
    if (pending.length === 0) return [];
    const answers = await this.deps.db.bulkDocs(pending.map((e) => e.doc) as never[], { new_edits: newEdits });
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

  /** A `change` event for each stored document of a class, then afterWrite for the validated ones. */
  private async announce(written: Entry[], results: (IngestResult | undefined)[], origin: WriteOrigin, extras: WriteExtras): Promise<void> {
    const { hooks, stack } = this.deps;
    const docs = written.map((e) => ({ ...e.doc, _rev: (results[e.index] as { rev: string }).rev }) as unknown as Doc);
    const batch = { drafts: docs, scratch: new Map<string, unknown>() };
    for (let i = 0; i < written.length; i++) {
      const entry = written[i];
      const className = entry.kind === 'class' ? (entry.doc['~class'] as string) : (entry.model?.name ?? entry.previous?.['~class']);
      if (entry.kind === 'local' || entry.kind === 'handled' || typeof className !== 'string') continue;
      const op = entry.request?.op ?? (entry.kind === 'tombstone' ? 'delete' : entry.previous ? 'update' : 'create');
      const doc = entry.kind === 'tombstone' ? docs[i] : await hooks.afterRead.promise(docs[i], { stack, ...(entry.model ? { classModel: entry.model } : {}) });
      stack.emit('change', { op, id: entry.doc._id, rev: docs[i]._rev, className, origin, doc } satisfies DocChangeEvent);
    }
    for (let i = 0; i < written.length; i++) {
      const entry = written[i];
      if (!entry.request) continue;
      const ctx: WriteContext = {
        op: entry.request.op,
        classModel: entry.request.classModel,
        ...(entry.previous ? { previous: entry.previous } : {}),
        origin,
        stack,
        batch,
        index: i,
        depth: 0,
        dryRun: false,
        opaque: new Set<string>(),
        ...extras,
      };
      await hooks.afterWrite.promise([docs[i]], ctx);
    }
  }

  private async modelOf(doc: Doc | undefined): Promise<ClassModel | undefined> {
    const name = doc?.['~class'];
    return typeof name === 'string' ? ((await this.deps.classCache.get(name)) ?? undefined) : undefined;
  }
}

/** The revision PouchDB gives a `_local` document written over `rev` ("0-N" → "0-N+1"). */
function nextLocalRev(rev: string | undefined): string {
  return `0-${rev ? Number(rev.split('-')[1]) + 1 : 1}`;
}

function idOf(doc: unknown): string {
  const id = (doc as { _id?: unknown } | null)?._id;
  return typeof id === 'string' ? id : '';
}

function refusal(id: string, err: unknown): IngestResult {
  if (err instanceof DocstackError) return { id, ok: false, code: err.code, reason: err.message, status: err.status };
  return { id, ok: false, code: 'DS_DOC_INVALID', reason: err instanceof Error ? err.message : String(err), status: 400 };
}
