/**
 * bench/pipeline's data and its two sides: the engine (a stack with the browser preset) and raw
 * PouchDB (pouchdb-core plus the same adapter, nothing of the engine in between) holding the
 * documents the engine would store, under the ids the engine would give them.
 */
import PouchDB from 'pouchdb-core';
import leveldbAdapter from 'pouchdb-adapter-leveldb';
import memoryAdapter from 'pouchdb-adapter-memory';
import { join } from 'node:path';
import { Class, createStack, type ClientStack, type NewDoc } from '../index.js';
import { naturalDocId } from '../kernel/drafts.js';
import { WRITE_CHUNK } from '../kernel/unit-of-work.js';
import { browser } from '../plugins.config.js';
import { documentCaches } from '../storage/document-caches.js';
import { rawDatabase } from '../storage/raw-database.js';
import { CATEGORIES, categoryId, itemAttributeList, prng, ITEM_SCHEMA, type Attributes } from './items.js';

export { itemAttributeList, prng, ITEM_SCHEMA, type Attributes };

export type AdapterName = 'memory' | 'leveldb';
export type RawDb = PouchDB.Database<Record<string, unknown>>;
export type RawDoc = Record<string, unknown> & { _id: string };

/** The raw side's batch size: the engine's own (kernel/unit-of-work.ts), so both sides make the same calls. */
export const CHUNK = WRITE_CHUNK;
const FEED_TIMEOUT_MS = 60_000;

// Adapters register in PouchDB's shared adapter table; the engine loads the same modules.
PouchDB.plugin(leveldbAdapter).plugin(memoryAdapter);

// ---- data (bench/items.ts) ---------------------------------------------------------------

/** Engine input: attributes and `~class`; the engine adds id, timestamp and `active`. */
export function engineInputs(attributes: readonly Attributes[]): NewDoc[] {
  return attributes.map((a) => ({ '~class': 'Item', ...a }));
}

/** The id the engine gives an Item: its natural id, derived from the key (docs/data-model.md). */
export const itemId = (code: string): string => naturalDocId('Item', [code]);

/** Raw documents of the engine's stored shape and ids (kernel/drafts.ts createDraft). */
export function rawDocs(attributes: readonly Attributes[]): RawDoc[] {
  const now = new Date().toISOString();
  return attributes.map((a) => ({ _id: itemId(a.code), '~class': 'Item', ...a, '~createTimestamp': now, active: true }));
}

function rawCategories(): RawDoc[] {
  const now = new Date().toISOString();
  return Array.from({ length: CATEGORIES }, (_, i) => ({ _id: categoryId(i + 1), '~class': 'Category', name: `Category ${i + 1}`, '~createTimestamp': now, active: true }));
}

/** Raw bulkDocs in calls of `size` documents (the engine's batch by default). */
export async function bulkInChunks(db: RawDb, docs: readonly RawDoc[], size = CHUNK): Promise<void> {
  for (let start = 0; start < docs.length; start += size) await db.bulkDocs(docs.slice(start, start + size));
}

// ---- databases -----------------------------------------------------------------------------

/** Fresh, unique names: memdown keeps stores in a process-wide table keyed by name. */
let dbCounter = 0;
const freshName = (side: string) => `bench-${side}-${process.pid}-${++dbCounter}`;

export interface Place {
  adapter: AdapterName;
  /** leveldb: the temp folder every database of this run lives in */
  dir: string;
}

const location = (place: Place, name: string) => (place.adapter === 'leveldb' ? join(place.dir, name) : name);

/** A fresh raw database holding the same categories as the engine's (setup, not timed). */
export async function openRaw(place: Place): Promise<RawDb> {
  const db = new PouchDB<Record<string, unknown>>(location(place, freshName('raw')), { adapter: place.adapter } as PouchDB.Configuration.DatabaseConfiguration);
  await db.bulkDocs(rawCategories());
  return db;
}

/** Destroying frees memdown's store (memory) and the folder (leveldb) before the next step. */
export async function dropRaw(db: RawDb): Promise<void> {
  await db.destroy();
}

