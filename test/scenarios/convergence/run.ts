/**
 * One seeded convergence run (issue #25): N clients and a node in a child process on leveldb.
 *
 * 1. Setup: client 0 unlocks, builds the schema and a few documents; every client syncs until
 *    quiet, then the others unlock the same passphrase (the keyring, if it travelled, is theirs).
 * 2. For each epoch: every client writes offline (operations.ts); all reconnect in a seeded order,
 *    the node is killed with SIGKILL after a seeded number of batches in one epoch and restarted;
 *    then sequential sync rounds until quiet.
 * 3. The node is stopped cleanly and its store opened here; every replica is read and checked.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deniedList, openClient, PASSPHRASE, reopenClient, type Client } from './clients.js';
import { compareReplicas, fatesOf } from './compare.js';
import { checkInvariants, INVARIANTS, type Invariant } from './invariants.js';
import { nodeDataDir, startNodeProcess, type NodeProcess } from './node-process.js';
import { emptyLog, runOperations } from './operations.js';
import { prng } from './prng.js';
import type { ConvergenceConfig, ConvergenceReport } from './report.js';
import { emptyRoundLog, reconnect, untilQuiet } from './rounds.js';
import { APP_CLASSES, createSchema, kindOf } from './schema.js';
import { preloadClient, preloadNode, schemaDocuments } from './schema-preload.js';
import { readReplica, type Replica } from './snapshot.js';

export const SMALL: Omit<ConvergenceConfig, 'seed'> = { clients: 3, opsPerClient: 40, epochs: 2, batchSize: 10, maxQuietRounds: 4, kill: true, schema: 'sync' };
export const LARGE: Omit<ConvergenceConfig, 'seed'> = { clients: 5, opsPerClient: 200, epochs: 2, batchSize: 25, maxQuietRounds: 5, kill: true, schema: 'sync' };

const SETUP_OPS = 16;

export async function runConvergence(config: ConvergenceConfig): Promise<ConvergenceReport> {
  const started = Date.now();
  const rng = prng(config.seed);
  const dir = await mkdtemp(join(tmpdir(), 'docstack-convergence-'));
  const crashes: string[] = [];
  const onRejection = (reason: unknown) => crashes.push(`unhandled rejection: ${String((reason as Error)?.stack ?? reason).slice(0, 300)}`);
  const onException = (err: Error) => crashes.push(`uncaught exception: ${String(err?.stack ?? err).slice(0, 300)}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  const phases: Record<string, number> = {};
  let lap = Date.now();
  const mark = (phase: string) => {
    phases[phase] = (phases[phase] ?? 0) + Date.now() - lap;
    lap = Date.now();
  };
  const clients: Client[] = [];
  let node: NodeProcess | null = null;
  const replicas: Replica[] = [];
  try {
    for (let i = 0; i < config.clients; i++) clients.push(await openClient(i, config.seed));
    const ops = emptyLog();
    const rounds = emptyRoundLog();
    const setup: string[] = [];

    const [first, ...others] = clients;
    await first.stack.unlock(PASSPHRASE);
    await createSchema(first.stack);
    if (config.schema === 'preloaded') {
      const docs = await schemaDocuments(first.stack);
      await preloadNode(nodeDataDir(dir), docs);
      for (const client of others) {
        await preloadClient(client.stack, docs);
        await reopenClient(client);
      }
    }
    mark('clients and schema');
    node = await startNodeProcess(dir);
    mark('node start');
    await runOperations(first, rng.fork('setup'), 0, SETUP_OPS, ops);
    mark('operations');
    if (!(await untilQuiet(clients, node, rng.fork('setup-sync'), config.batchSize, config.maxQuietRounds, rounds))) setup.push('the setup sync found no quiet round');
    for (const client of others) {
      await client.stack.unlock(PASSPHRASE);
      const classes = new Set(await client.stack.listClasses());
      const missing = APP_CLASSES.filter((c) => !classes.has(c));
      if (missing.length > 0) setup.push(`${client.name} lacks the classes ${missing.join(', ')} after the setup sync`);
    }
    mark('setup sync and unlocks');

    const killEpoch = config.kill ? rng.int(1, config.epochs) : null;
    // a round moves about one batch per client each way: past that the kill would land between rounds
    const killAfter = rng.int(1, config.clients);
    const perEpoch = Math.ceil(config.opsPerClient / config.epochs);
    for (let epoch = 1; epoch <= config.epochs; epoch++) {
      for (const client of clients) await runOperations(client, rng.fork(`ops ${client.index} ${epoch}`), epoch, perEpoch, ops);
      mark('operations');
      await reconnect(clients, node, rng.fork(`reconnect ${epoch}`), config.batchSize, rounds, epoch, epoch === killEpoch ? killAfter : null);
      mark('reconnect (and kill, restart)');
      await untilQuiet(clients, node, rng.fork(`quiet ${epoch}`), config.batchSize, config.maxQuietRounds, rounds);
      mark('sync until quiet');
    }
    // the last epoch's rounds decide: quiet means a round at the end moved nothing
    const quiet = await untilQuiet(clients, node, rng.fork('final'), config.batchSize, 1, rounds);

    const deniedByClient = await Promise.all(clients.map(deniedList));
    const denied = deniedByClient.flat();
    await node.stop();
    const nodeStack = await node.openStore();
    replicas.push(await readReplica('node', nodeStack, { decrypts: false }));
    for (const client of clients) replicas.push(await readReplica(client.name, client.stack, { decrypts: true }));
    const keyringOnNode = (await nodeStack.storage.get('~Keyring-main')) !== null;
    mark('read replicas');

    const refusals = rounds.refusals.filter((r) => !r.expected);
    const refusedIds = new Set([...refusals.map((r) => r.id), ...denied.map((d) => d.id)]);
    const mismatches = compareReplicas(replicas);
    const fates = await fatesOf(ops.acked, replicas);
    const lostFates = fates.filter((f) => Object.values(f.outcomes).includes('lost'));
    const unlistedFates = fates.filter((f) => Object.values(f.outcomes).includes('unlisted'));
    const checked = replicas.map(checkInvariants);
    const violations = checked.flatMap((c) => c.violations);
    const heldApi = replicas.every((r) => r.held !== null);
    // what each waited-for name is on that replica (stored winner, active or not, or absent): the
    // difference between a lost wake-up and a dependency that never arrived
    const stateOf = (r: (typeof replicas)[number], name: string) => {
      const doc = r.docs.get(name);
      return doc ? `${name} stored${doc.body.active === false ? ' inactive' : ''} ${doc.rev}` : `${name} absent`;
    };
    const held = replicas.flatMap((r) => (r.held ?? []).map((h) => `${r.name}: ${h.id}@${h.rev} ${h.code ?? ''} waiting for ${JSON.stringify(h.waitingFor ?? null)} (${(Array.isArray(h.waitingFor) ? (h.waitingFor as string[]) : []).map((w) => stateOf(r, w)).join(', ')}; the document itself ${r.docs.has(h.id) ? `stored at ${r.docs.get(h.id)!.rev}` : 'absent'})`));

    const tally = <T>(items: T[], key: (t: T) => string) => items.reduce<Record<string, number>>((acc, t) => ((acc[key(t)] = (acc[key(t)] ?? 0) + 1), acc), {});
    const onNode = { winner: 0, conflict: 0, superseded: 0, unlisted: 0, lost: 0 };
    for (const f of fates) onNode[f.outcomes.node]++;
    mark('checks');
    const invariantCounts = Object.fromEntries(INVARIANTS.map((rule) => [rule, violations.filter((v) => v.rule === rule).length])) as Record<Invariant, number>;

    return {
      seed: config.seed,
      config,
      durationMs: Date.now() - started,
      phases,
      setup,
      writes: {
        acknowledged: ops.acked.length,
        byOp: tally(ops.acked, (w) => w.op),
        transactions: ops.transactions,
        refusedLocally: tally(ops.refusedLocally, (r) => `${r.op} ${r.code}`),
        unexpected: ops.unexpected.map((u) => `client ${u.client} ${u.op}: ${u.message}`),
      },
      sync: {
        rounds: rounds.rounds,
        quiet,
        failed: tally(rounds.failedAroundKill, (f) => f.replace(/^client \d+: /, '')),
        failedAfterRestart: tally(rounds.failedWithNodeUp, (f) => f.replace(/^client \d+: /, '')),
        kill: rounds.kill,
        crashes,
      },
      replicas: replicas.map((r) => ({
        name: r.name,
        docs: r.docs.size,
        conflicted: [...r.docs.values()].filter((d) => d.conflicts.length > 0).length,
        listed: r.listed.size,
        unlisted: r.unlistedConflicts.length,
        unlistedIds: r.unlistedConflicts,
        held: r.held === null ? null : r.held.length,
        hiddenTxMembers: r.hiddenTxMembers.size,
        sealedNotes: r.name === 'node' ? null : r.sealedNotes,
      })),
      mismatches: {
        count: mismatches.length,
        missingSomewhere: mismatches.filter((m) => Object.values(m.winners).includes('missing')).length,
        differentWinner: mismatches.filter((m) => new Set(Object.values(m.winners).filter((w) => w !== 'missing')).size > 1).length,
        refusedIds: mismatches.filter((m) => refusedIds.has(m.id)).length,
        examples: mismatches.map((m) => `${m.id}${refusedIds.has(m.id) ? ' (refused by a sync)' : ''}: ${Object.entries(m.winners).map(([r, w]) => `${r} ${w.slice(0, 8)}`).join(', ')}`),
      },
      acked: {
        onNode,
        lost: lostFates.length,
        unlisted: unlistedFates.length,
        lostAfterRefusal: lostFates.filter((f) => refusedIds.has(f.write.id)).length,
        lostSilently: lostFates.filter((f) => !refusedIds.has(f.write.id)).length,
        lostByOp: tally(lostFates, (f) => `${f.write.op} ${kindOf(f.write.id)}`),
        examples: lostFates.map((f) => `client ${f.write.client} ${f.write.op} ${f.write.id}@${f.write.rev.slice(0, 8)} lost on ${Object.entries(f.outcomes).filter(([, o]) => o === 'lost').map(([r]) => r).join(', ')}${refusedIds.has(f.write.id) ? ' (refused by a sync)' : ''}`),
      },
      refusals: {
        push: tally(refusals.filter((r) => r.direction === 'push'), (r) => `${r.code} ${kindOf(r.id)}`),
        pull: tally(refusals.filter((r) => r.direction === 'pull'), (r) => `${r.code} ${kindOf(r.id)}`),
        expected: tally(rounds.refusals.filter((r) => r.expected), (r) => r.code),
        listedInDenied: denied.length,
        // a push refusal the client's denied() does not list: refused in silence
        unlisted: refusals.filter((r) => r.direction === 'push' && !deniedByClient[r.client].some((d) => d.id === r.id)).length,
      },
      held: { api: heldApi, remaining: held.length, examples: held },
      invariants: { ...invariantCounts, examples: violations.map((v) => `${v.replica} ${v.rule}: ${v.detail}`), txIncomplete: checked.reduce((n, c) => n + c.txIncomplete, 0) },
      encryption: { sealedOnAnotherDevice: replicas.reduce((n, r) => n + (r.name === 'node' ? 0 : r.sealedNotes), 0), keyringOnNode },
    };
  } finally {
    for (const r of replicas) await r.stack.close().catch(() => undefined);
    for (const c of clients) await c.stack.close().catch(() => undefined);
    await node?.stop().catch(() => undefined);
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
