/**
 * Across replicas: the same documents with the same winning revisions, and every acknowledged
 * write still in each replica's revision tree (the winner, a conflict, or an ancestor of one of
 * them: a write another write built upon was kept, not lost).
 */
import type { AckedWrite } from './operations.js';
import { revisionTree, type Replica } from './snapshot.js';

export interface Mismatch {
  id: string;
  /** replica name → winning revision, or 'missing' */
  winners: Record<string, string>;
}

export function compareReplicas(replicas: Replica[]): Mismatch[] {
  const ids = new Set<string>();
  for (const r of replicas) for (const id of r.docs.keys()) ids.add(id);
  const out: Mismatch[] = [];
  for (const id of [...ids].sort()) {
    const winners = Object.fromEntries(replicas.map((r) => [r.name, r.docs.get(id)?.rev ?? 'missing']));
    if (new Set(Object.values(winners)).size > 1) out.push({ id, winners });
  }
  return out;
}

/**
 * `conflict`: listed by `stack.conflicts()` (the API a user resolves with); `unlisted`: a losing
 * leaf the API does not show — kept in storage, but invisible: a failure like `lost`.
 */
export type Outcome = 'winner' | 'conflict' | 'superseded' | 'unlisted' | 'lost';

export interface WriteFate {
  write: AckedWrite;
  /** replica name → what became of the write there */
  outcomes: Record<string, Outcome>;
}

export async function fatesOf(acked: AckedWrite[], replicas: Replica[]): Promise<WriteFate[]> {
  const trees = new Map<string, Awaited<ReturnType<typeof revisionTree>>>();
  const fates: WriteFate[] = [];
  for (const write of acked) {
    const outcomes: Record<string, Outcome> = {};
    for (const replica of replicas) {
      const key = `${replica.name}\u0000${write.id}`;
      let tree = trees.get(key);
      if (!tree) trees.set(key, (tree = await revisionTree(replica.stack, write.id)));
      const stored = replica.docs.get(write.id);
      const leaf = stored?.conflicts.includes(write.rev) || tree.leaves.has(write.rev);
      const hidden = replica.hiddenTxMembers.has(write.id); // a transaction member shown when its transaction is
      outcomes[replica.name] =
        stored?.rev === write.rev ? 'winner' : replica.listed.get(write.id)?.has(write.rev) ? 'conflict' : leaf ? (hidden ? 'conflict' : 'unlisted') : tree.all.has(write.rev) ? 'superseded' : 'lost';
    }
    fates.push({ write, outcomes });
  }
  return fates;
}
