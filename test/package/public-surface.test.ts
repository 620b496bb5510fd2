import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportedNames } from './entry-names.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * What each public entry exports, types included: a name added or dropped is an API change, made
 * here on purpose (and in docs/plugins.md or docs/architecture.md), never by accident.
 */
const DOCSTACK = [
    'ATTRIBUTE_TYPES', 'AdapterName', 'AdmitContext', 'ApiOf', 'Attachment', 'AttachmentData', 'AttachmentInput', 'AttachmentReadContext', 'Attribute', 'AttributeConfig',
    'AttributeContext', 'AttributeModel', 'AttributesOf', 'AttributeType', 'AttributeTypeDefinition', 'CLASS_META',
    'ChangeEvent', 'Class', 'ClassDocument', 'ClassModel', 'ClassOptions', 'ClassSchema', 'ClientStack', 'Clock', 'BUILTIN_CONFLICT_POLICIES', 'ConfigKeyDefinition', 'ConflictCase', 'ConflictEvent', 'ConflictFailedEvent', 'ConflictHandler', 'ConflictPolicy', 'ConflictResolvedEvent',
    'ConfigKeyRule', 'DEFAULT_ATTACHMENT_MAX_BYTES', 'DOMAIN_META', 'DefaultValueContext', 'Denial', 'DenialRecord', 'DenialResolution', 'Doc', 'DocChangeEvent', 'DocConflict', 'DocFields', 'DocOf', 'DocstackClasses',
    'DocstackError', 'ERROR_CODES', 'EngineDoc', 'EnumValue', 'ErrorCode', 'ErrorFactory', 'ErrorSpec',
    'FetchOptions', 'FindCandidates', 'FindContext', 'FindOptions', 'GetOptions', 'HeldEntry', 'HeldReason',
    'IngestDoc', 'IngestItem', 'IngestOptions', 'IngestRefusal', 'IngestResult', 'Kernel', 'KERNEL_ERRORS', 'KernelHooks',
    'LiveHandle', 'LiveObserver', 'LiveOptions', 'LiveQuery', 'LocalDoc', 'MappedClass', 'NewDoc', 'NewDocOf', 'OpenRevision', 'PatternMatcher', 'PendingDocs', 'Plugin', 'PluginEntry',
    'PluginMembers', 'RangeOptions', 'RangeRow', 'ReadContext', 'RegexEngine', 'ReplicationAllDocsOptions',
    'ReplicationBulkGetOptions', 'ReplicationChangesOptions', 'ReplicationGetOptions', 'ReplicationStep',
    'ReplicationTarget', 'ReplicationTargetOptions', 'ReplicationWriteResult', 'RevisionDoc', 'SEALED_ATTACHMENT_ALLOWANCE', 'SELF_META',
    'SYSTEM_FIELDS', 'Selector', 'SortKey', 'StackOptions', 'StackPort', 'StackWith', 'Storage', 'StorageChanges',
    'StorageInfo', 'StorageOptions', 'StorageReplication', 'StoredAttribute', 'StoredResult', 'SystemPatch', 'UnitDoc',
    'UnitItem', 'UnitOfWork', 'UnmappedClass', 'WriteBatch', 'WriteContext', 'WriteExtras', 'WriteOp', 'WriteOptions',
    'WriteOrigin', 'WritePart', 'WriteRequest', 'WriteSession', 'WriteShare', 'createError', 'createStack', 'definePlugin',
    'destroyStore', 'domainDocId', 'enumValues', 'getApi', 'isDocstackError', 'isEngineClassName', 'primaryKeyAttributes',
    'registeredErrors', 'systemClock', 'withPlugin', 'withoutPlugins',
];

const PLUGIN_KIT = [
    'AnyHandler', 'AttributeTypes', 'BulkDocsLine', 'base64ToBytes', 'byteLengthOf', 'bytesToBase64', 'isBase64', 'HANDLER_NAME', 'HandlerLookup', 'HandlerRegistry',
    'KEYS', 'KeyClaim', 'LinearRegex', 'MAX_PATTERN', 'MAX_REGEX_WORK', 'TapWhen', 'WritePlan', 'attr',
    'bulkDocsLine', 'checkDefaultValue', 'checkFindOptions', 'claimFor', 'classNameOf', 'compileLinear',
    'compileSelector', 'createDraft', 'decodeNaturalKey', 'deleteDraft', 'handlerRegistryOf', 'isClassDocId',
    'isEachPeersOwnClassDoc', 'isNaturalClaim', 'isPlainObject', 'keyIdOf', 'metaClass', 'naturalDocId', 'naturalIdOf', 'normalizeAttribute', 'nowIso',
    'planFor', 'primaryKeyValues', 'projectFields', 'reactionWrite', 'registerErrors', 'registerPouchPlugin',
    'requireObject', 'ruleContext', 'tapWhen', 'toClassDocument', 'toClassModel', 'toFlatAttribute', 'toStoredAttribute',
    'travelCheck', 'unknownHandler', 'updateDraft',
    'whileObserved',
];

/** docstack/react: the provider and hooks, nothing of the engine (React is an optional peer dependency). */
const REACT = ['DocumentState', 'LiveQueryState', 'StackProvider', 'SyncStatusSource', 'useDocument', 'useLiveQuery', 'useStack', 'useSyncState'];

/** Internals that once leaked from the root entry: plugin helpers live in the kit, the rest nowhere public. */
const NOT_IN_DOCSTACK = ['KEYS', 'registerErrors', 'isClassDocId', 'bulkDocsLine', 'HandlerRegistry', 'tapWhen', 'isPlainObject', 'validationPlugin', 'syncPlugin'];

describe('the public surface', () => {
  it('docstack exports the engine: what a user or a plugin author programs against, nothing internal', () => {
    const names = exportedNames(ROOT, 'index.ts');
    expect(names).toEqual([...DOCSTACK].sort());
    for (const internal of NOT_IN_DOCSTACK) expect(names).not.toContain(internal);
    expect(names).toContain('WriteRequest');
  });

  it('docstack/plugin-kit exports the plugin helpers, and no name of docstack twice', () => {
    const names = exportedNames(ROOT, 'kit/index.ts');
    expect(names).toEqual([...PLUGIN_KIT].sort());
    expect(names.filter((n) => DOCSTACK.includes(n))).toEqual([]);
  });

  it('docstack/react exports the provider and the hooks, and no name of docstack', () => {
    const names = exportedNames(ROOT, 'react.ts');
    expect(names).toEqual([...REACT].sort());
    expect(names.filter((n) => DOCSTACK.includes(n))).toEqual([]);
  });
});
