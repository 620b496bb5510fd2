import { domainIdOf, MAX_ID_LENGTH, type DomainModel } from './model.js';
import { type ClassModel, DOMAIN_META, domainDocId, type SystemPatch } from '../../index.js';
import { attr } from '../../kit/index.js';

/**
 * Domain documents in the SPEC's shape: the `domain` meta-class gains `id` and `type`, and the
 * domain documents stored before get them (`id` from their `_id`: the name for a domain created
 * with a null id, the caller's id otherwise; `type: 'domain'`). Optional in the meta-class: a
 * peer on an older version still sends domains without them, and they still work.
 *
 * Deterministic: nothing depends on the clock or the device, and PouchDB's revision ids are a
 * hash of the content, so two replicas migrating the same revision write the same next revision
 * (no conflict, no ping-pong when they sync). A replica that already received a migrated
 * revision by replication finds nothing to do.
 */
export const domainSpecShapePatch: SystemPatch = {
  id: 'domains/0002-domain-spec-shape',
  description: 'Domain documents carry the SPEC\'s id and type (type: "domain").',
  async apply({ storage }) {
    const meta = await storage.get<ClassModel>(DOMAIN_META);
    if (meta && (!meta.schema.id || !meta.schema.type)) {
      await storage.put({
        ...meta,
        schema: {
          ...meta.schema,
          id: meta.schema.id ?? attr('id', 'string', { maxLength: MAX_ID_LENGTH }),
          type: meta.schema.type ?? attr('type', 'enum', { values: [{ value: DOMAIN_META }] }),
        },
      });
    }
    for (const row of await storage.range({ prefix: domainDocId(''), includeDocs: true })) {
      const doc = row.doc as unknown as DomainModel;
      if (doc['~class'] !== DOMAIN_META || (doc.type === DOMAIN_META && typeof doc.id === 'string')) continue;
      await storage.put({ ...doc, type: DOMAIN_META, id: domainIdOf(doc) });
    }
  },
};
