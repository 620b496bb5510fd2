/**
 * bench/query-cost: what the attack queries of issue #26 cost a node, before and after the cost
 * model (docs/sql.md#cost-limits, docs/server.md): each attack's answer time and the node's
 * longest event-loop stall while it runs (perf_hooks.monitorEventLoopDelay, 1 ms resolution).
 * "Before" runs the same work the old way in-process (V8's backtracking RegExp for `$regex`,
 * alasql's own LIKE, a statement without a budget), on smaller inputs where the old way takes
 * seconds; "after" sends the attacks over HTTP as a logged-in user who is not an admin.
 * It also times alasql over growing join combinations: the figures the SQL budget's default
 * (100,000 combinations) was chosen from. Run: npx tsx bench/query-cost.ts
 */
import { writeFile } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import alasql from 'alasql';
import { Class } from '../index.js';
import { createUser } from '../server/auth/index.js';
import type { ServerStack } from '../plugins.config.js';
import { startBenchNode } from './bench-node.js';

const originalLike = (alasql as unknown as { utils: { like: (p: string, v: string) => boolean } }).utils.like;

async function measure<T>(work: () => Promise<T> | T): Promise<{ ms: number; lagMs: number; result: T }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await new Promise((r) => setTimeout(r, 5));
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  await new Promise((r) => setTimeout(r, 5));
  h.disable();
  return { ms, lagMs: h.max / 1e6, result };
}

const rows: string[] = [];
const line = (what: string, m: { ms: number; lagMs: number; result?: unknown }, outcome: string) => {
  if (outcome === '' && typeof m.result === 'string') outcome = m.result;
  const text = `${what.padEnd(62)} ${m.ms.toFixed(0).padStart(7)} ms   max loop lag ${m.lagMs.toFixed(0).padStart(6)} ms   ${outcome}`;
  rows.push(text);
  console.log(text);
};

async function main(): Promise<void> {
  const user = { username: 'mallory', password: 'mallory password for bench' };
  const bench = await startBenchNode('query-cost', {
    setup: async (node) => {
      await createUser(node.stack(), user.username, user.password);
      await Class.create(node.stack(), 'Note', 'class', 'notes', { title: { type: 'string' }, n: { type: 'integer' } });
    },
  });
  try {
    const stack = bench.node.stack() as unknown as ServerStack;
    await stack.createDocs(Array.from({ length: 100 }, (_, i) => ({ '~class': 'Note', title: `note ${i}`, n: i })) as never[]);
    await stack.createDocs([{ '~class': 'Note', title: `${'a'.repeat(31)}!`, n: -1 }, { '~class': 'Note', title: 'a'.repeat(4000), n: -2 }, { '~class': 'Note', title: 'aaaa', n: -3 }] as never[]);
    const res = await fetch(`${bench.origin}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(user) });
    const token = /jwtToken=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const rest = async (q: unknown) => {
      const r = await fetch(`${bench.origin}/api/private/docs/Note?q=${encodeURIComponent(JSON.stringify(q))}`, { headers });
      const body = (await r.json()) as { docs?: unknown[]; code?: string };
      return `${r.status} ${body.code ?? `${body.docs?.length} docs`}`;
    };
    const sql = async (statement: string) => {
      const r = await fetch(`${bench.origin}/api/private/sql`, { method: 'POST', headers, body: JSON.stringify({ statement }) });
      const body = (await r.json()) as { rows?: unknown[]; code?: string };
      return `${r.status} ${body.code ?? `${body.rows?.length} rows`}`;
    };
    const join4 = 'SELECT COUNT(*) AS c FROM Note a JOIN Note b ON a.n < b.n JOIN Note c ON b.n < c.n JOIN Note d ON c.n < d.n';

    console.log('— before (the old way, in-process) —');
    for (const n of [22, 24, 26]) {
      line(`$regex ^(a+)+$ on V8's RegExp over ${n + 1} characters`, await measure(() => /^(a+)+$/.test(`${'a'.repeat(n)}!`)), '(doubles per character: 31 → ~32× the 26 figure)');
    }
    for (const n of [1000, 2000]) {
      line(`LIKE '%a%a%b' on alasql's own LIKE over ${n} characters`, await measure(() => originalLike('%a%a%b', 'a'.repeat(n))), '(≈ n³: 4,000 → 8× the 2,000 figure)');
    }
    line('4-way self-join over 103 notes, no budget (stack.sql)', await measure(() => stack.sql(join4)), 'answered');

    console.log('— alasql alone (synchronous) by join combinations: calibrates SQL_BUDGET_COMBINATIONS —');
    for (const size of [224, 316, 447, 632]) {
      const table = Array.from({ length: size }, (_, i) => ({ n: i, title: `note ${i}` }));
      const run = () => alasql('SELECT COUNT(*) AS c FROM ? a JOIN ? b ON a.n + b.n = -5 WHERE a.title LIKE ?', [table, table, '%x%']);
      run();
      line(`2-way join, ${size}² = ${size * size} combinations`, await measure(run), '');
    }
    for (const size of [37, 47, 58, 74]) {
      const table = Array.from({ length: size }, (_, i) => ({ n: i, title: `note ${i}` }));
      const run = () => alasql('SELECT COUNT(*) AS c FROM ? a JOIN ? b ON a.n < b.n JOIN ? c ON b.n < c.n', [table, table, table]);
      run();
      line(`3-way join, ${size}³ = ${size ** 3} combinations`, await measure(run), '');
    }
    console.log('— after (over HTTP, a logged-in non-admin user) —');
    line('REST $regex ^(a+)+$ over a 32-character title', await measure(() => rest({ title: { $regex: '^(a+)+$' } })), '');
    line('REST $regex (a)\\1 (a backreference)', await measure(() => rest({ title: { $regex: '(a)\\1' } })), '');
    line("SQL LIKE '%a%a%b' over a 4,000-character title", await measure(() => sql("SELECT n FROM Note WHERE title LIKE '%a%a%b'")), '');
    line("SQL LIKE '[a]%a%b' (RE2 path) over a 4,000-character title", await measure(() => sql("SELECT n FROM Note WHERE title LIKE '[a]%a%b'")), '');
    line('… again (RE2 warm)', await measure(() => sql("SELECT n FROM Note WHERE title LIKE '[a]%a%c'")), '');
    line('SQL 4-way self-join over 103 notes', await measure(() => sql(join4)), '');
    line('SQL 2-way equi-join over 103 notes', await measure(() => sql('SELECT COUNT(*) AS c FROM Note a JOIN Note b ON a.n = b.n')), '');
    line('SQL nested 10,000 parentheses', await measure(() => sql(`SELECT n FROM Note WHERE ${'('.repeat(10_000)}n > 1${')'.repeat(10_000)}`)), '');
    line('SQL 20,000 NOTs', await measure(() => sql(`SELECT n FROM Note WHERE ${'NOT '.repeat(20_000)}n > 1`)), '');
    const burst = await measure(() => Promise.all(Array.from({ length: 6 }, () => sql(join4))));
    line('6 concurrent 4-way joins of one user', burst, burst.result.join(', '));
  } finally {
    await bench.stop();
  }
  // kept in git like the other benches' results, so a change in the figures shows in review
  await writeFile(new URL('./results/query-cost.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString(), lines: rows }, null, 2)}\n`);
}

await main();
