import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildBrowser, GZIP_BUDGET, SLIM_GZIP_BUDGET } from '../../scripts/build-browser.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Code of a plugin the slim preset leaves out: its error codes, its files. */
const FOREIGN_CODES = ['DS_SYNC_', 'DS_TX_', 'DS_JOB_', 'DS_TRIGGER_', 'DS_ENCRYPTION_', 'DS_DOMAIN_', 'DS_PATCH_', 'DS_SQL_', 'DS_EPHEMERAL_'];
const isForeignPlugin = (input: string) => /^plugins\//.test(input) && !input.startsWith('plugins/validation/');

describe('the slim preset (the engine and the validation plugin) in a browser bundle', () => {
  it('its stand-in for the engine\'s ingest refuses stack.ingest with DS_NOT_IN_BUILD and holds nothing', async () => {
    const { Ingestor } = await import('../../engine/ingest/ingest.slim.js');
    const ingestor = new Ingestor({});
    await expect(ingestor.ingest()).rejects.toMatchObject({ code: 'DS_NOT_IN_BUILD', status: 501 });
    expect(await ingestor.heldDocuments()).toEqual([]);
  });

  it('its stand-in for conflicts refuses listing and resolving with DS_NOT_IN_BUILD (never an empty list hiding a synced store\'s conflicts)', async () => {
    const { listConflicts, resolveConflict, userClassNames } = await import('../../engine/conflicts/api.slim.js');
    await expect(listConflicts(null as never, null as never, [])).rejects.toMatchObject({ code: 'DS_NOT_IN_BUILD', status: 501 });
    await expect(resolveConflict(null as never, 'Note-1', {})).rejects.toMatchObject({ code: 'DS_NOT_IN_BUILD' });
    expect(userClassNames(['Note'])).toEqual(['Note']);
  });

  it('its stand-ins for purges and the replication surface refuse with DS_NOT_IN_BUILD; denials are none; each write is stored alone', async () => {
    const { purgeDocuments } = await import('../../engine/purge.slim.js');
    await expect(purgeDocuments(null as never, null as never, null as never, ['Note-1'])).rejects.toMatchObject({ code: 'DS_NOT_IN_BUILD', status: 501 });
    const { createReplication } = await import('../../storage/replication.slim.js');
    const replication = createReplication(null as never);
    expect(() => replication.revsDiff({})).toThrow(expect.objectContaining({ code: 'DS_NOT_IN_BUILD' }));
    const { LiveHub } = await import('../../engine/live/live-hub.slim.js');
    expect(() => new LiveHub(null).open()).toThrow(expect.objectContaining({ code: 'DS_NOT_IN_BUILD', status: 501 }));
    const { listDenials, resolveDenial } = await import('../../engine/conflicts/denials.slim.js');
    expect(await listDenials(null as never)).toEqual([]);
    expect(await resolveDenial(null as never, 'Note-1')).toBe(false);
    // the commit group's stand-in takes the lock once per write and stores the write alone
    const { CommitGroup } = await import('../../kernel/commit-group.slim.js');
    let turns = 0;
    const lock = Object.assign(<T>(section: () => Promise<T>) => (turns++, section()), { busy: () => false });
    const stored: unknown[] = [];
    const db = { bulkDocs: async (docs: { _id: string }[]) => (stored.push(...docs), docs.map((d) => ({ ok: true, id: d._id, rev: '1-a' }))) };
    const group = new CommitGroup({ db: db as never, lock });
    const item = (id: string) => ({ doc: { _id: id } as never, classModel: {} as never, op: 'create' as const, context: {} as never });
    await Promise.all([group.submit({ items: [item('A-1')], shares: [] }), group.submit({ items: [item('A-2')], shares: [] })]);
    expect(turns).toBe(2);
    expect(stored).toEqual([{ _id: 'A-1', _rev: '1-a' }, { _id: 'A-2', _rev: '1-a' }]);
  });

  it('PouchDB\'s uuid stand-in gives random version-4 UUIDs, as the uuid package does', async () => {
    const { v4 } = await import('../../scripts/uuid-v4.browser.mjs');
    const ids = Array.from({ length: 200 }, () => v4());
    // version nibble 4, variant bits 10 (8, 9, a or b), lowercase hex in 8-4-4-4-12 groups
    expect(ids.filter((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('an app importing createStack and slim keeps no other plugin, within the slim budget', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docstack-slim-'));
    const entry = join(dir, 'app.ts');
    await writeFile(entry, [
      `import { createStack } from ${JSON.stringify(join(root, 'index.ts'))};`,
      `import { slim } from ${JSON.stringify(join(root, 'plugins.config.ts'))};`,
      "export const open = (name: string) => createStack({ name, adapter: 'indexeddb', plugins: slim });",
    ].join('\n'));
    // the browser build's own setup (IndexedDB adapter, no Node built-in), with this entry, built
    // as docstack-slim.js is (the engine's ingest left out: the slim preset replicates nothing)
    const built = await buildBrowser({ outdir: dir, quiet: true, entry, slim: true });
    const output = Object.values(built.metafile.outputs).find((o) => o.entryPoint !== undefined)!;
    const kept = Object.keys(output.inputs);
    expect(kept).toContain('plugins/validation/index.ts');
    expect(kept).toContain('storage/storage-adapters.browser.ts');
    expect(kept.filter(isForeignPlugin)).toEqual([]);
    expect(kept.filter((i) => /node_modules\/(croner|re2js|alasql|pouchdb-replication|pouchdb-adapter-http)\//.test(i))).toEqual([]);
    const code = await readFile(built.outfile, 'utf8');
    expect(FOREIGN_CODES.filter((prefix) => code.includes(prefix))).toEqual([]);
    expect(code).toContain('DS_VALIDATION_MANDATORY');
    expect(kept.filter((i) => /node_modules\/zod\/(v4\/classic|v3|v4\/locales\/(?!en\.js))/.test(i))).toEqual([]);
    // tapable: the five hook kinds the kernel uses, not its entry (which requires all twelve);
    // PouchDB's uuid: scripts/uuid-v4.browser.mjs, not the uuid package
    expect(kept.filter((i) => /node_modules\/tapable\/lib\//.test(i)).map((i) => i.replace(/.*\/lib\//, '')).sort()).toEqual([
      'AsyncSeriesBailHook.js', 'AsyncSeriesHook.js', 'AsyncSeriesWaterfallHook.js', 'Hook.js', 'HookCodeFactory.js', 'SyncBailHook.js', 'SyncWaterfallHook.js', 'util-browser.js',
    ]);
    expect(kept.filter((i) => /node_modules\/uuid\//.test(i))).toEqual([]);
    expect(kept).toContain('scripts/uuid-v4.browser.mjs');
    // issue 27 aimed at 70 kB; issues 29 and 30 took it to 74.0 (scripts/build-browser.mjs says
    // what): the budget is 74.5 kB, never more; the engine's ingest is not in it (its stand-in refuses stack.ingest)
    expect(SLIM_GZIP_BUDGET).toBeLessThanOrEqual(74.5 * 1024);
    expect(kept).toContain('engine/ingest/ingest.slim.ts');
    expect(kept.filter((i) => /^engine\/ingest\/ingest(-store|-held|-classes)?\.ts$/.test(i))).toEqual([]);
    // nor are the conflict listing and resolution (replication makes conflicts)
    expect(kept).toContain('engine/conflicts/api.slim.ts');
    expect(kept.filter((i) => /^engine\/conflicts\/(list|resolve|merge|auto)\.ts$/.test(i))).toEqual([]);
    // nor purges, the replication surface, denials or group commit (stand-ins, tested above)
    expect(kept.filter((i) => /^(engine\/purge|storage\/replication|engine\/conflicts\/denials|kernel\/commit-group)\.ts$/.test(i))).toEqual([]);
    // nor the planned hooks' direct runner (tapable's promise() instead), PouchDB's filtered
    // changes (no feed there is filtered) or vuvuzela (pouchdb-json's second parser: the browser
    // files' adapter, pouchdb-adapter-indexeddb, does not use pouchdb-json)
    expect(kept).toContain('kernel/planned-calls.slim.ts');
    expect(kept).toContain('scripts/changes-filter.slim.mjs');
    expect(kept.filter((i) => /^kernel\/planned-calls\.ts$|node_modules\/(pouchdb-changes-filter|vuvuzela)\//.test(i))).toEqual([]);
    // nor live queries (stack.live refused there: they would take it past its budget)
    expect(kept).toContain('engine/live/live-hub.slim.ts');
    expect(kept.filter((i) => /^engine\/live\/live-(hub|query|order|handle)\.ts$/.test(i))).toEqual([]);
    // reads by id through PouchDB's public get (every browser file: storage/direct-get.ts is Node's)
    expect(kept).toContain('storage/direct-get.slim.ts');
    expect(kept).not.toContain('storage/direct-get.ts');
    expect(built.gzipped).toBeLessThanOrEqual(SLIM_GZIP_BUDGET);
    expect(built.gzipped).toBeLessThan(GZIP_BUDGET / 2);
  }, 60_000);

  it('dist/browser/docstack-slim.js (docstack/slim) holds the engine, validation and slim, within its budget', async () => {
    const out = await mkdtemp(join(tmpdir(), 'docstack-slim-dist-'));
    const built = await buildBrowser({ outdir: out, quiet: true });
    const slimOutput = Object.entries(built.metafile.outputs).find(([file]) => file.endsWith('/docstack-slim.js'))![1];
    expect(slimOutput.exports).toEqual(expect.arrayContaining(['createStack', 'Class', 'DocstackError', 'validationPlugin', 'slim']));
    expect(slimOutput.exports).not.toContain('syncPlugin');
    expect(Object.keys(slimOutput.inputs).filter(isForeignPlugin)).toEqual([]);
    expect(FOREIGN_CODES.filter((prefix) => built.slimCode!.includes(prefix))).toEqual([]);
    expect(built.slimGzipped).toBeGreaterThan(0);
    expect(built.slimGzipped).toBeLessThanOrEqual(SLIM_GZIP_BUDGET);
    // the check can fail: the full bundle holds the codes the slim one must not
    expect(built.gzipped).toBeGreaterThan(built.slimGzipped);
  }, 60_000);

  it('is what a bundler resolves for docstack/slim under the browser condition', async () => {
    await buildBrowser({ quiet: true });
    const app = await mkdtemp(join(tmpdir(), 'docstack-slim-app-'));
    await mkdir(join(app, 'node_modules'));
    await symlink(root, join(app, 'node_modules', 'docstack'), 'dir');
    await writeFile(join(app, 'app.js'), "import { createStack, slim } from 'docstack/slim';\nexport default [createStack, slim];\n");
    const result = await esbuild.build({ absWorkingDir: app, entryPoints: ['app.js'], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    expect(Object.keys(result.metafile.inputs).filter((i) => i !== 'app.js')).toEqual([expect.stringMatching(/dist\/browser\/docstack-slim\.js$/)]);
  }, 60_000);
});
