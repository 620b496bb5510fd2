import { PATCH_CLASS } from './model.js';
import { CLASS_META, type SystemPatch } from '../../index.js';
import { attr, metaClass } from '../../kit/index.js';

/**
 * The `~Patch` class belongs to this plugin: its documents are the versioned patches, which
 * replicate like data. Each peer creates the class itself (as for every `~` class); the patch
 * documents are what travels.
 */
export const patchClassPatch: SystemPatch = {
  id: 'patches/0001-patch-class',
  description: 'Creates the ~Patch class: versioned application patches that replicate.',
  async apply({ storage, now }) {
    if (await storage.get(PATCH_CLASS)) return;
    await storage.put({
      ...metaClass(PATCH_CLASS, CLASS_META, 'Versioned patches: { target, version, changes }, one document per target and version.', [
        attr('target', 'string', { mandatory: true, maxLength: 64 }),
        attr('version', 'string', { mandatory: true, maxLength: 128 }),
        attr('description', 'string'),
        attr('changes', 'object', { isArray: true, mandatory: true }),
        attr('author', 'string'),
        attr('after', 'string', { maxLength: 128 }),
      ], now),
    });
  },
};
