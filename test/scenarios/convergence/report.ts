/**
 * The structured report of a convergence run, what makes it clean, and how it prints: one
 * block per seed with counts first and a few examples of each kind of failure.
 */
import { INVARIANTS, type Invariant } from './invariants.js';

export interface ConvergenceConfig {
  seed: number;
  clients: number;
  opsPerClient: number;
  /** offline phases: write offline, reconnect, sync until quiet; repeated */
  epochs: number;
  /** documents per replication batch (small: more batches, more moments to kill the node at) */
  batchSize: number;
  /** sync rounds after a reconnection before giving up on quiet */
  maxQuietRounds: number;
  /** kill the node with SIGKILL during one reconnection (true in every configuration of the issue) */
  kill: boolean;
  /**
   * 'sync' (the issue's proof): the schema reaches the node and the other clients by sync.
   * 'preloaded': copied into every store beforehand (schema-preload.ts), to see the data's own
   * convergence while schemas cannot travel.
   */
  schema: 'sync' | 'preloaded';
}

export interface ReplicaSummary {
  name: string;
  docs: number;
  /** documents with conflict revisions */
  conflicted: number;
  /** documents stack.conflicts() lists, and stored conflicts it does not */
  listed: number;
  unlisted: number;
  unlistedIds: string[];
  held: number | null;
  hiddenTxMembers: number;
  sealedNotes: number | null;
}

export interface ConvergenceReport {
  seed: number;
  config: ConvergenceConfig;
  durationMs: number;
  /** wall-clock ms per phase of the run */
  phases: Record<string, number>;
  /** what went wrong before the offline writes began (a client without the schema…) */
  setup: string[];
  writes: {
    acknowledged: number;
    byOp: Record<string, number>;
    transactions: number;
    /** write calls refused at write time: not acknowledged, so expected nowhere */
    refusedLocally: Record<string, number>;
    /** write calls that threw something other than a DocstackError */
    unexpected: string[];
  };
  sync: {
    rounds: number;
    quiet: boolean;
    /** rounds that did not complete, by code or message (the killed round's failures are expected) */
    failed: Record<string, number>;
    failedAfterRestart: Record<string, number>;
    kill: { afterBatches: number | null; midSync: boolean; epoch: number | null };
    /** unhandled rejections and uncaught exceptions while the run went on */
    crashes: string[];
  };
  replicas: ReplicaSummary[];
  mismatches: { count: number; missingSomewhere: number; differentWinner: number; refusedIds: number; examples: string[] };
  acked: {
    /** on the node: what became of each acknowledged write */
    onNode: Record<'winner' | 'conflict' | 'superseded' | 'unlisted' | 'lost', number>;
    /** lost on at least one replica */
    lost: number;
    /** a losing leaf somewhere that stack.conflicts() did not list */
    unlisted: number;
    lostAfterRefusal: number;
    lostSilently: number;
    lostByOp: Record<string, number>;
    examples: string[];
  };
  /** refusals a sync reported, by code; `expected`: each peer's own meta-class and engine documents */
  refusals: { push: Record<string, number>; pull: Record<string, number>; expected: Record<string, number>; listedInDenied: number; unlisted: number };
  held: { api: boolean; remaining: number; examples: string[] };
  invariants: Record<Invariant, number> & { examples: string[]; txIncomplete: number };
  encryption: { sealedOnAnotherDevice: number; keyringOnNode: boolean };
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Why a report is not clean: one line per failed promise; empty when the run converged. */
export function failures(report: ConvergenceReport): string[] {
  const out: string[] = [];
  const seed = `seed ${report.seed}`;
  if (report.setup.length > 0) out.push(`${seed}: setup: ${report.setup.join('; ')}`);
  if (report.writes.unexpected.length > 0) out.push(`${seed}: ${report.writes.unexpected.length} write calls threw a non-DocstackError`);
  if (report.sync.crashes.length > 0) out.push(`${seed}: ${report.sync.crashes.length} unhandled rejections / uncaught exceptions`);
  if (!report.sync.quiet) out.push(`${seed}: no quiet round within ${report.config.maxQuietRounds} rounds`);
  if (sum(report.sync.failedAfterRestart) > 0) out.push(`${seed}: ${sum(report.sync.failedAfterRestart)} sync rounds failed with the node up`);
  if (report.mismatches.count > 0) out.push(`${seed}: replicas differ on ${report.mismatches.count} documents`);
  if (report.acked.unlisted > 0) out.push(`${seed}: ${report.acked.unlisted} acknowledged writes kept as a conflict stack.conflicts() does not list`);
  const unlistedConflicts = report.replicas.reduce((n, r) => n + r.unlisted, 0);
  if (unlistedConflicts > 0) out.push(`${seed}: ${unlistedConflicts} stored conflicts missing from stack.conflicts() (${report.replicas.flatMap((r) => r.unlistedIds.map((id) => `${r.name} ${id}`)).join(', ')})`);
  if (report.acked.lost > 0) out.push(`${seed}: ${report.acked.lost} acknowledged writes lost (${report.acked.lostSilently} with no refusal reported)`);
  const refused = sum(report.refusals.push) + sum(report.refusals.pull);
  if (refused > 0) out.push(`${seed}: ${refused} sync refusals (the workload has no legitimate one)`);
  if (report.refusals.unlisted > 0) out.push(`${seed}: ${report.refusals.unlisted} push refusals missing from denied()`);
  if (report.held.remaining > 0) out.push(`${seed}: ${report.held.remaining} documents still held`);
  for (const rule of INVARIANTS) if (report.invariants[rule] > 0) out.push(`${seed}: invariant ${rule}: ${report.invariants[rule]} violations`);
  if (report.encryption.sealedOnAnotherDevice > 0) out.push(`${seed}: ${report.encryption.sealedOnAnotherDevice} encrypted values sealed on another device of the same user`);
  return out;
}

const counts = (c: Record<string, number>) => (Object.keys(c).length === 0 ? 'none' : Object.entries(c).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', '));
const examples = (list: string[]) => list.slice(0, 5).map((e) => `      · ${e}`);