export interface Engine {
  stack: ClientStack;
  items: Class;
  /** resolves once the stack's change feed has delivered every change written so far */
  settle(): Promise<void>;
}

/**
 * A fresh stack with the Category class, its documents and the Item class: setup, not timed.
 * `live`: an application listening to the Item class (a `change` listener), which keeps the
 * stack's change feed running.
 */
/** `plugins` and `schema`: another preset or Item schema (bench/serial-layers takes the write apart with them). */
export async function openEngine(place: Place, live = false, { plugins = browser, schema = ITEM_SCHEMA }: { plugins?: readonly unknown[]; schema?: Record<string, unknown> } = {}): Promise<Engine> {
  const stack = await createStack({ name: freshName('engine'), adapter: place.adapter, dataDir: place.dir, plugins: plugins as typeof browser });
  const settle = watchFeed(stack);
  await Class.create(stack, 'Category', 'class', 'bench categories', { name: { type: 'string', mandatory: true } });
  const items = await Class.create(stack, 'Item', 'class', 'bench items', schema as typeof ITEM_SCHEMA);
  if (live) items.on('change', () => undefined);
  await stack.createDocs(Array.from({ length: CATEGORIES }, (_, i) => ({ '~class': 'Category', _id: categoryId(i + 1), name: `Category ${i + 1}` })));
  await settle();
  return { stack, items, settle };
}

export async function dropEngine(engine: Engine, place: Place): Promise<void> {
  const { name } = engine.stack;
  await engine.stack.close();
  await new PouchDB(location(place, name), { adapter: place.adapter } as PouchDB.Configuration.DatabaseConfiguration).destroy();
}

/**
 * Sets the engine store's document cache aside until `restore` (its reads then go to the adapter,
 * as on a store just opened): the uncached lookups shown beside the judged ones.
 */
export function withoutDocumentCache(engine: Engine): { restore(): void } {
  const db = rawDatabase(engine.stack);
  const cache = documentCaches.get(db);
  documentCaches.delete(db);
  return { restore: () => void (cache && documentCaches.set(db, cache)) };
}

/** The engine's raw store, for checks only (what it stored), never for timed work. */
export const storeOf = (engine: Engine): RawDb => rawDatabase(engine.stack) as unknown as RawDb;

/**
 * While something listens (a live class object with listeners), the stack runs one live
 * `changes` feed, which re-reads new changes after a write returns. Left running, that work
 * would be billed to whichever side runs next; so an engine step waits for the feed to catch up
 * (a passive watcher: it does not start the feed itself).
 */
function watchFeed(stack: ClientStack): () => Promise<void> {
  let seen = 0;
  let waiter: { target: number; resolve: () => void } | null = null;
  stack.changes.subscribe(
    (change) => {
      seen = Math.max(seen, Number(change.seq));
      if (waiter && seen >= waiter.target) {
        waiter.resolve();
        waiter = null;
      }
    },
    { passive: true },
  );
  return async () => {
    if (!stack.changes.running) return; // nothing is listening: there is no feed to wait for
    const target = Number((await stack.storage.info()).updateSeq);
    if (seen >= target) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the change feed stopped at seq ${seen}, before ${target}`)), FEED_TIMEOUT_MS);
      waiter = {
        target,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  };
}

/** Both sides must have stored every item under the same ids, or the ratio compares different work. */
export async function expectItems(db: RawDb, expected: readonly RawDoc[], what: string): Promise<void> {
  const { rows } = await db.allDocs({ startkey: 'Item-', endkey: 'Item-\uffff' });
  const ids = new Set(rows.map((r) => r.id));
  const missing = expected.filter((d) => !ids.has(d._id));
  if (rows.length !== expected.length || missing.length > 0) {
    throw new Error(`${what} stored ${rows.length} Item documents, expected ${expected.length}${missing.length ? ` (missing ${missing[0]._id})` : ''}.`);
  }
}
