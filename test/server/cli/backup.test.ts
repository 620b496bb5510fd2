import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Class, createStack, type ClientStack } from '../../../index.js';
import { server as serverPreset } from '../../../plugins.config.js';
import { backupStore, readBackup, restoreStore } from '../../../server/cli/backup.js';
import { tempDir } from '../../helpers/stack.js';

/** Every id with more than one live leaf (a conflict, engine documents included). */
async function conflicted(stack: ClientStack): Promise<string[]> {
  const { results } = await stack.storage.replication.changes({ since: 0 });
  const ids: string[] = [];
  for (const { id } of results) {
    const leaves = await stack.storage.replication.openRevs(id, 'all');
    if (leaves.filter((l) => 'ok' in l && !l.ok._deleted).length > 1) ids.push(id);
  }
  return ids.sort();
}

describe('backup and restore (server/cli/backup.ts)', () => {
  it('keeps every leaf with its history — conflicts and deletions too — and nothing else conflicts after a restore', async () => {
    const source = await createStack({ name: 'backup-source', adapter: 'memory', plugins: serverPreset });
    await Class.create(source, 'Note', 'class', '', { title: { type: 'string' } });
    const kept = await source.createDoc({ '~class': 'Note', title: 'kept' });
    const edited = await source.updateDoc(kept._id, { title: 'edited' });
    const gone = await source.createDoc({ '~class': 'Note', title: 'gone' });
    await source.deleteDocument(gone._id);
    // another device's edit of the same revision: a conflict the backup must keep
    const [, parent] = /^1-(.+)$/.exec(kept._rev!)!;
    await source.ingest([{ ...edited, title: 'elsewhere', _rev: '2-ffffffffffffffffffffffffffffffff', _revisions: { start: 2, ids: ['ffffffffffffffffffffffffffffffff', parent] } }]);
    expect((await source.conflicts()).map((c) => c.id)).toEqual([kept._id]);

    const file = join(await tempDir(), 'backup.ndjson');
    const counts = await backupStore(source, file);
    const { header, docs } = await readBackup(file);
    expect(header).toMatchObject({ format: 'docstack-backup', version: 1, stack: 'backup-source' });
    expect(docs).toHaveLength(counts.revisions);
    expect(docs.filter((d) => d._id === kept._id).map((d) => d._rev).sort()).toEqual([edited._rev, '2-ffffffffffffffffffffffffffffffff'].sort());
    expect(docs.some((d) => String(d._id).startsWith('_local/'))).toBe(false);

    const target = await createStack({ name: 'backup-target', adapter: 'memory', plugins: serverPreset });
    const { refused } = await restoreStore(target, docs);
    expect(refused).toEqual([]);
    expect((await target.conflicts()).map((c) => c.id)).toEqual([kept._id]);
    expect(await conflicted(target)).toEqual(await conflicted(source)); // no engine document in conflict
    expect(await target.getDocument(gone._id)).toBeNull();
    const notes = (await target.findDocuments('Note')).map((d) => [d._id, d._rev]);
    expect(notes).toEqual((await source.findDocuments('Note')).map((d) => [d._id, d._rev]));
    expect(await target.countDocuments('Note')).toBe(1);
    await source.close();
    await target.close();

    // a truncated file (the end line lost) is refused before anything is written
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    await writeFile(file, `${lines.slice(0, -1).join('\n')}\n`);
    await expect(readBackup(file)).rejects.toMatchObject({ code: 'DS_BACKUP_INVALID' });
  });
});