export function formatReport(report: ConvergenceReport): string {
  const c = report.config;
  const lines = [
    `convergence seed ${report.seed}: ${c.clients} clients × ${c.opsPerClient} ops in ${c.epochs} epochs, batch ${c.batchSize}, kill ${c.kill ? 'yes' : 'no'}, schema ${c.schema} — ${(report.durationMs / 1000).toFixed(1)} s`,
    `  replay: CONVERGENCE_SEEDS=${report.seed}; time: ${Object.entries(report.phases).map(([p, ms]) => `${p} ${(ms / 1000).toFixed(1)} s`).join(', ')}`,
    ...(report.setup.length > 0 ? [`  SETUP: ${report.setup.join('; ')}`] : []),
    `  writes acknowledged ${report.writes.acknowledged} (${counts(report.writes.byOp)}), transactions ${report.writes.transactions}`,
    `  refused at write time (not acknowledged): ${counts(report.writes.refusedLocally)}`,
    ...(report.writes.unexpected.length > 0 ? [`  non-DocstackError throws: ${report.writes.unexpected.length}`, ...examples(report.writes.unexpected)] : []),
    `  sync rounds ${report.sync.rounds}, quiet ${report.sync.quiet ? 'yes' : 'NO'}; kill after ${report.sync.kill.afterBatches ?? '-'} batches in epoch ${report.sync.kill.epoch ?? '-'} (mid-sync: ${report.sync.kill.midSync ? 'yes' : 'no'})`,
    `  failed rounds around the kill: ${counts(report.sync.failed)}; with the node up: ${counts(report.sync.failedAfterRestart)}`,
    ...(report.sync.crashes.length > 0 ? [`  CRASHES (unhandled): ${report.sync.crashes.length}`, ...examples(report.sync.crashes)] : []),
    `  replicas: ${report.replicas.map((r) => `${r.name} ${r.docs} docs (${r.conflicted} conflicted, ${r.listed} listed by stack.conflicts(), held ${r.held ?? 'n/a'}, hidden tx members ${r.hiddenTxMembers}${r.sealedNotes === null ? '' : `, sealed notes ${r.sealedNotes}`})`).join('; ')}`,
    `  mismatched documents ${report.mismatches.count} (missing somewhere ${report.mismatches.missingSomewhere}, different winner ${report.mismatches.differentWinner}, of them refused by a sync ${report.mismatches.refusedIds})`,
    ...examples(report.mismatches.examples),
    `  acknowledged writes on the node: ${counts(report.acked.onNode)}; lost somewhere ${report.acked.lost} (after a reported refusal ${report.acked.lostAfterRefusal}, silently ${report.acked.lostSilently}; by op: ${counts(report.acked.lostByOp)})`,
    ...examples(report.acked.examples),
    `  refusals: push ${counts(report.refusals.push)}; pull ${counts(report.refusals.pull)}; in denied() lists ${report.refusals.listedInDenied} (push refusals missing from them: ${report.refusals.unlisted}); expected (own meta-class/engine documents): ${counts(report.refusals.expected)}`,
    `  held remaining: ${report.held.api ? report.held.remaining : 'n/a (no stack.heldDocuments API)'}`,
    ...examples(report.held.examples),
    `  invariants: ${INVARIANTS.map((r) => `${r} ${report.invariants[r]}`).join(', ')} (transactions with fewer members than their size: ${report.invariants.txIncomplete})`,
    ...examples(report.invariants.examples),
    `  encryption: sealed on another device ${report.encryption.sealedOnAnotherDevice}, keyring on the node ${report.encryption.keyringOnNode ? 'yes' : 'no'}`,
  ];
  const failed = failures(report);
  lines.push(failed.length === 0 ? '  CLEAN' : `  NOT CLEAN:\n${failed.map((f) => `    - ${f}`).join('\n')}`);
  return lines.join('\n');
}
