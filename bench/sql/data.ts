import { Class, createStack } from '../../index.js';
import { browserWithSql, type BrowserSqlStack } from '../../plugins.config.js';

export const READINGS = 100_000;
export const SENSORS = 1_000;
/** 1% of the readings: the range queries' window */
export const WINDOW = READINGS / 100;

/** The value of reading i: a permutation of 0..N-1, so a value window is 1% of the rows, spread over the id order. */
export const valueOf = (i: number) => (i * 7919) % READINGS;

/**
 * A Sensor class (1,000, name primary key, zone indexed) and a Reading class (100,000) with `code` (primary
 * key), `score` (integer, indexed), `noise` (the same integer, not indexed: the full-scan
 * twin of every query), `grp` (100 groups), `sensor` (foreign key, indexed) and a label.
 */
export async function openBench(log: (line: string) => void): Promise<{ stack: BrowserSqlStack; codes: string[]; labels: string[] }> {
  const stack = await createStack({ name: `bench-sql-${Date.now()}`, adapter: 'memory', plugins: browserWithSql });
  await Class.create(stack, 'Sensor', 'class', '', { name: { type: 'string', primaryKey: true }, zone: { type: 'string', indexed: true } });
  await Class.create(stack, 'Reading', 'class', '', {
    code: { type: 'string', primaryKey: true },
    score: { type: 'integer', indexed: true },
    noise: { type: 'integer' },
    grp: { type: 'integer' },
    sensor: { type: 'foreign_key', targetClass: 'Sensor', indexed: true },
    label: { type: 'string' },
  });
  const sensors = await stack.createDocs(Array.from({ length: SENSORS }, (_, i) => ({ '~class': 'Sensor', name: `S${i}`, zone: `z${i % 10}` })));
  const codes: string[] = [];
  const labels: string[] = [];
  for (let start = 0; start < READINGS; start += 5000) {
    const docs = Array.from({ length: 5000 }, (_, k) => {
      const i = start + k;
      codes.push(`R${i}`);
      labels.push(`reading ${i}`);
      return { '~class': 'Reading', code: `R${i}`, score: valueOf(i), noise: valueOf(i), grp: i % 100, sensor: sensors[i % SENSORS]._id, label: `reading ${i}` };
    });
    await stack.createDocs(docs);
    if ((start + 5000) % 25_000 === 0) log(`sql: ${start + 5000} readings stored`);
  }
  return { stack, codes, labels };
}
