/**
 * The test page's script (bundled by harness.ts, with `docstack/browser` importing the real
 * bundle /docstack.js). The Node side calls `docstackTest.run(step, args)`; steps run the shared
 * scenarios (test/scenarios) on IndexedDB, plus what only a browser has: raw IndexedDB, storage
 * quota, a missing IndexedDB, two tabs, and sync with a node on another origin.
 */
import { Class, createStack, type BrowserStack, type LiveQuery, type SyncHandle } from 'docstack/browser';
import idbAdapter from 'pouchdb-adapter-idb';
// as published (this page's own build does not patch it): what a docstack 0.1 app handed in for indexeddb-next
import publishedIndexeddb from 'pouchdb-adapter-indexeddb';
import { eventually } from '../scenarios/check.js';
import { seededBytes } from './seeded-bytes.js';
import { model, raceCheck, raceClass, raceWrites, readBack, scenarioPlugins, type ModelFacts } from '../scenarios/scenarios.js';

const stacks = new Map<string, BrowserStack>();
const seen = new Map<string, Set<string>>();
const syncs = new Map<string, SyncHandle>();

async function open(name: string): Promise<BrowserStack> {
  let stack = stacks.get(name);
  if (!stack) {
    stack = (await createStack({ name, adapter: 'indexeddb', plugins: scenarioPlugins })) as unknown as BrowserStack;
    stacks.set(name, stack);
  }
  return stack;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function close(name: string): Promise<void> {
  syncs.get(name)?.cancel();
  syncs.delete(name);
  await stacks.get(name)?.close();
  stacks.delete(name);
}

/** A refusal as plain data (it crosses back to Node): its code, message and class. */
async function refusalOf(call: () => Promise<unknown>): Promise<{ code?: string; message: string; docstack: boolean } | null> {
  try {
    await call();
    return null;
  } catch (err) {
    const e = err as { code?: string; message?: string; name?: string };
    return { code: e.code, message: String(e.message), docstack: e.name === "DocstackError" };
  }
}

/** The object stores of the IndexedDB database that holds the store `name` (its adapter's layout). */
async function objectStores(name: string): Promise<string[]> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = indexedDB.open(`_pouch_${name}`);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const stores = Array.from({ length: db.objectStoreNames.length }, (_, i) => db.objectStoreNames.item(i)!).sort();
  db.close();
  return stores;
}

/** Every value of every object store of an IndexedDB database, as one JSON text. */
function rawDatabase(dbName: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(dbName);
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const db = request.result;
      const names = Array.from(db.objectStoreNames);
      const tx = db.transaction(names, 'readonly');
      const values: unknown[] = [];
      for (const name of names) {
        const all = tx.objectStore(name).getAll();
        all.onsuccess = () => values.push(...all.result);
      }
      tx.oncomplete = () => {
        db.close();
        resolve(JSON.stringify(values));
      };
      tx.onerror = () => reject(tx.error);
    };
  });
}

type Args = Record<string, any>;
/** live queries by key, with every result each one published (as plain data) */
const lives = new Map<string, { handle: LiveQuery; seen: unknown[] }>();

