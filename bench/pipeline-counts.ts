/**
 * bench/pipeline's count: `stack.countDocuments('Item')`, the mean of COUNT_CALLS calls, on a
 * store the bulk step filled and once on a store of BIG items; beside it the mean of one raw
 * `get` on the same store (a count is one storage read at most).
 */
import { time } from './harness.js';
import { dropEngine, engineInputs, itemAttributeList, itemId, openEngine, storeOf, type Engine, type Place } from './pipeline-sides.js';

export const BIG = 100_000;
const COUNT_CALLS = 100;

/** `calls` calls in a row after one untimed call and a quiet moment (timers of the last step run before, not inside): the mean. */
async function meanMs(calls: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const block = await time(async () => {
    for (let k = 0; k < calls; k++) await fn();
  });
  return block.wallMs / calls;
}

/** The mean ms of a count, and of one raw `get` of a document of the same store (what one storage read costs there, for reference). */
export async function countOf(engine: Engine, expected: number): Promise<{ count: number; rawGet: number }> {
  const n = await engine.stack.countDocuments('Item');
  if (n !== expected) throw new Error(`countDocuments said ${n}, expected ${expected}`);
  const count = await meanMs(COUNT_CALLS, () => engine.stack.countDocuments('Item'));
  const store = storeOf(engine);
  const id = itemId(itemAttributeList(1, 0, 1)[0].code);
  return { count, rawGet: await meanMs(COUNT_CALLS, () => store.get(id)) };
}

/** The count on a store of BIG items (filled once, not timed), mean of COUNT_CALLS calls per round. */
export async function bigCount(place: Place, rounds: number, batch: number, log: (line: string) => void): Promise<{ count: number; rawGet: number }[]> {
  log(`pipeline/${place.adapter}: storing ${BIG.toLocaleString('en-US')} items for the count`);
  const engine = await openEngine(place);
  for (let start = 0; start < BIG; start += batch) await engine.stack.createDocs(engineInputs(itemAttributeList(batch, start, 7)));
  const times: { count: number; rawGet: number }[] = [];
  for (let round = 0; round < rounds; round++) times.push(await countOf(engine, BIG));
  await dropEngine(engine, place);
  return times;
}
