import { metaModelPatch } from './0001-meta-model.js';
import { attributeModelPatch } from './0002-attribute-model.js';
import type { SystemPatch } from '../../kernel/patch-types.js';

export type { SystemPatch } from '../../kernel/patch-types.js';

/** Every system patch, in the order they apply. Append; never reorder or remove. */
export const SYSTEM_PATCHES: readonly SystemPatch[] = [metaModelPatch, attributeModelPatch];
