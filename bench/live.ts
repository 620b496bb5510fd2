/**
 * bench/live: what an open live query costs a write (issue #31: "1,000 live queries open, 1
 * write → update cost per query"). One memory stack, a class of DOCS documents (`n` 0…DOCS-1),
 * QUERIES live queries on it, each with its own selector (`n` in [i, i + 50): about 50 documents
 * each, a write of a document matched by about 50 of them), plus one sentinel (no selector) made
 * last: the hub hands a tick's changes to the queries of a class in the order they were made, so
 * the sentinel's new result means every query has had the write.
 *
 * Per round, WRITES writes on each side, the sides alternating (harness.interleaved):
 *   - live: an update of a matched document's `n` (it leaves ≈ 50 results and enters ≈ 50),
 *     awaited until the sentinel published — every query decided from the changed document,
 *     the ≈ 100 concerned ones published a new result;
 *   - baseline: the same update on a second stack with the same class and documents and no
 *     live query (a write alone).
 * The difference over QUERIES is the update cost per query. A second row times what an app does
 * without live queries: the same write, then the selectors asked again with findDocuments — a
 * sample of SAMPLED of them, scaled to QUERIES (each is a class scan: asking all 1,000 takes a
 * minute a round).
 *
 * `LIVE_QUERIES=1000 LIVE_DOCS=1000 npm run bench -- live --rounds=3`
 */
import { Class, createStack, type ClientStack, type Doc, type LiveQuery } from '../index.js';
import { comparison, interleaved, record, summarize, type BenchOptions, type BenchReport } from './harness.js';

const QUERIES = Number(process.env.LIVE_QUERIES ?? 1_000);
const DOCS = Number(process.env.LIVE_DOCS ?? 1_000);
const WRITES = 20;
const WIDTH = 50;
const SAMPLED = 50;

async function openStack(name: string): Promise<{ stack: ClientStack; docs: Doc[] }> {
  const stack = await createStack({ name: `${name}-${process.pid}-${Date.now()}`, adapter: 'memory', plugins: [] });
  await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' }, label: { type: 'string' } });
  const docs = await stack.createDocs(Array.from({ length: DOCS }, (_, n) => ({ '~class': 'Item', n, label: `item ${n}` })));
  return { stack, docs };
}

const selectorOf = (i: number) => ({ n: { $gte: i % DOCS, $lt: (i % DOCS) + WIDTH } });

export async function runLive({ rounds, log }: BenchOptions): Promise<BenchReport> {
  const live = await openStack('bench-live');
  const plain = await openStack('bench-live-plain');
  const queries: LiveQuery[] = [];
  for (let i = 0; i < QUERIES; i++) queries.push(live.stack.live('Item', selectorOf(i)));
  const sentinel = live.stack.live('Item');
  await Promise.all([...queries, sentinel].map((q) => q.ready));
  log(`${QUERIES} live queries open on ${DOCS} documents (≈ ${WIDTH} each)`);
  const published = () => new Promise<void>((resolve) => {
    let first = true;
    const stop = sentinel.subscribe(() => (first ? (first = false) : (stop(), resolve())));
  });
  // each write moves one document by DOCS/2: out of the queries around its old value, into those around its new one
  let turn = 0;
  const move = async (stack: ClientStack, docs: Doc[]) => {
    const doc = docs[(turn * 37) % DOCS];
    const current = (await stack.getDocument(doc._id))!;
    await stack.updateDoc(doc._id, { n: ((current.n as number) + DOCS / 2) % DOCS });
  };
  const write = comparison({ name: `1 update, ${QUERIES} live queries open`, adapter: 'memory', engine: 'update → every live query told', baseline: 'update, no live query' });
  const byHand = comparison({ name: `1 update, then ${QUERIES} findDocuments`, adapter: 'memory', engine: `update + ${QUERIES} findDocuments`, baseline: 'update → every live query told' });
  for (let round = 0; round <= rounds; round++) {
    const samples = await interleaved({
      live: async () => {
        for (let w = 0; w < WRITES; w++, turn++) {
          const told = published();
          await move(live.stack, live.docs);
          await told;
        }
      },
      plain: async () => {
        for (let w = 0; w < WRITES; w++, turn++) await move(plain.stack, plain.docs);
      },
    }, 2, round);
    const requery = await interleaved({
      requery: async () => {
        turn++;
        await move(plain.stack, plain.docs);
        for (let i = 0; i < SAMPLED; i++) await plain.stack.findDocuments('Item', selectorOf(i * Math.floor(QUERIES / SAMPLED)));
      },
    }, 1, round);
    if (round === 0) continue; // warm-up
    const per = (s: { wallMs: number; cpuMs: number }, n: number) => ({ wallMs: s.wallMs / n, cpuMs: s.cpuMs / n });
    record(write, per(samples.live, 2 * WRITES), per(samples.plain, 2 * WRITES));
    record(byHand, per(requery.requery, SAMPLED / QUERIES), per(samples.live, 2 * WRITES));
    const perQueryUs = ((samples.live.cpuMs - samples.plain.cpuMs) / (2 * WRITES) / QUERIES) * 1000;
    log(`round ${round}: live ${(samples.live.wallMs / (2 * WRITES)).toFixed(2)} ms/write, plain ${(samples.plain.wallMs / (2 * WRITES)).toFixed(2)} ms/write → ${perQueryUs.toFixed(2)} µs CPU per live query per write; by hand ${((requery.requery.wallMs * QUERIES) / SAMPLED).toFixed(0)} ms (scaled from ${SAMPLED})`);
  }
  for (const q of [...queries, sentinel]) q.close();
  await live.stack.close();
  await plain.stack.close();
  return { bench: 'live', settings: { queries: QUERIES, docs: DOCS, writesPerRound: 2 * WRITES, width: WIDTH, rounds }, results: [summarize(write), summarize(byHand)] };
}
