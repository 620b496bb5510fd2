import { CLASS_META, SELF_META, type ClassDocument } from '../../contracts/model.js';
import type { SystemPatch } from '../../kernel/patch-types.js';
import type { Storage } from '../../storage/facade.js';
import { isClassDocId } from '../class-cache.js';
import { hasFlatAttributes, toClassDocument } from '../model/attribute-shape.js';

const PAGE = 1000;

/**
 * Rewrites each stored class document whose attributes are flat (`{ name, type, maxLength }`,
 * as stores wrote them before) into the specification's shape (`{ name, type, config }`), once.
 *
 * Deterministic, so that two devices migrating the same revision make the same revision (a
 * PouchDB revision id is a hash of the content and its parent) and replicating them afterwards
 * leaves one leaf, no conflict: nothing but the schema's shape changes — no timestamp, no key
 * order — and only the winning revision is rewritten. A class document that arrives flat later
 * (from a peer running an older version) is read as it is, never rewritten for its shape.
 */
export const attributeModelPatch: SystemPatch = {
  id: '0002-attribute-model',
  description: 'Stores the attributes of class documents in the specification\'s shape { name, type, config, description? }.',
  async apply({ storage }) {
    for (const id of await classDocIds(storage)) {
      const doc = await storage.get<ClassDocument>(id);
      if (!doc || (doc['~class'] !== CLASS_META && doc['~class'] !== SELF_META) || !hasFlatAttributes(doc)) continue;
      try {
        await storage.put(toClassDocument(doc));
      } catch (err) {
        // another instance of the same store migrated it (or changed it) meanwhile: its revision stands
        if ((err as { status?: number }).status !== 409) throw err;
      }
    }
  },
};

/** The ids of the store that can be class documents (no `-`), by one pass over the id index. */
async function classDocIds(storage: Storage): Promise<string[]> {
  const ids: string[] = [];
  let start: string | undefined;
  for (;;) {
    const rows = await storage.range({ ...(start === undefined ? {} : { start, skip: 1 }), limit: PAGE });
    for (const row of rows) if (isClassDocId(row.id)) ids.push(row.id);
    if (rows.length < PAGE) return ids;
    start = rows[rows.length - 1].id;
  }
}
