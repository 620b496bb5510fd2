import { writtenBy, type Journal, type JournalDoc } from './journal.js';
import type { ClientStack, Doc } from '../../index.js';
import { claimFor, type KeyClaim } from '../../kit/index.js';

export interface RecoveryReport {
  /** the transaction found half-committed, and what became of it */
  commit?: { tx: string; outcome: 'rolled-forward' | 'rolled-back' };
  /** key entries given back (claims of transactions that never committed, keys left by re-keyed documents) */
  released: number;
}

/**
 * Runs on open, before any other write: an unfinished commit is rolled forward when every one of
 * its documents was stored (then it did commit: only the journal's last step was missing), back
 * otherwise; then every key entry a transaction had claimed is kept only if a live document owns
 * it, so the primary-key index agrees with the documents again.
 */
export async function recover(stack: ClientStack, journal: Journal): Promise<RecoveryReport> {
  const state = await journal.load();
  const report: RecoveryReport = { released: 0 };
  if (!state.commit && Object.keys(state.held).length === 0) return report;
  const toCheck: KeyClaim[] = Object.values(state.held).flat();
  if (state.commit) {
    report.commit = { tx: state.commit.tx, outcome: await finish(stack, state.commit) };
    toCheck.push(...state.commit.releases);
  }
  report.released = await releaseOrphans(stack, toCheck);
  await journal.save({}, null);
  return report;
}

async function finish(stack: ClientStack, commit: NonNullable<JournalDoc['commit']>): Promise<'rolled-forward' | 'rolled-back'> {
  const current = await stack.storage.getMany(commit.ops.map((op) => op.id));
  const written = current.map((doc) => writtenBy(doc, commit.tx));
  if (written.every(Boolean)) return 'rolled-forward';
  for (let i = 0; i < commit.ops.length; i++) {
    if (!written[i]) continue;
    const { id, prevRev } = commit.ops[i];
    if (prevRev === null) {
      await stack.purgeDocuments([id]); // created by the transaction: gone for good, key included
      continue;
    }
    // restore the previous revision's content as a new revision (origin system: no after-triggers
    // of a user's write, but validation and keys as any write)
    const previous = (await stack.storage.replication.get(id, { rev: prevRev })) as unknown as Doc;
    const model = await stack.requireClass(previous['~class']);
    await stack.writeRequests([{ op: 'update', draft: { ...previous, _rev: current[i]!._rev } as Doc, previous: current[i]!, classModel: model }], 'system');
  }
  return 'rolled-back';
}

/** Releases each claim whose document is missing, inactive or keyed otherwise. */
async function releaseOrphans(stack: ClientStack, claims: KeyClaim[]): Promise<number> {
  if (claims.length === 0) return 0;
  const docs = await stack.storage.getMany(claims.map((c) => c.docId));
  const orphans: KeyClaim[] = [];
  for (let i = 0; i < claims.length; i++) {
    const doc = docs[i];
    const model = doc && doc.active !== false ? await stack.classCache.get(doc['~class']) : null;
    if (!model || claimFor(model, doc!)?.keyId !== claims[i].keyId) orphans.push(claims[i]);
  }
  await stack.primaryKeys.release(orphans);
  return orphans.length;
}