const steps: Record<string, (args: Args) => Promise<unknown>> = {
  async liveOpen({ name, key, className, selector, options }) {
    const handle = (await open(name)).live(className, selector, options);
    const entry = { handle, seen: [] as unknown[] };
    lives.set(key, entry);
    handle.subscribe((docs) => entry.seen.push(JSON.parse(JSON.stringify(docs))));
    return JSON.parse(JSON.stringify(await handle.ready));
  },
  async liveSeen({ key }) {
    return lives.get(key)!.seen;
  },
  async liveClose({ key }) {
    lives.get(key)!.handle.close(); // kept: liveSeen still answers what it published before
  },
  async model({ name }) {
    const facts = await model(await open(name));
    await close(name);
    return facts;
  },
  async readBack({ name, facts }) {
    await readBack(await open(name), facts as ModelFacts);
    await close(name);
    return true;
  },
  /** the stored bytes (PouchDB's IndexedDB database `_pouch_<name>`): does `text` appear? */
  async rawContains({ name, text }) {
    const raw = await rawDatabase(`_pouch_${name}`);
    return { contains: raw.includes(text), sealed: raw.includes('"~enc"'), bytes: raw.length };
  },
  /** no IndexedDB at all (some private modes, sandboxed frames) */
  async noIndexedDB({ name }) {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'indexedDB');
    Object.defineProperty(globalThis, 'indexedDB', { value: undefined, configurable: true });
    try {
      return await refusalOf(() => createStack({ name, adapter: 'indexeddb', plugins: scenarioPlugins }));
    } finally {
      if (saved) Object.defineProperty(globalThis, 'indexedDB', saved);
    }
  },
  /** IndexedDB is there but refuses to open (Firefox private windows: InvalidStateError) */
  async indexedDBRefuses({ name }) {
    const factory = indexedDB as IDBFactory & { open: IDBFactory['open'] };
    const original = factory.open;
    factory.open = () => {
      const request = {} as IDBOpenDBRequest & { onerror: ((e: unknown) => void) | null };
      setTimeout(() => request.onerror?.({ target: { error: new DOMException('A mutation operation was attempted on a database that did not allow mutations.', 'InvalidStateError') } }));
      return request;
    };
    try {
      return await refusalOf(() => createStack({ name, adapter: 'indexeddb', plugins: scenarioPlugins }));
    } finally {
      factory.open = original;
    }
  },
  /**
   * The selectable adapter (indexeddb-idb, pouchdb-adapter-idb handed in): writes, closes, opens
   * again and reads; returns what it read and the object stores its IndexedDB database holds
   */
  async idbAdapterStore({ name }) {
    const options = { name, adapter: 'indexeddb-idb', adapterPlugin: idbAdapter, plugins: scenarioPlugins } as const;
    let stack = (await createStack(options)) as unknown as BrowserStack;
    await Class.create(stack, 'Note', 'class', '', { code: { type: 'string', primaryKey: true }, text: { type: 'string' } });
    await stack.createDocs([{ '~class': 'Note', code: 'N1', text: 'one' }, { '~class': 'Note', code: 'N2', text: 'two' }]);
    await stack.createDoc({ '~class': 'Note', code: 'N3', text: 'three' });
    await stack.close();
    stack = (await createStack(options)) as unknown as BrowserStack;
    const notes = await stack.getClass('Note');
    const n2 = (await notes.getByPrimaryKeys({ code: 'N2' })) as { text?: string } | null;
    const texts = (await stack.findDocuments('Note', undefined, { fields: ['text'] })).map((d) => String((d as { text?: unknown }).text)).sort();
    const taken = await refusalOf(() => stack.createDoc({ '~class': 'Note', code: 'N1', text: 'again' }));
    await stack.close();
    return { n2: n2?.text ?? null, texts, taken: taken?.code ?? null, stores: await objectStores(name) };
  },
  /** the store written by idbAdapterStore, read again through pouchdb-adapter-idb: N2's text */
  async idbAdapterRead({ name }) {
    const stack = (await createStack({ name, adapter: 'indexeddb-idb', adapterPlugin: idbAdapter, plugins: scenarioPlugins })) as unknown as BrowserStack;
    const n2 = (await (await stack.getClass('Note')).getByPrimaryKeys({ code: 'N2' })) as { text?: string } | null;
    await stack.close();
    return n2?.text ?? null;
  },
  /** the store written by idbAdapterStore, asked of the default adapter (and of indexeddb-next, its other name) */
  async idbLayoutRefused({ name }) {
    return Promise.all((['indexeddb', 'indexeddb-next'] as const).map((adapter) => refusalOf(() => createStack({ name, adapter, plugins: scenarioPlugins }))));
  },
  /** indexeddb-idb without its plugin handed in: the bundle does not hold it */
  async idbWithoutPlugin({ name }) {
    return refusalOf(() => createStack({ name, adapter: 'indexeddb-idb', plugins: scenarioPlugins }));
  },
  /** a store written with the default adapter, opened again as indexeddb-next (its name before it was the default) */
  async defaultStoreAsNext({ name }) {
    let stack = (await createStack({ name, adapter: 'indexeddb', plugins: scenarioPlugins })) as unknown as BrowserStack;
    await Class.create(stack, 'Note', 'class', '', { code: { type: 'string', primaryKey: true } });
    await stack.createDoc({ '~class': 'Note', code: 'N1' });
    await stack.close();
    stack = (await createStack({ name, adapter: 'indexeddb-next', plugins: scenarioPlugins })) as unknown as BrowserStack;
    const found = await (await stack.getClass('Note')).getByPrimaryKeys({ code: 'N1' });
    await stack.close();
    return { found: found !== null, stores: await objectStores(name) };
  },
  /**
   * `_local` documents on the default adapter, as every adapter writes them (the bundles' patch of
   * pouchdb-adapter-indexeddb): "0-N" revisions, a write without the stored revision is a 409, and
   * an ingest without new_edits stores one with no revision yet in the same call as documents
   */
  async localDocuments({ name }) {
    const stack = await open(name);
    const storage = stack.storage;
    const revOf = (line: { rev: string } | { error: string; status?: number }) => ('rev' in line ? line.rev : `${line.status}`);
    const first = (await storage.putMany([{ _id: '_local/a', v: 1 }])).map(revOf);
    const again = (await storage.putMany([{ _id: '_local/a', v: 2 }])).map(revOf);
    const next = (await storage.putMany([{ _id: '_local/a', _rev: '0-1', v: 2 }, { _id: '_local/b', v: 1 }, { _id: '_local/b', _rev: '0-7', v: 2 }])).map(revOf);
    const a = await storage.get<{ v: number; _rev: string }>('_local/a');
    await Class.create(stack, 'Note', 'class', '', { code: { type: 'string', primaryKey: true } });
    const ingested = await stack.ingest([{ _id: '_local/c', n: 1 }, { _id: 'Note-peer1', _rev: '1-aaa', '~class': 'Note', code: 'P1' }, { _id: 'Note-peer2', _rev: '1-bbb', '~class': 'Note', code: 'P1' }], { newEdits: false });
    const c = await storage.get<{ n: number; _rev: string }>('_local/c');
    const count = await (await stack.getClass('Note')).count();
    await storage.remove('_local/a', '0-2');
    const removed = await storage.get('_local/a');
    await stack.close();
    return { first, again, next, a: { v: a?.v, rev: a?._rev }, ingested: ingested.map((r) => (r.ok ? 'ok' : r.code)), c: { n: c?.n, rev: c?._rev }, count, removed };
  },
  /**
   * pouchdb-adapter-indexeddb as published, handed in for indexeddb-next (as docstack 0.1 asked):
   * the bundle keeps its patched adapter, so `_local` documents are still written as `_putLocal`
   * writes them (the published adapter refuses the ingest below with `400 Invalid rev format`)
   */
  async publishedHandedIn({ name }) {
    const stack = (await createStack({ name, adapter: 'indexeddb-next', adapterPlugin: publishedIndexeddb, plugins: scenarioPlugins })) as unknown as BrowserStack;
    const ingested = await stack.ingest([{ _id: '_local/handed-in', n: 1 }], { newEdits: false });
    const local = await stack.storage.get<{ _rev: string }>('_local/handed-in');
    await stack.close();
    return { ingested: ingested.map((r) => (r.ok ? 'ok' : r.code)), rev: local?._rev ?? null };
  },
  /**
   * A bulk insert larger than leveldb's call size (250) on the default adapter: the most documents
   * one IndexedDB transaction put in the documents' store, and, when a document in the same call
   * is refused (its key taken), that nothing of the call stays stored.
   */
  async largeWrite({ name }) {
    const stack = await open(name);
    const notes = await Class.create(stack, 'Note', 'class', '', { code: { type: 'string', primaryKey: true }, n: { type: 'integer' } });
    const proto = IDBObjectStore.prototype;
    const put = proto.put;
    const puts = new Map<IDBTransaction, number>();
    proto.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      if (this.name === 'docs') puts.set(this.transaction, (puts.get(this.transaction) ?? 0) + 1);
      return put.call(this, value, key);
    };
    const batch = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ '~class': 'Note', code: `N${from + i}`, n: from + i }));
    try {
      await stack.createDocs(batch(0, 600));
      const stored = { largestTransaction: Math.max(...puts.values()), count: await notes.count() };
      // N1000…N1548, then N599 (taken above), then N1549…N1598: refused as a whole
      const refusal = await refusalOf(() => stack.createDocs([...batch(1000, 549), ...batch(599, 1), ...batch(1549, 50)]));
      const refused = { code: refusal?.code ?? null, count: await notes.count(), n1000: await notes.getByPrimaryKeys({ code: 'N1000' }), n1598: await notes.getByPrimaryKeys({ code: 'N1598' }) };
      return { stored, refused };
    } finally {
      proto.put = put;
      await close(name);
    }
  },
  /** leveldb asked of the browser bundle */
  async leveldbInBrowser({ name }) {
    return refusalOf(() => createStack({ name, adapter: 'leveldb', plugins: scenarioPlugins }));
  },
  /** writes ~60 kB documents until the origin's quota refuses a call */
  async fillQuota({ name }) {
    const stack = await open(name);
    await Class.create(stack, 'Blob', 'class', '', { text: { type: 'string' }, n: { type: 'integer' } });
    // random text: Chromium compresses what it stores, a repeated pattern would never fill it
    const random = () => Array.from(crypto.getRandomValues(new Uint8Array(60_000)), (b) => String.fromCharCode(33 + (b % 90))).join('');
    let written = 0;
    let refusal: Awaited<ReturnType<typeof refusalOf>> = null;
    for (let i = 0; i < 200 && !refusal; i += 1) {
      refusal = await refusalOf(() => stack.createDocs(Array.from({ length: 5 }, (_, j) => ({ '~class': 'Blob', text: random(), n: i * 5 + j }))));
      if (!refusal) written += 5;
    }
    // IndexedDB's adapter closes the connection after an aborted transaction: closed here, opened again by countBlobs
    await close(name);
    return { refusal, written };
  },
  async countBlobs({ name }) {
    const stack = await open(name);
    const count = (await stack.findDocuments('Blob', undefined, { fields: ['n'] })).length;
    await close(name);
    return count;
  },
  async raceOpen({ name, create }) {
    const stack = await open(name);
    if (create) await raceClass(stack);
    const ids = new Set<string>();
    seen.set(name, ids);
    (await stack.getClass('Seat')).on('change', (change: { id: string }) => ids.add(change.id));
    return true;
  },
  async raceWrite({ name, writer, codes, startAt }) {
    const stack = await open(name);
    // both pages start at the same wall-clock moment: on a busy machine one page's call may
    // otherwise arrive after the other has written every key, and there is no race to test
    if (typeof startAt === 'number') await new Promise((resume) => setTimeout(resume, Math.max(0, startAt - Date.now())));
    return raceWrites(stack, writer, codes);
  },
  /** waits until this page's change feed has carried every id (the other page's writes among them) */
  async raceSeen({ name, ids }) {
    const heard = seen.get(name)!;
    await eventually(() => (ids as string[]).every((id) => heard.has(id)), `the change feed of ${name} to carry ${(ids as string[]).filter((id) => !heard.has(id)).join(', ')}`);
    return heard.size;
  },
  async raceCheck({ name, codes }) {
    return raceCheck(await open(name), codes);
  },
  /** the Seat count, once it agrees with the Seats stored (the other tab's count arrives with its flush) */
  async raceCount({ name }) {
    const stack = await open(name);
    const stored = async () => (await stack.findDocuments('Seat')).length;
    await eventually(async () => (await stack.countDocuments('Seat')) === (await stored()), `the Seat count of ${name} to reach the Seats stored`);
    return stack.countDocuments('Seat');
  },
  async close({ name }) {
    await close(name);
    return true;
  },
  async syncOnce({ name, remote, auth }) {
    const stack = await open(name);
    const denied: string[] = [];
    const handle = stack.sync({ remote, auth });
    handle.on('denied', (e: { doc?: { id?: string } }) => denied.push(String(e.doc?.id)));
    const result = (await handle) as { push?: { docs_written?: number }; pull?: { docs_written?: number } };
    return { pushed: result.push?.docs_written ?? 0, pulled: result.pull?.docs_written ?? 0, denied };
  },
  async syncLive({ name, remote, auth }) {
    const stack = await open(name);
    const handle = stack.sync({ remote, auth, live: true, retry: true, maxRetryDelay: 500 });
    handle.on('error', () => undefined);
    syncs.set(name, handle);
    return true;
  },
  async write({ name, docs }) {
    const stack = await open(name);
    return (await stack.createDocs(docs)).map((d) => d._id);
  },
  async waitFor({ name, ids }) {
    const stack = await open(name);
    await eventually(async () => (await Promise.all((ids as string[]).map((id) => stack.getDocument(id)))).every(Boolean), `documents ${(ids as string[]).join(', ')} in ${name}`, 20_000);
    return true;
  },
  // attachments (test/browser/attachments.test.ts): the bytes are made in the page from a seed, never sent over CDP
  async putFile({ name, id, attachment, bytes, seed, type }) {
    const stack = await open(name);
    const blob = new Blob([seededBytes(bytes as number, seed as number)], { type: type as string });
    const doc = await stack.putAttachment(id as string, attachment as string, blob, type as string);
    return JSON.parse(JSON.stringify(doc._attachments));
  },
  async fileDigest({ name, id, attachment }) {
    const stack = await open(name);
    const file = await stack.getAttachment(id as string, attachment as string);
    const data = file.data as Blob;
    return { blob: data instanceof Blob, type: data.type, length: file.length, sha256: await sha256(new Uint8Array(await data.arrayBuffer())) };
  },
  async fileRefusal({ name, id, attachment, type }) {
    const stack = await open(name);
    return refusalOf(() => stack.putAttachment(id as string, attachment as string, new Blob([new Uint8Array([1, 2, 3])]), type as string));
  },
  async unlock({ name, passphrase }) {
    await (await open(name)).unlock(passphrase as string);
    return true;
  },
  async find({ name, className }) {
    const stack = await open(name);
    return (await stack.findDocuments(className)).map((d) => JSON.parse(JSON.stringify(d)));
  },
};

(globalThis as unknown as { docstackTest: unknown }).docstackTest = {
  async run(step: string, args: Args = {}) {
    const fn = steps[step];
    if (!fn) throw new Error(`no step "${step}"`);
    try {
      return await fn(args);
    } catch (err) {
      // what crosses back to Node is the message: put the code and the stack in it
      const e = err as { name?: string; code?: string; message?: string; stack?: string; reason?: string; status?: number };
      throw new Error(`${step} failed: ${e?.name ?? typeof err} ${e?.code ?? ''} ${e?.status ?? ''} ${e?.message ?? ''} ${e?.reason ?? ''} ${JSON.stringify(err)}\n${e?.stack ?? ''}`);
    }
  },
};
