/**
 * The client library in Chromium on IndexedDB: the shared scenarios (test/scenarios) in a real
 * page running the real bundle, a reload, two tabs racing for natural keys, and storage errors.
 */
import { describe, expect, it } from 'vitest';
import { useHarness } from './use-harness.js';

const harness = useHarness();

describe('docstack in Chromium (IndexedDB)', () => {
  it('runs the model scenario on IndexedDB, keeps everything across a reload, and stores the secret only sealed', async () => {
    const context = await harness().context();
    const tab = await harness().page(context);
    const facts = await tab.run<{ patientId: string }>('model', { name: 'shop' });
    expect(facts.patientId).toMatch(/^Patient-/);
    // the stored bytes: AES-GCM payloads, never the plaintext (sealed with WebCrypto in the page)
    const raw = await tab.run<{ contains: boolean; sealed: boolean; bytes: number }>('rawContains', { name: 'shop', text: 'diagnosis-7c1e' });
    expect(raw).toMatchObject({ contains: false, sealed: true });
    expect(raw.bytes).toBeGreaterThan(1000);
    await tab.reload();
    await tab.run('readBack', { name: 'shop', facts });
    expect(tab.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  });

  it('two tabs write concurrently: one document per natural key, and each hears the other in the change feed', async () => {
    const context = await harness().context();
    const [a, b] = [await harness().page(context), await harness().page(context)];
    await a.run('raceOpen', { name: 'race', create: true });
    await b.run('raceOpen', { name: 'race', create: false });
    const codes = Array.from({ length: 40 }, (_, i) => `S${i % 25}`);
    type Race = { won: Record<string, string>; lost: string[] };
    const startAt = Date.now() + 500; // the pages share this machine's clock
    const [ra, rb] = await Promise.all([
      a.run<Race>('raceWrite', { name: 'race', writer: 'a', codes, startAt }),
      b.run<Race>('raceWrite', { name: 'race', writer: 'b', codes: [...codes].reverse(), startAt }),
    ]);
    expect(Object.keys(ra.won).length + Object.keys(rb.won).length).toBe(25);
    expect(Object.keys(ra.won).length).toBeGreaterThan(0);
    expect(Object.keys(rb.won).length).toBeGreaterThan(0);
    await a.run('raceSeen', { name: 'race', ids: Object.values(rb.won) });
    await b.run('raceSeen', { name: 'race', ids: Object.values(ra.won) });
    const wins = { ...ra.won, ...rb.won };
    expect(await a.run('raceCheck', { name: 'race', codes })).toEqual(wins);
    expect(await b.run('raceCheck', { name: 'race', codes })).toEqual(wins);
    // each tab counts its own writes in memory and adds the other's when it flushes (deltas, not absolutes)
    expect(await a.run('raceCount', { name: 'race' })).toBe(25);
    expect(await b.run('raceCount', { name: 'race' })).toBe(25);
    // one write in one tab, the other idle: its feed hears it too (PouchDB's cross-tab notice; above, each tab's own writes also re-read the feed)
    const late = await a.run<Race>('raceWrite', { name: 'race', writer: 'a', codes: ['S99'] });
    await b.run('raceSeen', { name: 'race', ids: Object.values(late.won) });
    await a.run('close', { name: 'race' });
    await b.run('close', { name: 'race' });
    expect(await a.run('raceCount', { name: 'race' })).toBe(26); // the 25 and S99
    await a.run('close', { name: 'race' });
  });

  it('storage errors are DocstackErrors with their own codes: no IndexedDB, IndexedDB refusing, leveldb in the browser', async () => {
    const context = await harness().context();
    const tab = await harness().page(context);
    expect(await tab.run('noIndexedDB', { name: 'none' })).toMatchObject({ code: 'DS_STORAGE_UNAVAILABLE', docstack: true, message: expect.stringMatching(/no IndexedDB/) });
    expect(await tab.run('indexedDBRefuses', { name: 'private' })).toMatchObject({ code: 'DS_STORAGE_UNAVAILABLE', docstack: true, message: expect.stringMatching(/refused to open it.*did not allow mutations/) });
    expect(await tab.run('leveldbInBrowser', { name: 'disk' })).toMatchObject({ code: 'DS_STORAGE_UNAVAILABLE', message: expect.stringMatching(/indexeddb/) });
  });

  it('the default adapter is pouchdb-adapter-indexeddb (also as indexeddb-next); pouchdb-adapter-idb, handed in as indexeddb-idb, opens its stores, which the default refuses by name', async () => {
    const context = await harness().context();
    const tab = await harness().page(context);
    // the default's layout: pouchdb-adapter-indexeddb's stores (docs, meta), not pouchdb-adapter-idb's (document-store, by-sequence …)
    expect(await tab.run('defaultStoreAsNext', { name: 'default' })).toEqual({ found: true, stores: expect.arrayContaining(['docs']) });
    expect((await tab.run<{ stores: string[] }>('defaultStoreAsNext', { name: 'default-2' })).stores).not.toContain('document-store');
    const read = await tab.run<{ n2: string | null; texts: string[]; taken: string | null; stores: string[] }>('idbAdapterStore', { name: 'old' });
    expect(read).toEqual({ n2: 'two', texts: ['one', 'three', 'two'], taken: 'DS_UNIQUE_VIOLATION', stores: expect.arrayContaining(['document-store', 'by-sequence']) });
    const refused = await tab.run<Array<{ code?: string; message: string }>>('idbLayoutRefused', { name: 'old' });
    for (const refusal of refused) {
      expect(refusal).toMatchObject({ code: 'DS_STORAGE_UNAVAILABLE', docstack: true, message: expect.stringMatching(/written by pouchdb-adapter-idb.*adapter "indexeddb-idb"/) });
    }
    // refused before the other adapter touched it: pouchdb-adapter-idb still opens it
    expect(await tab.run('idbAdapterRead', { name: 'old' })).toBe('two');
    expect(await tab.run('idbWithoutPlugin', { name: 'old-bare' })).toMatchObject({ code: 'DS_STORAGE_UNAVAILABLE', docstack: true, message: expect.stringMatching(/hand in pouchdb-adapter-idb \(adapterPlugin\)/) });
    expect(tab.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  });

  it('`_local` documents on the default adapter: "0-N" revisions, 409 without the stored one, stored by an ingest without new_edits beside its documents; a published adapter handed in does not replace it', async () => {
    const tab = await harness().page(await harness().context());
    expect(await tab.run('localDocuments', { name: 'locals' })).toEqual({
      first: ['0-1'],
      again: ['409'],
      next: ['0-2', '0-1', '409'],
      a: { v: 2, rev: '0-2' },
      // the second peer document claims a key the first holds: refused alone, the rest stored in one call
      ingested: ['ok', 'ok', 'DS_UNIQUE_VIOLATION'],
      c: { n: 1, rev: '0-1' },
      count: 1,
      removed: null,
    });
    // the published adapter handed in for indexeddb-next (docstack 0.1's way) does not replace the bundle's patched one
    expect(await tab.run('publishedHandedIn', { name: 'handed-in' })).toEqual({ ingested: ['ok'], rev: '0-1' });
    expect(tab.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  });

  it('a bulk insert on the default adapter is one IndexedDB transaction up to 10,000 documents, and a document refused in it leaves none of it stored', async () => {
    const tab = await harness().page(await harness().context());
    expect(await tab.run('largeWrite', { name: 'large' })).toEqual({
      // 600 documents in one transaction (leveldb and memory write 250 a call)
      stored: { largestTransaction: 600, count: 600 },
      // N599 is taken: the 599 others of the call are taken back
      refused: { code: 'DS_UNIQUE_VIOLATION', count: 600, n1000: null, n1598: null },
    });
    expect(tab.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  });

  it('a full storage quota refuses the write with DS_STORAGE_QUOTA; what was stored before stays readable', async () => {
    // a small quota for the test origin (DevTools protocol; it applies to a real profile, not to an incognito context)
    const context = await harness().persistentContext();
    const tab = await harness().page(context);
    const cdp = await context.newCDPSession(tab.page);
    await cdp.send('Storage.overrideQuotaForOrigin' as never, { origin: harness().origin, quotaSize: 3 * 1024 * 1024 } as never);
    const result = await tab.run<{ refusal: { code?: string; message: string } | null; written: number }>('fillQuota', { name: 'full' });
    expect(result.refusal, JSON.stringify(result)).toMatchObject({ code: 'DS_STORAGE_QUOTA', message: expect.stringMatching(/quota/) });
    expect(result.written).toBeGreaterThan(0);
    // space freed (the quota back to normal), the stack opened again: what was written before is there, the refused call stored nothing
    await cdp.send('Storage.overrideQuotaForOrigin' as never, { origin: harness().origin } as never);
    expect(await tab.run('countBlobs', { name: 'full' })).toBe(result.written);
  });
});
