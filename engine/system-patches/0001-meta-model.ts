import { CLASS_META, SELF_META, type AttributeModel, type ClassDocument } from '../../contracts/model.js';
import { toClassDocument } from '../model/attribute-shape.js';
import type { SystemPatch } from '../../kernel/patch-types.js';

export const attr = (name: string, type: AttributeModel['type'], extra: Partial<AttributeModel> = {}): AttributeModel => ({
  name,
  type,
  ...extra,
});

/** A meta-class or engine class document, as stored (attributes in the stored shape `{ name, type, config }`). */
export function metaClass(id: string, ofClass: string, description: string, schema: AttributeModel[], now: string): ClassDocument {
  return toClassDocument({
    _id: id,
    '~class': ofClass,
    '~createTimestamp': now,
    active: true,
    name: id,
    description,
    parentClass: null,
    schema: Object.fromEntries(schema.map((a) => [a.name, a])),
    triggers: [],
    simple: false,
    ephemeral: false,
    tenants: [],
    defaultScope: null,
  });
}

export const metaModelPatch: SystemPatch = {
  id: '0001-meta-model',
  description: 'Creates the class meta-class (~class ~self); the domain meta-class is the domains plugin\'s patch.',
  async apply({ storage, now }) {
    const docs = [
      metaClass(CLASS_META, SELF_META, 'The meta-class: every class document is one of these.', [
        attr('name', 'string', { mandatory: true, primaryKey: true, maxLength: 64 }),
        attr('description', 'string'),
        attr('parentClass', 'string'),
        attr('schema', 'object'),
        attr('triggers', 'object', { isArray: true }),
        attr('simple', 'boolean', { defaultValue: false }),
        attr('ephemeral', 'boolean', { defaultValue: false }),
        attr('tenants', 'string', { isArray: true }),
        attr('defaultScope', 'string'),
      ], now),
    ];
    // Only what is missing: a replica may already hold these documents.
    const existing = await storage.getMany(docs.map((d) => d._id));
    for (const [i, doc] of docs.entries()) if (!existing[i]) await storage.put({ ...doc });
  },
};
