/**
 * bench/pipeline's lookup step: `items.getByPrimaryKeys({ code })` ÷ raw `db.get` of the id the
 * engine derives from the key, on the stores the bulk step filled (same ids on both sides), with
 * the engine's reads also timed with its document cache set aside (shown). Each sample reads
 * `count` keys spread over the whole key range, the sides alternating in `blocks` slices
 * (harness.ts interleaved); a sample after the first reads the same keys in another order.
 */
import { interleaved, type Sample } from './harness.js';
import { itemId, prng, withoutDocumentCache, type Engine, type RawDb } from './pipeline-sides.js';

export type LookupSample = Record<'baseline' | 'engine' | 'uncached', Sample>;

/** Slice `block` of `blocks` equal slices of a list. */
function slice<T>(items: readonly T[], block: number, blocks: number): readonly T[] {
  const size = Math.ceil(items.length / blocks);
  return items.slice(block * size, (block + 1) * size);
}

/** `count` distinct indexes of [0, total), spread over the whole key range, in a shuffled order. */
function pickIndexes(total: number, count: number, seed: number): number[] {
  const step = Math.max(1, Math.floor(total / count));
  const picks = Array.from({ length: Math.min(count, total) }, (_, i) => (i * step) % total);
  const random = prng(seed * 7);
  for (let i = picks.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [picks[i], picks[j]] = [picks[j], picks[i]];
  }
  return picks;
}

/**
 * `samples` lookup samples of `count` keys of `codes` (every code the stores hold), the slices'
 * order starting from `order × samples + sample` (harness.ts interleaved flips it every slice).
 */
export async function lookupSamples(
  raw: RawDb,
  engine: Engine,
  codes: readonly string[],
  count: number,
  { samples, blocks, seed, order }: { samples: number; blocks: number; seed: number; order: number },
): Promise<LookupSample[]> {
  const taken: LookupSample[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const keys = pickIndexes(codes.length, count, seed + 97 * sample).map((i) => codes[i]);
    const read = async (block: number) => {
      for (const code of slice(keys, block, blocks)) {
        // a miss would time the cheap path: the bench refuses to report it
        if (!(await engine.items.getByPrimaryKeys({ code }))) throw new Error(`getByPrimaryKeys missed ${code}`);
      }
    };
    taken.push(
      await interleaved(
        {
          baseline: async (block) => {
            for (const code of slice(keys, block, blocks)) await raw.get(itemId(code));
          },
          engine: read,
          // the same reads with the store's document cache (storage/document-cache.ts) set aside for
          // the block: each one the adapter's two storage reads, as on a store just opened
          uncached: async (block) => {
            const cache = withoutDocumentCache(engine);
            try {
              await read(block);
            } finally {
              cache.restore();
            }
          },
        },
        blocks,
        order * samples + sample,
      ),
    );
  }
  return taken;
}
