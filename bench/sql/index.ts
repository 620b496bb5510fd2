/**
 * bench/sql: `stack.sql` over 100,000 documents (memory adapter), warm. Each query runs beside
 * its full-scan twin (the same statement on `noise`, an attribute with the same values but no
 * index) in the same round; the indexed range also runs beside pouchdb-find (an index on the
 * same field, same store) and RxDB's memory storage (an indexed field). Aims: the indexed
 * range ≥ 50× faster than the scan (ratio ≤ 0.02) and < 20 ms; at least as fast as pouchdb-find.
 */
import { comparison, measure, record, summarize, type BenchReport, type Comparison, type Sample } from '../harness.js';
import { openBench, READINGS, WINDOW } from './data.js';
import { pouchdbFindRange, rxdbRange } from './peers.js';

interface Options {
  rounds: number;
  log: (line: string) => void;
}

export async function runSql(options: Options): Promise<BenchReport> {
  const { log } = options;
  const { stack, codes, labels } = await openBench(log);
  const sql = (statement: string, params: unknown[]) => stack.sql<unknown[]>(statement, params);
  const built = await measure(() => sql('SELECT COUNT(*) AS n FROM Reading WHERE score < 0', []));
  log(`sql: index built in ${built.wallMs.toFixed(0)} ms`);
  const find = await pouchdbFindRange(stack);
  const rx = await rxdbRange(log);
  const c = (name: string, engine: string, baseline: string, aim?: { max: number; binding: boolean }) => comparison({ name, adapter: 'memory', engine, baseline, ...(aim ? { aim } : {}) });
  const cmp: Record<string, Comparison> = {
    range: c('range 1% (1,000 of 100,000)', 'score (indexed)', 'noise (full scan)', { max: 0.02, binding: true }),
    pk: c('primary-key equality', 'code = ?', 'label = ? (full scan)'),
    join: c('2-class equality join + 1% filter', 'score range, sensor by _id', 'noise range (full scan)'),
    group: c('GROUP BY over 100,000', 'GROUP BY grp', 'SELECT * (full scan)'),
    find: c('range 1%: engine vs pouchdb-find', 'stack.sql', 'pouchdb-find', { max: 1, binding: true }),
    ...(rx ? { rx: c('range 1%: engine vs RxDB memory', 'stack.sql', 'RxDB memory storage') } : {}),
  };
  const windows = (n: number) => (n * 37_813) % (READINGS - WINDOW);
  const RANGE = (col: string) => `SELECT * FROM Reading WHERE ${col} >= ? AND ${col} < ?`;
  const JOIN = (col: string) => `SELECT s.name, s.zone, r.score FROM Reading r JOIN Sensor s ON r.sensor = s._id WHERE r.${col} >= ? AND r.${col} < ?`;
  const rangeRows: number[] = [];
  for (let n = 0; n <= options.rounds; n++) {
    log(`sql: ${n === 0 ? 'warm-up' : `round ${n}/${options.rounds}`}`);
    const lo = windows(n);
    const p = [lo, lo + WINDOW];
    const warm = async (statement: string, params: unknown[]): Promise<Sample> => {
      await sql(statement, params); // warm: the same statement once before it is timed
      return measure(() => sql(statement, params));
    };
    const samples = {
      range: await warm(RANGE('score'), p),
      rangeScan: await measure(() => sql(RANGE('noise'), p)),
      pk: await warm('SELECT * FROM Reading WHERE code = ?', [codes[lo]]),
      pkScan: await measure(() => sql('SELECT * FROM Reading WHERE label = ?', [labels[lo]])),
      join: await warm(JOIN('score'), p),
      joinScan: await measure(() => sql(JOIN('noise'), p)),
      group: await warm('SELECT grp, COUNT(*) AS n, AVG(score) AS mean FROM Reading GROUP BY grp', []),
      all: await measure(() => sql('SELECT * FROM Reading', [])),
      find: (await find(lo, lo + WINDOW), await measure(() => find(lo, lo + WINDOW))),
      rx: rx ? (await rx.query(lo, lo + WINDOW), await measure(() => rx.query(lo, lo + WINDOW))) : null,
    };
    rangeRows.push((await sql(RANGE('score'), p)).length);
    if (n === 0) continue;
    record(cmp.range, samples.range, samples.rangeScan);
    record(cmp.pk, samples.pk, samples.pkScan);
    record(cmp.join, samples.join, samples.joinScan);
    record(cmp.group, samples.group, samples.all);
    record(cmp.find, samples.range, samples.find);
    if (rx && samples.rx) record(cmp.rx, samples.range, samples.rx);
  }
  const plan = await sql(`EXPLAIN ${JOIN('score')}`, [0, WINDOW]);
  await stack.close();
  await rx?.close();
  const results = Object.values(cmp).map(summarize);
  const rangeMs = results[0].engineMedianMs;
  return {
    bench: 'sql',
    settings: {
      adapter: 'memory',
      readings: READINGS,
      sensors: 1000,
      rowsPerRange: rangeRows,
      indexBuildMs: Math.round(built.wallMs),
      rxdb: rx ? 'rxdb memory storage (bench/peers)' : 'not installed',
      absoluteAim: { name: 'indexed range, warm', aimMs: 20, medianMs: rangeMs, status: rangeMs < 20 ? 'ok' : 'MISSED' },
      joinPlan: plan,
    },
    results,
  };
}
