/**
 * `docstack backup <file>` / `docstack restore <file>`: a store as newline-delimited JSON.
 *
 * What is kept: every leaf revision of every document (deleted leaves and conflicting ones
 * included) with its revision history (`_revisions`), so a restored node answers replicas as
 * the old one did — same ids, same revisions, the same conflicts to resolve. What is not: the
 * `_local` documents (the primary-key, count and class-name indexes, rebuilt by the restore's
 * ingest; the replication checkpoints, so each device's next sync compares from the start and
 * sends nothing twice), non-leaf revision bodies (CouchDB keeps only their ids too), design
 * documents. The dump is consistent: the store is opened here, so no node writes meanwhile.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ClientStack } from '../../index.js';
import { SERVER_ERRORS } from '../errors-codes.js';

export const BACKUP_FORMAT = 'docstack-backup';
const PAGE = 500;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: 1;
  stack: string;
  createdAt: string;
  updateSeq: number | string;
}

/** Writes every leaf of `stack` to `file` (mode 0600: it holds password hashes); answers the count. */
export async function backupStore(stack: ClientStack, file: string): Promise<{ documents: number; revisions: number }> {
  const info = await stack.storage.info();
  const out = createWriteStream(file, { mode: 0o600 });
  const write = async (value: unknown) => {
    if (!out.write(`${JSON.stringify(value)}\n`)) await once(out, 'drain');
  };
  const header: BackupHeader = { format: BACKUP_FORMAT, version: 1, stack: stack.name, createdAt: new Date().toISOString(), updateSeq: info.updateSeq };
  await write(header);
  let documents = 0;
  let revisions = 0;
  let since: number | string = 0;
  for (;;) {
    const page = await stack.storage.replication.changes({ since, limit: PAGE });
    for (const change of page.results) {
      if (change.id.startsWith('_design/')) continue;
      const leaves = await stack.storage.replication.openRevs(change.id, 'all', { revs: true });
      documents += 1;
      for (const leaf of leaves) {
        if (!('ok' in leaf)) continue;
        revisions += 1;
        await write(leaf.ok);
      }
    }
    since = page.last_seq;
    if (page.results.length < PAGE) break;
  }
  await write({ end: true, documents, revisions });
  out.end();
  await once(out, 'finish');
  return { documents, revisions };
}

/** The store folder a leveldb stack of this name uses (storage/database.ts). */
export function storeExists(dataDir: string, name: string): boolean {
  return existsSync(join(dataDir.replace(/[\\/]+$/, ''), name));
}

const isSchemaDoc = (doc: Record<string, unknown>): boolean => doc['~class'] === 'class' || doc['~class'] === 'domain' || doc['~class'] === '~self';

/** Reads and checks a backup: its header, every line a revision, the end line's counts. */
export async function readBackup(file: string): Promise<{ header: BackupHeader; docs: Array<Record<string, unknown>> }> {
  if (!existsSync(file)) throw SERVER_ERRORS.backupInvalid(`There is no file ${file}.`, { path: 'file' });
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let header: BackupHeader | null = null;
  let end: { documents: number; revisions: number } | null = null;
  const docs: Array<Record<string, unknown>> = [];
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw SERVER_ERRORS.backupInvalid(`Line ${n} of ${file} is not JSON.`, { path: `line ${n}` });
    }
    if (header === null) {
      if (value.format !== BACKUP_FORMAT || value.version !== 1) throw SERVER_ERRORS.backupInvalid(`${file} is not a docstack backup (its first line names no format "${BACKUP_FORMAT}", version 1).`, { path: 'line 1' });
      header = value as unknown as BackupHeader;
    } else if (value.end === true) {
      end = value as unknown as { documents: number; revisions: number };
    } else if (end !== null || typeof value._id !== 'string' || typeof value._rev !== 'string' || typeof value._revisions !== 'object') {
      throw SERVER_ERRORS.backupInvalid(`Line ${n} of ${file} is not a revision with its history (_id, _rev, _revisions).`, { path: `line ${n}` });
    } else {
      docs.push(value);
    }
  }
  if (header === null) throw SERVER_ERRORS.backupInvalid(`${file} is empty.`, { path: 'line 1' });
  if (end === null || end.revisions !== docs.length) throw SERVER_ERRORS.backupInvalid(`${file} is truncated: its end line is missing or counts another number of revisions (${docs.length} read).`, { path: `line ${n}` });
  return { header, docs };
}

/**
 * Writes a backup's revisions into `stack` (a new store) through ingest, the path replicated
 * documents take: schema documents first, then the rest, each with its revisions as they were.
 */
export async function restoreStore(stack: ClientStack, docs: Array<Record<string, unknown>>): Promise<{ restored: number; refused: Array<{ id: string; code: string; reason: string }> }> {
  // what the new store wrote itself when it opened (the plugins' class documents…): the backup's
  // revisions of the same ids replace them below, or they would stand as conflicting leaves
  const own = (await stack.storage.replication.changes({ since: 0 })).results.map((r) => r.id);
  const ordered = [...docs.filter(isSchemaDoc), ...docs.filter((d) => !isSchemaDoc(d))];
  const refused: Array<{ id: string; code: string; reason: string }> = [];
  let restored = 0;
  for (let i = 0; i < ordered.length; i += PAGE) {
    for (const result of await stack.ingest(ordered.slice(i, i + PAGE), { origin: 'replication' })) {
      if (result.ok) restored += 1;
      else refused.push({ id: result.id, code: result.code, reason: result.reason });
    }
  }
  await dropOwnLeaves(stack, own, docs);
  return { restored, refused };
}

/**
 * Ends (a deleted child, as resolving a conflict does) each leaf the store made at open for an id
 * the backup holds, when the backup has no such revision: the backed-up revisions stay the
 * document's only live leaves, as on the node the backup came from.
 */
async function dropOwnLeaves(stack: ClientStack, ids: string[], docs: Array<Record<string, unknown>>): Promise<void> {
  const backedUp = new Map<string, Set<string>>();
  for (const doc of docs) {
    const revs = backedUp.get(String(doc._id)) ?? new Set<string>();
    revs.add(String(doc._rev));
    backedUp.set(String(doc._id), revs);
  }
  for (const id of ids) {
    const revs = backedUp.get(id);
    if (!revs) continue;
    for (const leaf of await stack.storage.replication.openRevs(id, 'all')) {
      if ('ok' in leaf && !leaf.ok._deleted && !revs.has(leaf.ok._rev)) await stack.storage.remove(id, leaf.ok._rev);
    }
  }
}
