import { CLASS_META, DOMAIN_META, type SystemPatch } from '../../index.js';
import { attr, metaClass } from '../../kit/index.js';

/**
 * The `domain` meta-class belongs to this plugin: a stack without domains has no domain
 * documents to describe. Stores created before this patch existed got it from the kernel's
 * 0001-meta-model; the patch only adds it where it is missing (also safe after a replication).
 */
export const domainMetaClassPatch: SystemPatch = {
  id: 'domains/0001-domain-meta-class',
  description: 'Creates the domain meta-class: typed relations between two classes.',
  async apply({ storage, now }) {
    if (await storage.get(DOMAIN_META)) return;
    await storage.put({
      ...metaClass(DOMAIN_META, CLASS_META, 'The meta-class of domains: typed relations between two classes.', [
        attr('name', 'string', { mandatory: true, primaryKey: true, maxLength: 64 }),
        attr('description', 'string'),
        attr('relation', 'enum', { mandatory: true, values: [{ value: '1:1' }, { value: '1:N' }, { value: 'N:1' }, { value: 'N:N' }] }),
        attr('sourceClass', 'string', { mandatory: true }),
        attr('targetClass', 'string', { mandatory: true }),
      ], now),
    });
  },
};
