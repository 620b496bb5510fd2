/**
 * The browser bench's page script (bundled by test/browser/harness.ts with `docstack/browser`
 * importing the real bundle /docstack.js; the peers from bench/peers/node_modules). Node calls
 * `docstackTest.run(step, args)`; a timed step returns milliseconds (performance.now).
 */
import { itemAttributeList, prng } from '../items.js';
import { SIDES, type Item, type Side } from './sides.js';

/** `count` Items from number `from` on: the same documents for every side of a round. */
const items = (count: number, seed: number, from = 0): Item[] => itemAttributeList(count, from, seed);

const open = new Map<string, { side: Side; codes: string[] }>();

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const steps: Record<string, (args: Record<string, any>) => Promise<unknown>> = {
  /** opens side `side` on a fresh database `name` (not timed: schema, classes, categories) */
  async open({ side, name }) {
    if (!SIDES[side]) throw new Error(`no side "${side}"`);
    open.set(name, { side: await SIDES[side](name), codes: [] });
    return name;
  },
  /** one bulk insert of `docs` Items, timed */
  async bulk({ name, docs, seed }) {
    const db = open.get(name)!;
    const all = items(docs, seed);
    db.codes = all.map((a) => a.code);
    return timed(() => db.side.bulk(all));
  },
  /** `docs` single inserts one after the other, timed */
  async serial({ name, docs, seed }) {
    const db = open.get(name)!;
    const all = items(docs, seed, 1_000_000);
    return timed(async () => {
      for (const a of all) await db.side.insert(a);
    });
  },
  /** `count` lookups by primary key one after the other (codes drawn with `seed`), timed */
  async lookups({ name, count, seed }) {
    const db = open.get(name)!;
    const random = prng(seed);
    const picks = Array.from({ length: count }, () => db.codes[Math.floor(random() * db.codes.length)]);
    return timed(async () => {
      for (const code of picks) await db.side.lookup(code);
    });
  },
  /** closes and deletes database `name` (not timed) */
  async destroy({ name }) {
    await open.get(name)?.side.destroy();
    open.delete(name);
    return name;
  },
};

(globalThis as unknown as { docstackTest: unknown }).docstackTest = {
  run(step: string, args: Record<string, unknown> = {}) {
    const fn = steps[step];
    if (!fn) throw new Error(`no step "${step}"`);
    return fn(args);
  },
};
