/**
 * Sync rounds against the node: a reconnection (every client starts its sync in a seeded order,
 * all running at once; the node may be killed after a seeded number of batches and started
 * again), then sequential rounds in seeded order until one moves nothing (quiet).
 */
import { syncOnce, type Client, type Refusal, type SyncRound } from './clients.js';
import type { NodeProcess } from './node-process.js';
import type { Prng } from './prng.js';

export interface RoundLog {
  rounds: number;
  refusals: Refusal[];
  /** rounds that failed while the node was being killed or restarted */
  failedAroundKill: string[];
  /** rounds that failed with the node up */
  failedWithNodeUp: string[];
  kill: { afterBatches: number | null; midSync: boolean; epoch: number | null };
}

export function emptyRoundLog(): RoundLog {
  return { rounds: 0, refusals: [], failedAroundKill: [], failedWithNodeUp: [], kill: { afterBatches: null, midSync: false, epoch: null } };
}

/** A sync that hangs is cancelled after this long and reported as failed (a one-shot sync of a few hundred documents takes well under it). */
const SYNC_TIMEOUT_MS = 60_000;

async function guardedSync(client: Client, node: NodeProcess, batchSize: number, onBatch: () => void): Promise<SyncRound> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<SyncRound>((resolve) => {
    timer = setTimeout(() => resolve({ client: client.index, ok: false, pushed: 0, pulled: 0, refusals: [], error: `no answer in ${SYNC_TIMEOUT_MS / 1000} s` }), SYNC_TIMEOUT_MS);
  });
  try {
    return await Promise.race([syncOnce(client, { remote: node.remote, token: node.token }, batchSize, onBatch), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every client reconnects; with `killAfter`, the node gets SIGKILL once that many batches have
 * moved (counted over all clients), and is started again once every sync of the round ended.
 * If the round ends first, the node is killed between rounds (reported as not mid-sync).
 */
export async function reconnect(clients: Client[], node: NodeProcess, rng: Prng, batchSize: number, log: RoundLog, epoch: number, killAfter: number | null): Promise<void> {
  let batches = 0;
  let killing: Promise<void> | null = null;
  const onBatch = () => {
    batches++;
    if (killAfter !== null && !killing && batches >= killAfter) {
      log.kill = { afterBatches: batches, midSync: true, epoch };
      killing = node.kill();
    }
  };
  const order = rng.shuffle(clients);
  const running: Array<Promise<SyncRound>> = [];
  for (const client of order) {
    running.push(guardedSync(client, node, batchSize, onBatch));
    await new Promise((r) => setImmediate(r)); // started one after the other, then all at once
  }
  const results = await Promise.all(running);
  log.rounds++;
  if (killAfter !== null && !killing) {
    log.kill = { afterBatches: batches, midSync: false, epoch };
    killing = node.kill();
  }
  for (const r of results) {
    log.refusals.push(...r.refusals);
    if (!r.ok) (killing ? log.failedAroundKill : log.failedWithNodeUp).push(`client ${r.client}: ${r.error}`);
  }
  if (killing) {
    await killing;
    await node.restart();
  }
}

/**
 * Where every store is: the node's update sequence and each client's. Unchanged across a round
 * means the round wrote nothing anywhere, whatever the sync's result says it moved.
 */
async function fingerprint(clients: Client[], node: NodeProcess): Promise<string> {
  const res = await fetch(node.remote, { headers: { authorization: `Bearer ${node.token}` } });
  const info = (await res.json()) as { update_seq?: unknown };
  const seqs = await Promise.all(clients.map(async (c) => (await c.stack.storage.info()).updateSeq));
  return JSON.stringify([info.update_seq ?? null, ...seqs]);
}

/**
 * Sequential rounds in seeded order until one where every sync completes, reports nothing
 * written, and no store's update sequence moved.
 */
export async function untilQuiet(clients: Client[], node: NodeProcess, rng: Prng, batchSize: number, maxRounds: number, log: RoundLog): Promise<boolean> {
  for (let round = 0; round < maxRounds; round++) {
    const before = await fingerprint(clients, node);
    let moved = 0;
    let failed = 0;
    for (const client of rng.shuffle(clients)) {
      const r = await guardedSync(client, node, batchSize, () => undefined);
      log.refusals.push(...r.refusals);
      moved += r.pushed + r.pulled;
      if (!r.ok) {
        failed++;
        log.failedWithNodeUp.push(`client ${r.client}: ${r.error}`);
      }
    }
    log.rounds++;
    if (moved === 0 && failed === 0 && (await fingerprint(clients, node)) === before) return true;
  }
  return false;
}
