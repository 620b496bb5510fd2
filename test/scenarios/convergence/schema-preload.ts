/**
 * `schema: 'preloaded'`: the class and domain documents client 0 made are copied, revisions and
 * all, straight into every other store (the node's before it starts, the other clients' before
 * they reopen), bypassing ingest. It takes schema replication out of a run, so the data's own
 * convergence shows even while schemas cannot travel yet (issue #25's first point); the issue's
 * proof is the default, `schema: 'sync'`.
 */
import { createStack, type ClientStack } from '../../../index.js';
import { rawDatabase } from '../../../storage/raw-database.js';
import { server as serverPreset } from '../../../plugins.config.js';
import { APP_CLASSES } from './schema.js';

type RawDoc = Record<string, unknown> & { _id: string };

export async function schemaDocuments(stack: ClientStack): Promise<RawDoc[]> {
  const rows = await stack.storage.range();
  const ids = rows.map((r) => r.id).filter((id) => (APP_CLASSES as readonly string[]).includes(id) || id.startsWith('domain-'));
  const docs: RawDoc[] = [];
  for (const id of ids) docs.push((await rawDatabase(stack).get(id, { revs: true })) as unknown as RawDoc);
  return docs;
}

/** Writes the documents as stored elsewhere (their revisions kept), then closes the stack. */
async function writeRaw(stack: ClientStack, docs: RawDoc[]): Promise<void> {
  await rawDatabase(stack).bulkDocs(docs as never[], { new_edits: false });
  await stack.close();
}

export async function preloadNode(nodeDataDir: string, docs: RawDoc[]): Promise<void> {
  await writeRaw(await createStack({ name: 'docstack', adapter: 'leveldb', dataDir: nodeDataDir, plugins: serverPreset }), docs);
}

/** The client's store gets the documents; the caller reopens it (memory stores of one name are shared in a process). */
export async function preloadClient(stack: ClientStack, docs: RawDoc[]): Promise<void> {
  await writeRaw(stack, docs);
}
