import { describe, expect, it } from 'vitest';
import { Class, createStack, withoutPlugins, type ClientStack, type StackWith } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { driveSyncPlugin, fileNameOf, memoryDrive, mergeLeaves, parseDocFile, webdavAdapter, type DriveAdapter, type Leaf } from '../../../plugins/drive-sync/index.js';
import { parseMultistatus } from '../../../plugins/drive-sync/webdav.js';
import { expectRefused, track, uniqueName } from '../../helpers/stack.js';
import { startDrive } from './webdav-harness.js';

const plugins = [...browser, driveSyncPlugin] as const;
type DriveStack = StackWith<typeof plugins>;

async function device(): Promise<DriveStack> {
  return track(await createStack({ name: uniqueName('device'), adapter: 'memory', plugins }));
}

/** Two devices and a WebDAV drive; the first device has the class Note and one note. */
async function twoDevices(options: { retries?: number } = {}) {
  const drive = await startDrive();
  const adapter = () => webdavAdapter({ url: drive.url, retries: options.retries ?? 3, baseDelayMs: 5 });
  const a = await device();
  const b = await device();
  await Class.create(a, 'Note', 'class', '', { text: { type: 'string' } });
  const note = await a.createDoc({ '~class': 'Note', text: 'base' });
  return { drive, a, b, adapterA: adapter(), adapterB: adapter(), note };
}

/** Winner and conflicts as PouchDB reports them. */
async function tree(stack: DriveStack, id: string) {
  const doc = await stack.storage.replication.get(id, { conflicts: true });
  return { rev: doc._rev, text: doc.text, conflicts: [...(doc._conflicts ?? [])].sort() };
}

function events(stack: ClientStack, name: string): unknown[] {
  const seen: unknown[] = [];
  stack.on(name, (e: unknown) => seen.push(e));
  return seen;
}

