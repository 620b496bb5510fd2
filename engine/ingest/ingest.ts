import type { ClassCache } from '../class-cache.js';
import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { AdmitContext, IngestDoc, IngestItem, KernelHooks, WriteContext, WriteOrigin } from '../../kernel/hooks.js';
import type { WriteSession } from '../../contracts/hooks.js';
import type { ClassCounts } from '../indexes/class-counts.js';
import type { PrimaryKeyIndex } from '../indexes/primary-keys.js';
import { storeAsCame, storeDocuments, type Entry, type IngestResult, type Kind } from './ingest-store.js';
import { ingestClasses } from './ingest-classes.js';
import { answersOf, HeldStore, holdReason, type HeldEntry, type HeldReason } from './ingest-held.js';
import { idOf, refusal, refusedNames, refuseWaitingForRefused } from './ingest-lines.js';
import { checkDocId, nowIso } from '../../kernel/drafts.js';
import { refuseOtherClassId } from '../write-parts/class-ids.js';
import { CLASS_META, SELF_META, isEngineClassName, type ClassModel, type Doc } from '../../contracts/model.js';
import type { DocChangeEvent, WriteExtras, WriteRequest } from '../../kernel/pipeline.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { Database } from '../../storage/database.js';
import type { Storage } from '../../storage/facade.js';
import type { WriteLock } from '../../storage/write-lock.js';
import { storedWinners } from '../../storage/winners.js';
import type { WriteOptions } from '../../kernel/stack.js';
import { ConflictResolver, type ConflictHandler } from '../conflicts/auto.js';
import { arrivedBeside } from './ingest-conflicts.js';

export interface IngestOptions {
  /** default 'replication': plugins tell a peer's documents from the caller's by it */
  origin?: WriteOrigin;
  /** false (the default): revisions are kept as the peer made them, as CouchDB's `new_edits: false` */
  newEdits?: boolean;
  /** who sends the documents, for the `admit` taps (the node passes the pushing user) */
  session?: WriteSession;
  /**
   * A document whose primary key another live document owns here: 'refuse' it (the default: a
   * node keeps keys unique) or store it and 'report' the clash (`index:conflict` on the stack:
   * a client pulling from its node, which has already decided).
   */
  keyConflicts?: 'refuse' | 'report';
  /**
   * true (the default): a document waiting for something not here yet (its class, a foreign
   * key's target, a domain, a relation end) is held (engine/ingest/ingest-held.ts) and applied when it
   * arrives; false refuses it with its code. Only revisions kept as they came can be held.
   */
  hold?: boolean;
}

export type { IngestResult } from './ingest-store.js';
export type { HeldEntry } from './ingest-held.js';

interface IngestDeps {
  db: Database;
  hooks: KernelHooks;
  classCache: ClassCache;
  primaryKeys: PrimaryKeyIndex;
  counts: ClassCounts;
  lock: WriteLock;
  stack: StackPort;
  storage: Storage;
  check(requests: WriteRequest[], origin: WriteOrigin, extras: WriteExtras): Promise<unknown>;
  /** a pipeline write (a class's conflict policy resolving what arrived) */
  write(requests: WriteRequest[], options: WriteOptions): Promise<Doc[]>;
}

const isClassDoc = (doc: Record<string, unknown>) => doc['~class'] === CLASS_META || doc['~class'] === SELF_META;

/**
 * The one path for documents stored with their peer's revisions (the node's `_bulk_docs` and
 * `PUT`, `stack.sync` pulling): each document is admitted (the `admit` taps: the node's
 * authorization, plugins owning class-less documents), class documents are stored first, in
 * the order their foreign keys ask (./ingest-classes.ts), the rest is validated as a write of
 * its origin — seeing the documents of the same batch — its primary key claimed, stored as it
 * came, and announced (`change` events, `afterWrite`) once. A document waiting for something
 * not here yet is held (./ingest-held.ts) and retried as soon as it arrives; a refused one gets
 * its own result; the others of the batch go on.
 */
export class Ingestor {
  readonly held: HeldStore;
  /** releases started by this stack's own writes (a local write may be what a held document waits for) */
  private background: Promise<unknown> = Promise.resolve();
  private arrived: string[] | undefined; // stored since the release queued last was asked for (changed)

  /** the class conflict policies, applied to what arrivals put in conflict (docs/conflicts.md) */
  private readonly conflicts: ConflictResolver;

