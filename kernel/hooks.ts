import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook, SyncWaterfallHook } from 'tapable';
import type { AttributeModel, ClassModel, Doc } from '../contracts/model.js';
import type { WriteOp, WriteOrigin, WriteBatch, PendingDocs, WriteContext, AttributeContext, DefaultValueContext, ClassSchema, IngestDoc, IngestItem, ReplicationStep, IngestRefusal, AdmitContext, ReadContext, FindContext, FindCandidates, WriteSession, AttachmentReadContext } from '../contracts/hooks.js';
import type { Selector } from '../contracts/queries.js';
import type { StackPort } from '../contracts/stack-port.js';
import type { DenialRecord, DenialResolution } from '../contracts/denials.js';

export type { WriteOp, WriteOrigin, WriteBatch, PendingDocs, WriteContext, AttributeContext, DefaultValueContext, ClassSchema, IngestDoc, IngestItem, ReplicationStep, IngestRefusal, AdmitContext, ReadContext, FindContext, FindCandidates, WriteSession, AttachmentReadContext };

/**
 * The one typed hook map. Frozen: plugins tap these, they never add hooks of their own.
 * Order between plugins is set with tapable's `stage`, never by registration order.
 */
export function createHooks() {
  return Object.freeze({
    /** After storage and system patches; taps: ephemeral purge, key loading, schedulers. */
    onOpen: new AsyncSeriesHook<[StackPort]>(['stack']),
    /** Waterfall over the draft: defaults, before-triggers, relation staging. */
    beforeValidate: new AsyncSeriesWaterfallHook<[Doc, WriteContext]>(['draft', 'ctx']),
    /**
     * Each document a peer sent (stack.ingest), before anything else: throw to refuse it alone
     * (the node's authorization); set item.handled to take charge of a class-less document.
     */
    admit: new AsyncSeriesHook<[IngestItem, AdmitContext]>(['item', 'ctx']),
    /**
     * After a stack.ingest, the documents it refused (awaited before ingest answers): the
     * transactions plugin resolves a transaction whose member was refused here.
     */
    refused: new AsyncSeriesHook<[readonly IngestRefusal[], StackPort]>(['refused', 'stack']),
    /** A `stack.sync` starts, or its pull caught up (ReplicationStep): awaited by the sync. */
    replicating: new AsyncSeriesHook<[ReplicationStep, StackPort]>(['step', 'stack']),
    /**
     * `stack.denials()`: waterfall over the refusals the plugins keep; each source (sync) adds
     * its own records and returns the list, never dropping another's.
     */
    denials: new AsyncSeriesWaterfallHook<[DenialRecord[], StackPort]>(['denials', 'stack']),
    /**
     * `stack.resolveDenial(id)`: waterfall over "was something removed"; each source forgets
     * the id if it holds it and returns `removed || forgotten` (every source is asked).
     */
    resolveDenial: new AsyncSeriesWaterfallHook<[boolean, DenialResolution]>(['removed', 'resolution']),
    /** Throw a DocstackError to refuse the write. */
    validate: new AsyncSeriesHook<[Doc, WriteContext]>(['draft', 'ctx']),
    /** Waterfall over the validated document just before storage: encryption. */
    beforeWrite: new AsyncSeriesWaterfallHook<[Doc, WriteContext]>(['doc', 'ctx']),
    /** After storage; `docs` are the stored documents (with their new `_rev`). */
    afterWrite: new AsyncSeriesHook<[Doc[], WriteContext]>(['docs', 'ctx']),
    /** Waterfall over each document read from storage: decryption. */
    afterRead: new AsyncSeriesWaterfallHook<[Doc, ReadContext]>(['doc', 'ctx']),
    /** Waterfall over an attachment's stored bytes as stack.getAttachment reads them: decryption. */
    attachmentRead: new AsyncSeriesWaterfallHook<[Uint8Array, AttachmentReadContext]>(['data', 'ctx']),
    /**
     * A stored document reads as absent when a tap returns true (getDocument, findDocuments):
     * the transactions plugin hides a peer's transaction until all its members arrived.
     * Synchronous: it runs for every document of a scan.
     */
    hidden: new SyncBailHook<[Doc, ReadContext], boolean | undefined>(['doc', 'ctx']),
    /**
     * Waterfall over the ids of a class's stored active documents that `hidden` hides (taps add
     * theirs): counts that come from counters or indexes (countDocuments, SQL) leave them out.
     */
    hiddenIds: new SyncWaterfallHook<[string[], ClassModel]>(['ids', 'classModel']),
    /**
     * A findDocuments read with a selector, before the class scan: a tap that can name the
     * documents that may match (an index plugin) returns them; undefined lets the next tap or
     * the scan answer.
     */
    findCandidates: new AsyncSeriesBailHook<[Selector, FindContext], FindCandidates | undefined>(['selector', 'ctx']),
    /**
     * A countDocuments read with a selector: a tap that can count, from an index and without
     * reading any document, exactly the stored active documents of the class matching the whole
     * selector returns the number; undefined lets the next tap or the matching path answer.
     */
    countMatches: new AsyncSeriesBailHook<[Selector, FindContext], number | undefined>(['selector', 'ctx']),
    /** An attribute model being defined, once its type's rules passed: throw to refuse it. */
    checkAttribute: new AsyncSeriesHook<[AttributeModel, AttributeContext]>(['attribute', 'ctx']),
    /**
     * classObj.schemaZOD: the schema a validator builds for a class model (the validation
     * plugin's zod schema, rebuilt for each new model); none answering → undefined.
     */
    classSchema: new SyncBailHook<[ClassModel], ClassSchema | undefined>(['classModel']),
    /** Waterfall over a defaultValue being defined: throw to refuse it, return its stored form (validation). */
    defaultValue: new AsyncSeriesWaterfallHook<[unknown, DefaultValueContext]>(['value', 'ctx']),
    /** Before storage closes: stop schedulers, close feeds. */
    onClose: new AsyncSeriesHook<[StackPort]>(['stack']),
  });
}

export type KernelHooks = ReturnType<typeof createHooks>;
export type HookName = keyof KernelHooks;
