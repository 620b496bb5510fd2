/**
 * docstack/plugin-kit: what a plugin author needs beyond the engine's public API (`docstack`) —
 * handler registries, conditional taps, drafts, key and selector helpers, meta-classes, reaction
 * writes. Plugins import only `docstack` and this entry (test/package/layers.test.ts).
 */
export { HandlerRegistry, handlerRegistryOf, HANDLER_NAME, unknownHandler, type AnyHandler, type HandlerLookup } from '../kernel/handler-registry.js';
export { reactionWrite } from './reaction-write.js';
export { tapWhen, planFor, type TapWhen, type WritePlan } from '../kernel/write-plan.js';
export { classNameOf, createDraft, decodeNaturalKey, deleteDraft, isPlainObject, naturalDocId, naturalIdOf, nowIso, requireObject, updateDraft } from '../kernel/drafts.js';
export { KEYS } from '../kernel/container.js';
export { registerErrors } from '../contracts/errors.js';
export { claimFor, isNaturalClaim, keyIdOf, primaryKeyValues, type KeyClaim } from '../engine/indexes/primary-keys.js';
export { checkFindOptions } from '../engine/queries/reads.js';
export { compileSelector, projectFields, MAX_REGEX_WORK } from '../engine/queries/selector.js';
export { compileLinear, MAX_PATTERN, type LinearRegex } from '../engine/queries/linear-regex.js';
export { attr, metaClass } from '../engine/system-patches/0001-meta-model.js';
export { normalizeAttribute } from '../engine/model/attribute-rules.js';
export { toClassDocument, toClassModel, toFlatAttribute, toStoredAttribute } from '../engine/model/attribute-shape.js';
export { checkDefaultValue, ruleContext } from '../engine/model/attribute.js';
export type { AttributeTypes } from '../engine/model/attribute-types.js';
export { bulkDocsLine, type BulkDocsLine } from '../engine/ingest/ingest-lines.js';
export { isClassDocId, isEachPeersOwnClassDoc } from '../engine/class-cache.js';
export { travelCheck } from '../engine/travels.js';
export { whileObserved } from '../engine/model/observed.js';
export { registerPouchPlugin } from '../storage/pouch-plugins.js';
export { base64ToBytes, bytesToBase64, byteLengthOf, isBase64 } from '../engine/attachments/bytes.js';