  constructor(private readonly deps: IngestDeps) {
    this.held = new HeldStore(deps.storage);
    const { stack } = deps;
    this.conflicts = new ConflictResolver({
      db: deps.db,
      lock: deps.lock,
      clock: stack.clock,
      systemFields: stack.systemFields,
      stack,
      requireClass: (name) => stack.requireClass(name),
      write: deps.write,
      emit: (event, payload) => stack.emit(event, payload),
    });
    // a bound method, not a closure per stack: it runs on every write (docs/benchmarks.md#code-shared-by-every-stack)
    const onChange = this.changed.bind(this);
    stack.on('change', onChange);
    stack.once('closed', () => stack.off('change', onChange));
  }

  /** A document this stack stored: what was held for it may be stored now. */
  private changed(e: DocChangeEvent): void {
    if (e.origin === 'replication' || this.held.knownEmpty) return; // an ingest releases what it stored itself
    const names = answersOf((e.doc as Record<string, unknown> | undefined) ?? { _id: e.id });
    // a run of writes joins one release (a promise chain per document cost a fresh stack's bulk write)
    if (this.arrived) return void this.arrived.push(...names);
    const arrived = (this.arrived = names);
    this.background = this.background
      .then(() => ((this.arrived = undefined), this.releaseFor(arrived, new Set())))
      .then(() => this.conflicts.settle())
      .catch(() => undefined);
  }

  /** Registers a conflict handler a class can name as its policy (`conflicts: name`). */
  registerConflictHandler(name: string, handler: ConflictHandler): void {
    this.conflicts.handlers.register(name, handler);
  }

  /** The documents held now, once the releases under way are done (and those whose wait is over released). */
  async heldDocuments(): Promise<HeldEntry[]> {
    await this.background;
    await this.releaseFor(await this.held.present(), new Set());
    return this.held.list();
  }

  async ingest(input: readonly unknown[], options: IngestOptions = {}, retrying = false): Promise<IngestResult[]> {
    const origin = options.origin ?? 'replication';
    const newEdits = options.newEdits === true;
    const keyConflicts = options.keyConflicts ?? 'refuse';
    const extras: WriteExtras = options.session !== undefined ? { session: options.session } : {};
    const results: (IngestResult | undefined)[] = new Array(input.length);
    const refuse = (entry: { index: number; doc?: unknown }, err: unknown) => {
      results[entry.index] = refusal(idOf(entry.doc), err);
    };
    // what waits for something not here yet is held (only a revision kept as it came can be)
    const holding: { entry: Entry; reason: HeldReason; err: unknown }[] = [];
    const refuseOrHold = async (entry: Entry, err: unknown) => {
      const reason = !newEdits && options.hold !== false ? holdReason(entry.doc, err) : null;
      if (reason) {
        holding.push({ entry, reason, err });
        results[entry.index] = { id: entry.doc._id, ok: true, rev: String(entry.doc._rev ?? ''), held: reason };
      } else refuse(entry, err);
    };

    const entries: Entry[] = [];
    input.forEach((doc, index) => {
      if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || typeof (doc as IngestDoc)._id !== 'string' || (doc as IngestDoc)._id === '') {
        refuse({ index, doc }, KERNEL_ERRORS.docInvalid('A document must be a JSON object with a string _id.'));
      } else entries.push({ index, doc: doc as IngestDoc, kind: 'document' });
    });

    const { found: stored, tombstones } = await storedWinners(this.deps.db, entries.map((e) => e.doc._id).filter((id) => !id.startsWith('_local/')));
    const admitCtx: AdmitContext = { stack: this.deps.stack, origin, newEdits, ...extras, ...(retrying ? { held: true } : {}) };
    const admitted = await this.admit(entries, stored, admitCtx, refuseOrHold, results);
    const notAdmitted = refusedNames(entries, results);

    const written: Entry[] = [];
    await ingestClasses(
      this.deps.stack,
      admitted.filter((e) => e.kind === 'class'),
      async (classes) => {
        written.push(...(await storeAsCame(this.deps, classes, newEdits, results)));
        for (const entry of classes) this.deps.classCache.invalidate(entry.doc._id);
      },
      refuseOrHold,
    );

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
    written.push(...(await this.deps.lock(() => storeDocuments(this.deps, keyed, rest, { newEdits, keyConflicts, tombstones }, refuse, results))));
    if (!newEdits) for (const id of arrivedBeside(written, stored)) this.conflicts.note(id);

