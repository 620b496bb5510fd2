import { DocstackError, KERNEL_ERRORS } from '../../contracts/errors.js';
import type { IngestDoc, WriteOrigin } from '../../kernel/hooks.js';
import { DOMAIN_META, domainDocId } from '../../contracts/model.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { Storage } from '../../storage/facade.js';

/** What `stack.heldDocuments()` lists and `ingest:held` announces: a peer's document kept aside. */
export interface HeldEntry {
  id: string;
  rev: string;
  /** the code the document would have been refused with (DS_CLASS_NOT_FOUND, DS_VALIDATION_FOREIGN_KEY, …) */
  code: string;
  reason: string;
  /** what it waits for: class names, document ids (a domain: its document id, `domain-<name>`) */
  waitingFor: string[];
  /** when it was first held (ISO) */
  since: string;
}

/** Why a document is held, on its ingest result line (`ok: true`: the replicator moves on). */
export type HeldReason = Pick<HeldEntry, 'code' | 'reason' | 'waitingFor'>;

interface HeldItem extends HeldEntry {
  doc: IngestDoc;
  origin: WriteOrigin;
  keyConflicts: 'refuse' | 'report';
  /** the revision of the class it waits a newer version of, when it was held (schema ahead) */
  seen?: Record<string, string>;
}

interface HeldRecord {
  _id: string;
  _rev?: string;
  items: HeldItem[];
}

const HELD_ID = '_local/~ingest-held';
/** where the patches plugin kept held documents before this record existed */
const LEGACY_ID = '_local/~patches-held';
/** Past this many, a document is refused with its own code rather than held (a bound on the record). */
export const HELD_LIMIT = 5000;

/**
 * A missing thing that may still arrive, or null for a real refusal. Schema ahead (the class, or
 * one of its attributes, not here yet) is known by code; the plugins' checks name what is
 * missing in `details.waitingFor` (a foreign key's target document, a class a foreign_key names,
 * a domain, a relation end) — never for a target that is present but inactive or of another class.
 */
export function holdReason(doc: IngestDoc, err: unknown): HeldReason | null {
  if (!(err instanceof DocstackError)) return null;
  const details = (err.details ?? {}) as { waitingFor?: unknown; className?: unknown };
  let waitingFor: string[] = [];
  if (Array.isArray(details.waitingFor)) waitingFor = details.waitingFor.filter((w): w is string => typeof w === 'string' && w !== '');
  else if (err.code === 'DS_CLASS_NOT_FOUND' && typeof details.className === 'string') waitingFor = [details.className];
  else if (err.code === 'DS_VALIDATION_UNKNOWN_ATTRIBUTE' && typeof doc['~class'] === 'string') waitingFor = [doc['~class']];
  return waitingFor.length > 0 ? { code: err.code, reason: err.message, waitingFor: [...new Set(waitingFor)] } : null;
}

/**
 * The names a stored document answers in `waitingFor`: its id, and a domain's `domain-<name>`
 * (the same as its id, except for a domain document stored under another id by an older version).
 */
export function answersOf(doc: Record<string, unknown>): string[] {
  const out = [String(doc._id)];
  if (doc['~class'] === DOMAIN_META && typeof doc.name === 'string' && domainDocId(doc.name) !== doc._id) out.push(domainDocId(doc.name));
  return out;
}

/**
 * Of the documents about to be held, those waiting for something refused for good in the same
 * batch (`refused`: each refused name, a class name or an id, with its code) would wait for what
 * will not arrive: each is refused with DS_DEPENDENCY_REFUSED, and so, in turn, is what waits
 * for it. Returns the refusal of each such item (the others are held).
 */
export function refusedDependents<T extends { doc: IngestDoc; reason: HeldReason }>(items: readonly T[], refused: ReadonlyMap<string, string>): Map<T, DocstackError> {
  const out = new Map<T, DocstackError>();
  if (refused.size === 0) return out;
  const gone = new Map(refused);
  for (let grew = true; grew; ) {
    grew = false;
    for (const item of items) {
      if (out.has(item)) continue;
      const names = item.reason.waitingFor.filter((w) => gone.has(w));
      if (names.length === 0) continue;
      const list = names.map((id) => ({ id, code: gone.get(id)! }));
      const message = `${JSON.stringify(item.doc._id)} waits for ${list.map((d) => `${JSON.stringify(d.id)} (${d.code})`).join(', ')}, refused in the same batch.`;
      out.set(item, KERNEL_ERRORS.dependencyRefused(message, { details: { id: item.doc._id, refused: list } }));
      for (const name of answersOf(item.doc)) gone.set(name, 'DS_DEPENDENCY_REFUSED');
      grew = true;
    }
  }
  return out;
}

