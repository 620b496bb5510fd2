/**
 * bench/convergence: issue #25's convergence run, large — 5 clients × 200 offline operations in
 * 2 epochs, a node child on leveldb killed with SIGKILL mid-sync, 5 seeds (the harness is
 * test/scenarios/convergence/; the CI test runs the small configuration). Not a ratio: it prints
 * each seed's report and records the counts in bench/results/convergence.json (settings.reports).
 * `--rounds` does not apply. CONVERGENCE_SEEDS=1,2 picks seeds; CONVERGENCE_SCHEMA=preloaded
 * copies the schema into every store first, to see the data's convergence on its own.
 */
import { failures, formatReport, type ConvergenceReport } from '../test/scenarios/convergence/report.js';
import { LARGE, runConvergence } from '../test/scenarios/convergence/run.js';
import type { BenchOptions, BenchReport } from './harness.js';

const SEEDS = (process.env.CONVERGENCE_SEEDS ?? '1,2,3,4,5').split(',').map(Number);
const SCHEMA = process.env.CONVERGENCE_SCHEMA === 'preloaded' ? 'preloaded' : 'sync';

export async function runConvergenceBench(options: BenchOptions): Promise<BenchReport> {
  const reports: ConvergenceReport[] = [];
  for (const seed of SEEDS) {
    options.log(`seed ${seed}: ${LARGE.clients} clients × ${LARGE.opsPerClient} operations, schema ${SCHEMA}`);
    const report = await runConvergence({ ...LARGE, seed, schema: SCHEMA });
    console.log(formatReport(report));
    reports.push(report);
  }
  const total = (pick: (r: ConvergenceReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
  const summary = {
    seeds: SEEDS,
    clean: reports.filter((r) => failures(r).length === 0).length,
    acknowledged: total((r) => r.writes.acknowledged),
    mismatched: total((r) => r.mismatches.count),
    lost: total((r) => r.acked.lost),
    lostSilently: total((r) => r.acked.lostSilently),
    refusals: total((r) => Object.values(r.refusals.push).reduce((a, b) => a + b, 0) + Object.values(r.refusals.pull).reduce((a, b) => a + b, 0)),
    heldRemaining: reports.every((r) => r.held.api) ? total((r) => r.held.remaining) : 'n/a (no stack.heldDocuments API)',
    invariantViolations: total((r) => r.invariants.primaryKey + r.invariants.foreignKey + r.invariants.cardinality + r.invariants.relationEnds + r.invariants.reference + r.invariants.txHidden + r.invariants.txPartial),
    sealedOnAnotherDevice: total((r) => r.encryption.sealedOnAnotherDevice),
  };
  console.log(`\nconvergence: ${summary.clean} of ${reports.length} seeds clean; ${JSON.stringify(summary)}`);
  return {
    bench: 'convergence',
    settings: {
      config: { ...LARGE, schema: SCHEMA },
      summary,
      // the counts of each seed; the examples stay in the printed report
      reports: reports.map(({ invariants, mismatches, acked, held, ...rest }) => ({
        ...rest,
        mismatches: { ...mismatches, examples: mismatches.examples.slice(0, 5) },
        acked: { ...acked, examples: acked.examples.slice(0, 5) },
        held: { ...held, examples: held.examples.slice(0, 5) },
        invariants: { ...invariants, examples: invariants.examples.slice(0, 5) },
      })),
    },
    results: [],
  };
}