    await this.announce(written, results, origin, extras);
    refuseWaitingForRefused(notAdmitted, written, holding, refuse);
    await this.keep(holding.filter((h) => results[h.entry.index]?.ok), { origin, keyConflicts }, refuse, retrying);
    await this.held.supersede(written.map((e) => e.doc));
    await this.reportRefused(input, results);
    if (!retrying) {
      const fresh = new Set(holding.filter((h) => results[h.entry.index]?.ok).map((h) => heldKey(h.entry.doc)));
      // what this batch stored or held, and what arrived meanwhile by a path that does not announce itself
      const names = [...written.flatMap((e) => answersOf(e.doc)), ...holding.map((h) => h.entry.doc._id), ...(await this.held.present())];
      const outcome = await this.releaseFor(names, fresh);
      // held and released by the same call: the caller sees it stored (or refused), no events
      for (const h of holding) {
        const line = outcome.get(heldKey(h.entry.doc));
        if (line) results[h.entry.index] = line;
        else if (fresh.has(heldKey(h.entry.doc))) this.deps.stack.emit('ingest:held', { id: h.entry.doc._id, rev: String(h.entry.doc._rev ?? ''), ...h.reason, since: nowIso(this.deps.stack.clock) });
      }
      // what arrived beside a stored version: its class's policy resolves it here, first seen
      await this.conflicts.settle();
    }
    return results as IngestResult[];
  }

  /**
   * The `refused` taps (the transactions plugin resolves a peer's transaction without a refused
   * member): what this call refused itself. A held document refused later is reported by the
   * retry that refused it, whichever call released it.
   */
  private async reportRefused(input: readonly unknown[], results: (IngestResult | undefined)[]): Promise<void> {
    const { hooks, stack } = this.deps;
    if (!hooks.refused.isUsed()) return;
    const refused = results.flatMap((r, i) => (r && !r.ok ? [{ doc: input[i], id: r.id, code: r.code, reason: r.reason }] : []));
    if (refused.length > 0) await hooks.refused.promise(refused, stack);
  }

  /** Holds what waits; a document the held record has no room for is refused with its own code. */
  private async keep(holding: { entry: Entry; reason: HeldReason; err: unknown }[], how: { origin: WriteOrigin; keyConflicts: 'refuse' | 'report' }, refuse: (e: Entry, err: unknown) => void, retried: boolean): Promise<void> {
    if (holding.length === 0) return;
    const since = nowIso(this.deps.stack.clock);
    const full = await this.held.add(holding.map((h) => ({ doc: h.entry.doc, reason: h.reason, ...how, since })), retried);
    for (const h of holding) if (full.has(h.entry.doc)) refuse(h.entry, h.err);
  }

  /**
   * Retries the held documents waiting for `names` (and what they in turn release). Returns the
   * final line of each document `fresh` names (held by the calling ingest, not announced yet);
   * the others announce `ingest:released` or `ingest:refused`.
   */
  private async releaseFor(names: string[], fresh: Set<string>): Promise<Map<string, IngestResult>> {
    const outcome = new Map<string, IngestResult>();
    if (names.length === 0 || !(await this.held.waitsFor(names))) return outcome;
    const { stack } = this.deps;
    await this.held.release(names, async (items) => {
      const storedIds: string[] = [];
      for (const group of groupBy(items, (i) => `${i.origin}|${i.keyConflicts}`)) {
        const results = await this.ingest(group.map((i) => i.doc), { origin: group[0].origin, keyConflicts: group[0].keyConflicts }, true);
        results.forEach((r, i) => {
          const item = group[i];
          if (r.ok && r.held) return; // still waiting: held again by that ingest
          if (r.ok) storedIds.push(...answersOf(item.doc));
          if (fresh.has(heldKey(item.doc))) outcome.set(heldKey(item.doc), r.ok ? { id: r.id, ok: true, rev: r.rev } : r);
          else if (r.ok) stack.emit('ingest:released', { id: r.id, rev: r.rev });
          else stack.emit('ingest:refused', { id: r.id, rev: item.rev, code: r.code, reason: r.reason });
        });
      }
      return storedIds;
    });
    return outcome;
  }

  /** The admit taps, document by document; what they let through is sorted by kind. */
  private async admit(entries: Entry[], stored: Map<string, Doc>, ctx: AdmitContext, refuse: (e: Entry, err: unknown) => Promise<void>, results: (IngestResult | undefined)[]): Promise<Entry[]> {
    const admitted: Entry[] = [];
    for (const entry of entries) {
      const previous = stored.get(entry.doc._id);
      const item: IngestItem = { doc: entry.doc, ...(previous ? { previous } : {}), handled: false };
      try {
        await this.deps.hooks.admit.promise(item, ctx);
      } catch (err) {
        await refuse(entry, err);
        continue;
      }
      if (item.ignored && !ctx.newEdits) {
        results[entry.index] = { id: entry.doc._id, ok: true, rev: String(entry.doc._rev ?? '') };
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
      admitted.push({ ...entry, kind, ...(previous ? { previous } : {}), ...(item.onStored ? { onStored: item.onStored } : {}) });
    }
    return admitted;
  }

  /** The write request a peer's revision stands for (its class must exist here). */
  private async requestFor(entry: Entry): Promise<WriteRequest> {
    const { doc, previous } = entry;
    const className = doc['~class'];
    if (typeof className !== 'string' || className === '') {
      throw KERNEL_ERRORS.classMissing('A document needs a "~class" naming its class.', { path: '~class' });
    }
    const model = await this.deps.classCache.get(className);
    if (!model && isEngineClassName(className)) {
      // a plugin's class is made by its own patch on each peer: waiting for it would be forever
      throw KERNEL_ERRORS.classNotHere(`"${className}" is a system class of a plugin this stack does not load: its document is refused.`, { details: { className } });
    }
    if (!model || !isClassDoc(model as unknown as Record<string, unknown>) || model.active === false) {
      throw KERNEL_ERRORS.classNotFound(`There is no class named ${JSON.stringify(className)} here.`, { details: { className } });
    }
    // a peer's id outside the class's range is taken as createDoc takes one (listed when stored)
    checkDocId(doc._id, className);
    if (!previous && !doc._id.startsWith(`${className}-`)) await refuseOtherClassId(doc._id, className, (name) => this.deps.classCache.get(name));
    // `_attachments` stays: the attachments part checks a peer's files against the class like a local write's
    const { _revisions: _r, _conflicts: _c, ...draft } = doc;
    const deleting = doc.active === false && previous !== undefined && previous.active !== false;
    return { op: deleting ? 'delete' : previous ? 'update' : 'create', draft: draft as unknown as Doc, ...(previous ? { previous } : {}), classModel: model };
  }

  /**
   * The pipeline's checks (a dry run): the whole batch at once, one by one only when it fails.
   * Each document sees the others of the batch still standing (a foreign key may name one):
   * when one is refused or held, the rest are checked again without it.
   */
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
    let standing = entries;
    for (;;) {
      const siblings = standing.map((e) => e.request!.draft);
      const failed = new Map<Entry, unknown>();
      for (const entry of standing) {
        try {
          await this.deps.check([entry.request!], origin, { ...extras, siblings });
        } catch (err) {
          failed.set(entry, err);
        }
      }
      if (failed.size === 0) return standing;
      for (const [entry, err] of failed) await refuse(entry, err);
      standing = standing.filter((e) => !failed.has(e));
      // checked again only when one still standing names a document that just fell out
      const gone = new Set([...failed.keys()].map((e) => e.doc._id));
      if (!standing.some((e) => namesAny(e.request!.draft, gone))) return standing;
    }
  }

  /** A `change` event for each stored document of a class, then afterWrite for the validated ones. */
  private async announce(written: Entry[], results: (IngestResult | undefined)[], origin: WriteOrigin, extras: WriteExtras): Promise<void> {
    const { hooks, stack } = this.deps;
    const docs = written.map((e) => ({ ...e.doc, _rev: (results[e.index] as { rev: string }).rev }) as unknown as Doc);
    const batch = { drafts: docs, scratch: new Map<string, unknown>() };
    for (let i = 0; i < written.length; i++) {
      const entry = written[i];
      const className = entry.kind === 'class' ? (entry.doc['~class'] as string) : (entry.model?.name ?? entry.previous?.['~class']);
      await entry.onStored?.();
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


/** Whether a draft's values (a string, or a list of them) name one of these ids. */
function namesAny(draft: Doc, ids: Set<string>): boolean {
  return Object.values(draft).some((v) => (typeof v === 'string' ? ids.has(v) : Array.isArray(v) && v.some((x) => typeof x === 'string' && ids.has(x))));
}

const heldKey = (doc: IngestDoc) => `${doc._id}@${String(doc._rev ?? '')}`;

function groupBy<T>(items: T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return [...groups.values()];
}
