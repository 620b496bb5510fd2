/**
 * The bench's Item documents, shared by bench/pipeline (Node) and bench/browser (the Chromium
 * page, which bundles this file): no imports, so it bundles anywhere. Deterministic values, so
 * every run and every side of a round sees the same documents.
 */

/** mulberry32: a small seeded generator. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const STATUSES = ['draft', 'active', 'retired'] as const;
export const CATEGORIES = 5;
export const categoryId = (n: number) => `Category-${n}`;
const DAY_MS = 86_400_000;
const EPOCH_2000 = Date.UTC(2000, 0, 1);

/** The eight attributes: one of each scalar type, a second (bounded) string and a foreign key. */
export const ITEM_SCHEMA = {
  code: { type: 'string', primaryKey: true, maxLength: 24 },
  label: { type: 'string', maxLength: 80 },
  quantity: { type: 'integer', min: 0, max: 1_000_000 },
  price: { type: 'decimal', precision: 2, min: 0 },
  inStock: { type: 'boolean' },
  releasedOn: { type: 'date', format: 'YYYY-MM-DD' },
  status: { type: 'enum', values: [...STATUSES] },
  category: { type: 'foreign_key', targetClass: 'Category', mandatory: true },
};

export type Attributes = Record<string, unknown> & { code: string };

/** The attributes of items offset … offset + count − 1 (what a caller hands createDoc, minus `~class`). */
export function itemAttributeList(count: number, offset: number, seed: number): Attributes[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, k) => {
    const n = offset + k;
    return {
      code: `ITEM-${String(n).padStart(7, '0')}`,
      label: `Bench item number ${n}, ${STATUSES[n % 3]} lot`,
      quantity: Math.floor(random() * 10_000),
      price: Math.round(random() * 1_000_000) / 100, // at most 2 decimals, as the precision demands
      inStock: random() < 0.5,
      releasedOn: new Date(EPOCH_2000 + Math.floor(random() * 9_000) * DAY_MS).toISOString().slice(0, 10),
      status: STATUSES[Math.floor(random() * STATUSES.length)],
      category: categoryId(1 + (n % CATEGORIES)),
    };
  });
}