/**
 * The documents this replica holds (engine/ingest/ingest.ts): one `_local` record (never replicated,
 * at most HELD_LIMIT documents), kept in memory once read. `release` takes out the documents
 * waiting for something that just arrived — with the held documents they wait for, or that
 * wait for them, so a cycle is retried as one batch and validates against itself — and
 * ingests them again; what still waits is held again by that ingest.
 */
export class HeldStore {
  private record: HeldRecord | null = null;
  /** read-modify-write of the record, one at a time */
  private edits: Promise<unknown> = Promise.resolve();
  /** releases, one at a time (a release never waits on another: no cycle) */
  private releases: Promise<unknown> = Promise.resolve();

  constructor(private readonly storage: Storage) {}

  async list(): Promise<HeldEntry[]> {
    await this.releases;
    return (await this.read()).items.map(({ doc: _d, origin: _o, keyConflicts: _k, seen: _s, ...entry }) => ({ ...entry, waitingFor: [...entry.waitingFor] }));
  }

  /**
   * Keeps documents aside; returns those it had no room for (refused by the caller). `retried`:
   * held again by a release's retry, which validated against what is here now — what it waits
   * for that is present is then noted as seen (present() leaves it until it changes again; a
   * change during the retry is caught by the release queued behind it). A first hold notes
   * nothing as seen but schema ahead: present then means arrived since the check.
   */
  async add(items: { doc: IngestDoc; reason: HeldReason; origin: WriteOrigin; keyConflicts: 'refuse' | 'report'; since: string }[], retried = false): Promise<Set<IngestDoc>> {
    const names = [...new Set(items.flatMap((i) => i.reason.waitingFor))];
    const revs = new Map<string, string>();
    (await this.storage.getMany<{ _rev?: string }>(names)).forEach((doc, i) => doc?._rev && revs.set(names[i], doc._rev));
    return this.edit(async (record) => {
      const full = new Set<IngestDoc>();
      for (const { doc, reason, origin, keyConflicts, since } of items) {
        const rev = String(doc._rev ?? '');
        const before = record.items.find((i) => i.id === doc._id && i.rev === rev);
        if (!before && record.items.length >= HELD_LIMIT) {
          full.add(doc);
          continue;
        }
        record.items = record.items.filter((i) => i !== before);
        // what it waits for is here already only when it is here in an older version (schema
        // ahead) or as it was when a retry checked it; anything else it waits for was absent,
        // so present now means arrived meanwhile
        const seen = retried || reason.code === 'DS_VALIDATION_UNKNOWN_ATTRIBUTE' ? Object.fromEntries(reason.waitingFor.filter((w) => revs.has(w)).map((w) => [w, revs.get(w)!])) : {};
        record.items.push({ id: doc._id, rev, ...reason, since: before?.since ?? since, doc, origin, keyConflicts, seen });
      }
      return full;
    });
  }

  /**
   * The names held documents wait for that changed here since they were held (written by a path
   * that does not announce itself: Class.create, a patch, a store whose process died before its
   * release). Read only when some are held. Present in any state counts, inactive too: the
   * retry decides (a relation's end may be inactive; a foreign key's target may not).
   */
  async present(): Promise<string[]> {
    const items = (await this.read()).items;
    if (items.length === 0) return [];
    const names = [...new Set(items.flatMap((i) => i.waitingFor))];
    const found = await this.storage.getMany<{ _rev?: string }>(names);
    const now = new Map(names.map((name, i) => [name, found[i]?._rev]));
    return names.filter((name) => now.get(name) !== undefined && items.some((i) => i.waitingFor.includes(name) && i.seen?.[name] !== now.get(name)));
  }

  /** True when the record is read and holds nothing: every write of the stack asks, synchronously. */
  get knownEmpty(): boolean {
    return this.record !== null && this.record.items.length === 0;
  }

  /** Whether any held document waits for one of these names (a cheap test, from memory). */
  async waitsFor(names: Iterable<string>): Promise<boolean> {
    const items = (await this.read()).items;
    if (items.length === 0) return false;
    const wanted = new Set(names);
    return items.some((i) => i.waitingFor.some((w) => wanted.has(w)));
  }