describe('drive-sync through a WebDAV drive', () => {
  it('two devices with conflicting edits keep both revisions and pick the same winner', async () => {
    const { drive, a, b, adapterA, adapterB, note } = await twoDevices();
    expect(await a.driveSync({ adapter: adapterA })).toMatchObject({ pushed: 2 }); // the class and the note
    expect(await b.driveSync({ adapter: adapterB })).toMatchObject({ pulled: 2, pushed: 0 });
    expect((await b.getDocument(note._id))?.text).toBe('base');

    const fromA = await a.updateDoc(note._id, { text: 'from A' });
    const fromB = await b.updateDoc(note._id, { text: 'from B' });
    await a.driveSync({ adapter: adapterA });
    await b.driveSync({ adapter: adapterB });
    await a.driveSync({ adapter: adapterA });

    const [onA, onB] = [await tree(a, note._id), await tree(b, note._id)];
    expect(onA).toEqual(onB);
    expect([onA.rev, ...onA.conflicts].sort()).toEqual([fromA._rev, fromB._rev].sort());
    // the drive file holds both leaves, and nothing else of the tree's tips
    const file = parseDocFile(drive.file(await fileNameOf(note._id))!.text)!;
    expect(file.leaves.map((l) => l._rev).sort()).toEqual([fromA._rev, fromB._rev].sort());
    // the cursor is a _local document of the stack
    expect(await a.storage.get(`_local/~drive-sync/${adapterA.id}`)).toMatchObject({ cursor: { etags: expect.any(Object) } });
  });

  it('a device pulling in small pages takes the class documents first (no document refused for its class)', async () => {
    const { drive, a, adapterA } = await twoDevices();
    await Class.create(a, 'Zebra', 'class', '', { stripes: { type: 'integer' } });
    await a.createDocs(Array.from({ length: 6 }, (_, stripes) => ({ '~class': 'Zebra', stripes })));
    await a.driveSync({ adapter: adapterA });
    // without the patches plugin nothing is held for later: a document ahead of its class would be refused
    const fresh = track(await createStack({ name: uniqueName('fresh'), adapter: 'memory', plugins: withoutPlugins(plugins, 'patches') })) as DriveStack;
    const denied = events(fresh, 'drive:denied');
    expect(await fresh.driveSync({ adapter: webdavAdapter({ url: drive.url }), batchSize: 1 })).toMatchObject({ pulled: 9, denied: 0 });
    expect(denied).toEqual([]);
  });

  it('devices syncing at the same moment converge (a lost compare-and-swap is merged again)', async () => {
    const { a, b, adapterA, adapterB, note } = await twoDevices();
    await a.driveSync({ adapter: adapterA });
    await b.driveSync({ adapter: adapterB });
    const retries = [...events(a, 'drive:retry'), ...events(b, 'drive:retry')];
    for (let round = 0; round < 3; round++) {
      await a.updateDoc(note._id, { text: `A${round}` });
      await b.updateDoc(note._id, { text: `B${round}` });
      await a.createDoc({ '~class': 'Note', text: `new on A ${round}` });
      await b.createDoc({ '~class': 'Note', text: `new on B ${round}` });
      await Promise.all([a.driveSync({ adapter: adapterA }), b.driveSync({ adapter: adapterB })]);
    }
    await a.driveSync({ adapter: adapterA });
    await b.driveSync({ adapter: adapterB });
    await a.driveSync({ adapter: adapterA });
    expect(await tree(a, note._id)).toEqual(await tree(b, note._id));
    const texts = async (s: DriveStack) => (await s.findDocuments('Note')).map((d) => d.text).sort();
    expect(await texts(a)).toEqual(await texts(b));
    expect(await texts(a)).toHaveLength(7);
    expect(retries.every((r) => (r as { reason: string }).reason === 'precondition')).toBe(true);
  });

  it('a 412 precondition failure is read, merged and written again', async () => {
    const { drive, a, b, adapterA, adapterB, note } = await twoDevices();
    const retries = events(a, 'drive:retry');
    const name = await fileNameOf(note._id);
    drive.inject({ method: 'PUT', path: new RegExp(name), action: { status: 412 } });
    await a.driveSync({ adapter: adapterA });
    expect(retries).toEqual([expect.objectContaining({ reason: 'precondition', status: 412, attempt: 1, name })]);
    expect(drive.log.filter((l) => l.endsWith(name))).toEqual([`GET /docstack/${name}`, `PUT /docstack/${name}`, `GET /docstack/${name}`, `PUT /docstack/${name}`]);
    await b.driveSync({ adapter: adapterB });
    expect((await b.getDocument(note._id))?.text).toBe('base');
  });

  it('a file that keeps changing gives up with DS_DRIVE_CONFLICT after the retries allowed', async () => {
    const { drive, a, adapterA } = await twoDevices();
    drive.inject({ method: 'PUT', action: { status: 412 }, times: 3 }); // the first attempt and both retries
    const err = await a.driveSync({ adapter: adapterA, conflictRetries: 2, concurrency: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'DS_DRIVE_CONFLICT' });
    expect(drive.names().filter((n) => n.endsWith('.json'))).toEqual([]);
    // the push checkpoint did not move: the next round pushes everything
    expect(await a.driveSync({ adapter: adapterA })).toMatchObject({ pushed: 2 });
  });

  it('429 answers back off (Retry-After, else exponential) and the round completes', async () => {
    const { drive, a, adapterA } = await twoDevices();
    const retries = events(a, 'drive:retry');
    drive.inject({ method: 'PROPFIND', action: { status: 429, headers: { 'retry-after': '1' } } });
    drive.inject({ method: 'GET', action: { status: 429 }, times: 2 });
    const started = Date.now();
    expect(await a.driveSync({ adapter: adapterA, concurrency: 1 })).toMatchObject({ pushed: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(retries).toEqual([
      expect.objectContaining({ reason: 'rate-limit', status: 429, attempt: 1, delayMs: 1000 }),
      expect.objectContaining({ reason: 'rate-limit', status: 429, attempt: 1 }),
      expect.objectContaining({ reason: 'rate-limit', status: 429, attempt: 2 }),
    ]);
    const [, first, second] = retries as Array<{ delayMs: number }>;
    expect(first.delayMs).toBeGreaterThanOrEqual(5);
    expect(second.delayMs).toBeGreaterThanOrEqual(10); // doubled
  });

  it('rate-limited past every retry fails with DS_DRIVE_HTTP and the next round resumes', async () => {
    const { drive, a, b, adapterB } = await twoDevices();
    const adapter = webdavAdapter({ url: drive.url, retries: 1, baseDelayMs: 1 });
    await a.createDocs(Array.from({ length: 5 }, (_, i) => ({ '~class': 'Note', text: `n${i}` })));
    drive.inject({ method: 'PUT', action: { status: 429 }, times: 2 });
    await expect(a.driveSync({ adapter, batchSize: 2, concurrency: 1 })).rejects.toMatchObject({ code: 'DS_DRIVE_HTTP', details: { status: 429 } });
    await a.driveSync({ adapter, batchSize: 2, concurrency: 1 });
    await b.driveSync({ adapter: adapterB });
    expect(await b.findDocuments('Note')).toHaveLength(6);
  });

  it('an upload cut short is resumed: the damaged file is rebuilt, the pages already pushed are not sent again', async () => {
    const { drive, a, b, adapterB } = await twoDevices();
    const adapter = webdavAdapter({ url: drive.url, retries: 0 });
    await a.createDocs(Array.from({ length: 9 }, (_, i) => ({ '~class': 'Note', text: `n${i}` })));
    // pages of 4 changes (7 engine documents first, never pushed): the 6th upload drops halfway
    drive.inject({ method: 'PUT', after: 5, action: 'cut' });
    await expect(a.driveSync({ adapter, batchSize: 4, concurrency: 1 })).rejects.toMatchObject({ code: 'DS_DRIVE_HTTP' });
    const files = drive.names();
    const damaged = files.filter((n) => drive.file(n)!.text === '');
    expect(files).toHaveLength(6);
    expect(damaged).toHaveLength(1); // the server kept an empty new file

    // another device skips the damaged file (and keeps its cursor before it), takes the rest
    const skipped = events(b, 'drive:skipped');
    await b.driveSync({ adapter: adapterB });
    expect(skipped).toEqual([expect.objectContaining({ name: damaged[0] })]);
    expect(await b.findDocuments('Note')).toHaveLength(4);

    // the writer resumes from its last page: the damaged file is rebuilt, the earlier ones are not sent again
    const from = drive.log.length;
    await a.driveSync({ adapter, batchSize: 4, concurrency: 1 });
    const puts = drive.log.slice(from).filter((l) => l.startsWith('PUT'));
    expect(puts).toHaveLength(6);
    expect(puts[0]).toBe(`PUT /docstack/${damaged[0]}`);
    expect(parseDocFile(drive.file(damaged[0])!.text)).not.toBeNull();

    const skippedAgain = events(b, 'drive:skipped');
    expect(await b.driveSync({ adapter: adapterB })).toMatchObject({ pulled: 6, pushed: 0, denied: 0 });
    expect(skippedAgain).toEqual([]);
    expect((await b.findDocuments('Note')).map((d) => d.text).sort()).toEqual(['base', ...Array.from({ length: 9 }, (_, i) => `n${i}`)].sort());
    // B's cursor is past every file now: a further round reads no file
    const quiet = drive.log.length;
    await b.driveSync({ adapter: adapterB });
    expect(drive.log.slice(quiet).filter((l) => l.startsWith('GET'))).toEqual([]);
  });
});

describe('the WebDAV adapter', () => {
  it('without an ETag on GET, asks PROPFIND first, then reads: a write on it cannot skip a version', async () => {
    const drive = await startDrive({ user: { username: 'ana', password: 'in the url' } });
    drive.etagOnGet = false;
    await expect(webdavAdapter({ url: drive.url }).changes(null)).rejects.toMatchObject({ code: 'DS_DRIVE_HTTP', details: { status: 401 } });
    const url = new URL(drive.url);
    url.username = 'ana';
    url.password = 'in the url';
    const adapter = webdavAdapter({ url: url.href }); // credentials in the URL become Basic auth
    await adapter.write('a.json', '{"v":1}', null);
    const from = drive.log.length;
    const file = await adapter.read('a.json');
    expect(drive.log.slice(from)).toEqual(['GET /docstack/a.json', 'PROPFIND /docstack/a.json', 'GET /docstack/a.json']);
    expect(file).toEqual({ text: '{"v":1}', etag: drive.file('a.json')!.etag });
    await adapter.write('a.json', '{"v":2}', file!.etag);
    await expect(adapter.write('a.json', '{"v":3}', file!.etag)).rejects.toMatchObject({ code: 'DS_DRIVE_PRECONDITION', status: 412 });
    await expect(adapter.write('a.json', '{"v":3}', null)).rejects.toMatchObject({ code: 'DS_DRIVE_PRECONDITION' });
    expect(await adapter.read('missing.json')).toBeNull();
    await adapter.delete('a.json', drive.file('a.json')!.etag);
    expect(drive.names()).toEqual([]);
  });
});

describe('drive-sync options and layout', () => {
  it('refuses a missing or malformed adapter with DS_DRIVE_OPTIONS, writing nothing', async () => {
    const a = await device();
    await expectRefused(Promise.resolve().then(() => a.driveSync({ adapter: {} as DriveAdapter })), 'DS_DRIVE_OPTIONS');
    await expectRefused(Promise.resolve().then(() => a.driveSync({ adapter: memoryDrive(), batchSize: 0 })), 'DS_DRIVE_OPTIONS');
    expect(() => webdavAdapter({ url: 'ftp://example' })).toThrow(expect.objectContaining({ code: 'DS_DRIVE_OPTIONS' }));
    expect(await a.storage.range({ prefix: '_local/~drive-sync' })).toEqual([]);
  });

  it('documents of ephemeral classes and the engine classes never reach the drive', async () => {
    const drive = memoryDrive();
    const a = await device();
    await Class.create(a, 'Draft', 'class', '', { text: { type: 'string' } }, { ephemeral: true });
    await Class.create(a, 'Note', 'class', '', { text: { type: 'string' } });
    await a.createDoc({ '~class': 'Draft', text: 'private' });
    await a.createDoc({ '~class': 'Note', text: 'shared' });
    await a.driveSync({ adapter: drive });
    const { files } = await drive.changes(null);
    const ids = await Promise.all(files.map(async (f) => parseDocFile((await drive.read(f.name))!.text)!.id));
    expect(ids.sort()).toEqual(['Draft', 'Note', expect.stringMatching(/^Note-/)].sort());
  });

  it('file names survive case-insensitive drives; merging leaves is a commutative, idempotent union', async () => {
    expect(await fileNameOf('Note-aB')).toBe('_4eote-a_42.json');
    expect((await fileNameOf(`Note-${'x'.repeat(300)}`)).startsWith('h_')).toBe(true);
    const leaf = (rev: string, ...ancestors: string[]): Leaf => {
      const [n, hash] = rev.split('-');
      return { _id: 'Note-1', _rev: rev, _revisions: { start: Number(n), ids: [hash, ...ancestors] } };
    };
    const x = [leaf('2-a', 'r')];
    const y = [leaf('2-b', 'r'), leaf('1-r')];
    const z = [leaf('3-c', 'a', 'r')];
    const revs = (l: Leaf[]) => l.map((v) => v._rev);
    expect(revs(mergeLeaves(x, y))).toEqual(['2-b', '2-a'].sort());
    expect(revs(mergeLeaves(mergeLeaves(x, y), z))).toEqual(revs(mergeLeaves(z, mergeLeaves(y, x))));
    expect(revs(mergeLeaves(mergeLeaves(x, y), z))).toEqual(['2-b', '3-c']);
    expect(mergeLeaves(x, x)).toEqual(x);
  });

  it('reads PROPFIND answers whatever the namespace prefix', () => {
    const xml = `<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/f/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>
      <d:response xmlns:d="DAV:"><d:href>/dav/f/a%20b.json</d:href><d:propstat><d:prop><lp1:getetag xmlns:lp1="DAV:">&quot;abc&quot;</lp1:getetag><d:resourcetype/></d:prop></d:propstat></d:response></D:multistatus>`;
    expect(parseMultistatus(xml)).toEqual([
      { href: '/dav/f/', etag: null, collection: true },
      { href: '/dav/f/a%20b.json', etag: '"abc"', collection: false },
    ]);
  });
});
