import { primaryKeyAttributes, type ClassModel } from '../../contracts/model.js';
import type { Database } from '../../storage/database.js';
import { readRaw } from '../../storage/raw-reads.js';
import { storeKeyOf } from '../../storage/write-lock.js';

/**
 * Per class, how many primary-key entries a create under a natural id must look at: entries
 * naming a document whose id is not its key's natural id (random ids of older stores and SPEC
 * peers, an explicit `_id`) and claims a transaction holds ahead of its write (`holder`). A
 * document under its natural id has no entry (the document is the claim: storage refuses a
 * second create of the id), so a class whose count is 0 — every class of a store made since
 * natural ids, until such a document arrives — creates without reading anything first.
 *
 * The count may be too high, never too low: it is raised (and stored) before the entries it
 * counts are written and lowered only after they are removed, so a crash in between leaves it
 * high (a few reads more), never low (a missed holder). Kept as `_local/~pk-others/<Class>`
 * (does not replicate: each peer counts its own entries) and in memory per store of this
 * process, like the class counters. A store written before this count existed gets 0 when the
 * class has no active document (then no entry can name a live holder); otherwise the count is
 * unknown (Infinity) and every create reads its key entry first, as before.
 */
export interface HolderCountDoc {
  _id: string;
  _rev?: string;
  count: number;
}

const PREFIX = '_local/~pk-others/';
export const holderCountIdOf = (className: string): string => `${PREFIX}${className}`;

interface Known {
  count: number;
  rev?: string;
}

/** per store (adapter and name) of this process, per class */
const known = new Map<string, Map<string, Known>>();
/** per store: the count writes, one at a time (their `_local` revisions follow each other) */
const queues = new Map<string, Promise<unknown>>();

export class KeyHolders {
  private readonly cache: Map<string, Known>;
  private readonly storeKey: string;

  constructor(
    private readonly db: Database,
    /** the class's active documents (ClassCounts.count): 0 lets an older store start counting */
    private readonly activeCount: (className: string) => Promise<number>,
  ) {
    this.storeKey = storeKeyOf(db);
    let cache = known.get(this.storeKey);
    if (!cache) known.set(this.storeKey, (cache = new Map()));
    // a stack opening the store reads the counts again (the store may have been made anew, or
    // written by an older version): what is stored is never below the truth, what was cached may be
    cache.clear();
    this.cache = cache;
  }

  /** The class's count as last read or written here, without waiting (undefined: not known yet). */
  knownCount(className: string): number | undefined {
    return this.cache.get(className)?.count;
  }

  /** The class's count (Infinity: unknown, read every key entry). */
  async count(className: string): Promise<number> {
    const cached = this.cache.get(className);
    if (cached) return cached.count;
    return this.serial(async () => (await this.load(className)).count);
  }

  /** Raises the count before `n` counted entries are written (stored when it returns). */
  add(className: string, n: number): Promise<void> {
    return n > 0 ? this.change(className, n) : Promise.resolve();
  }

  /** Lowers the count after `n` counted entries were removed. */
  remove(className: string, n: number): Promise<void> {
    return n > 0 ? this.change(className, -n) : Promise.resolve();
  }

  private change(className: string, delta: number): Promise<void> {
    return this.serial(async () => {
      const current = this.cache.get(className) ?? (await this.load(className));
      if (Number.isFinite(current.count)) await this.apply(className, current, delta);
    });
  }

  private async load(className: string): Promise<Known> {
    const stored = await readRaw<HolderCountDoc>(this.db, holderCountIdOf(className));
    let found: Known;
    if (stored) found = { count: stored.count, rev: stored._rev };
    else if ((await this.activeCount(className)) === 0) found = await this.apply(className, { count: 0 }, 0);
    else found = { count: Infinity };
    this.cache.set(className, found);
    return found;
  }

  /** Stores base + delta at base's revision; when another process moved it, applies the delta to what it stored. */
  private async apply(className: string, base: Known, delta: number): Promise<Known> {
    const _id = holderCountIdOf(className);
    const count = Math.max(0, base.count + delta);
    try {
      const { rev } = await this.db.put({ _id, ...(base.rev ? { _rev: base.rev } : {}), count } as never);
      const saved = { count, rev };
      this.cache.set(className, saved);
      return saved;
    } catch (err) {
      if ((err as { status?: number }).status !== 409) throw err;
      const stored = await readRaw<HolderCountDoc>(this.db, _id);
      return this.apply(className, { count: stored?.count ?? 0, rev: stored?._rev }, delta);
    }
  }

  private serial<T>(section: () => Promise<T>): Promise<T> {
    const previous = queues.get(this.storeKey) ?? Promise.resolve();
    const run = previous.then(section, section);
    queues.set(this.storeKey, run.catch(() => undefined));
    return run;
  }
}

/**
 * Have the keyed classes of a batch's items counted key entries? false: none, known now;
 * true; or the classes whose counts are still to be read (a stack's first write of a class).
 */
export function countedEntries(holders: KeyHolders, items: readonly { classModel: ClassModel }[]): boolean | string[] {
  let last: ClassModel | undefined;
  let unknown: string[] | undefined;
  for (const { classModel } of items) {
    if (classModel === last || classModel.simple || primaryKeyAttributes(classModel).length === 0) continue;
    last = classModel;
    const count = holders.knownCount(classModel.name);
    if (count === undefined) (unknown ??= []).push(classModel.name);
    else if (count !== 0) return true;
  }
  return unknown ?? false;
}

/** countedEntries' answer once the unknown counts are read. */
export async function anyCounted(holders: KeyHolders, counted: true | string[]): Promise<boolean> {
  if (counted === true) return true;
  let any = false;
  for (const className of new Set(counted)) if ((await holders.count(className)) !== 0) any = true;
  return any;
}