  /**
   * Runs `retry` on the held documents waiting for `names` (their dependency closure among the
   * held ones), again with what each retry stored, until nothing more is released. Returns the
   * ids stored by the retries.
   */
  release(names: Iterable<string>, retry: (items: HeldItem[]) => Promise<string[]>): Promise<Set<string>> {
    const start = [...names];
    const run = this.releases.then(async () => {
      const stored = new Set<string>();
      let triggers = start;
      while (triggers.length > 0) {
        const taken = await this.take(triggers);
        if (taken.length === 0) break;
        triggers = await retry(taken);
        // out of the record only now that the retry stored (or refused, or held again) them: a
        // crash mid-retry (kill -9) leaves them held, never lost after the peer was told "held"
        await this.drop(taken);
        for (const id of triggers) stored.add(id);
      }
      return stored;
    });
    this.releases = run.catch(() => undefined);
    return run;
  }

  /** Drops held revisions a stored revision of the same document already descends from. */
  async supersede(stored: IngestDoc[]): Promise<void> {
    const items = (await this.read()).items;
    if (items.length === 0) return;
    const ancestors = new Map<string, Set<string>>();
    for (const doc of stored) {
      const revisions = doc._revisions as { start?: number; ids?: string[] } | undefined;
      if (!revisions?.ids || typeof revisions.start !== 'number') continue;
      ancestors.set(doc._id, new Set(revisions.ids.map((hash, i) => `${revisions.start! - i}-${hash}`)));
    }
    if (![...items].some((i) => ancestors.get(i.id)?.has(i.rev))) return;
    await this.edit(async (record) => {
      record.items = record.items.filter((i) => !ancestors.get(i.id)?.has(i.rev));
    });
  }

  /** The held documents to retry for these names (left in the record until `drop`). */
  private take(triggers: string[]): Promise<HeldItem[]> {
    return this.edit(async (record) => {
      const wanted = new Set(triggers);
      const chosen = new Set(record.items.filter((i) => i.waitingFor.some((w) => wanted.has(w))));
      if (chosen.size === 0) return [];
      // the closure: held documents the chosen wait for, and held documents waiting for the chosen
      for (let grew = true; grew; ) {
        grew = false;
        const ids = new Set([...chosen].map((i) => i.id));
        const waited = new Set([...chosen].flatMap((i) => i.waitingFor));
        for (const item of record.items) {
          if (chosen.has(item)) continue;
          if (waited.has(item.id) || item.waitingFor.some((w) => ids.has(w))) {
            chosen.add(item);
            grew = true;
          }
        }
      }
      return [...chosen];
    });
  }

  /** Removes retried items (these very entries: one held again by the retry is a new entry and stays). */
  private drop(taken: HeldItem[]): Promise<void> {
    const done = new Set(taken);
    return this.edit(async (record) => {
      record.items = record.items.filter((i) => !done.has(i));
    });
  }

  private edit<T>(change: (record: HeldRecord) => Promise<T>): Promise<T> {
    const run = this.edits.then(async () => {
      const record = await this.read();
      const before = JSON.stringify(record.items.map((i) => [i.id, i.rev, i.waitingFor]));
      const answer = await change(record);
      if (JSON.stringify(record.items.map((i) => [i.id, i.rev, i.waitingFor])) !== before) {
        record._rev = await this.storage.put(record as never);
      }
      return answer;
    });
    this.edits = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<HeldRecord> {
    this.loading ??= (async () => this.adoptPatchesRecord((await this.storage.get<HeldRecord>(HELD_ID)) ?? { _id: HELD_ID, items: [] }))();
    this.record ??= await this.loading;
    return this.record;
  }

  private loading: Promise<HeldRecord> | null = null;

  /**
   * Documents the patches plugin held before the kernel did (`_local/~patches-held`: schema
   * ahead, received by a client pulling) are taken over once, so none is lost by an upgrade.
   */
  private async adoptPatchesRecord(record: HeldRecord): Promise<HeldRecord> {
    const old = await this.storage.get<{ _id: string; _rev: string; docs?: IngestDoc[] }>(LEGACY_ID);
    if (!old) return record;
    const since = new Date().toISOString();
    for (const doc of old.docs ?? []) {
      if (record.items.length >= HELD_LIMIT || typeof doc['~class'] !== 'string') continue;
      const className = doc['~class'];
      record.items.push({ id: doc._id, rev: String(doc._rev ?? ''), code: 'DS_CLASS_NOT_FOUND', reason: `Held for the class ${JSON.stringify(className)} by an earlier version.`, waitingFor: [className], since, doc, origin: 'replication', keyConflicts: 'report' });
    }
    record._rev = await this.storage.put(record as never);
    await this.storage.remove(LEGACY_ID, old._rev);
    return record;
  }
}
