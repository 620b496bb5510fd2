import { ASSIGNING, PendingAssigner } from './assign.js';
import { SequenceCounters, type NumberBlock } from './counters.js';
import { AUTHORITY_ERRORS, authorityErrorList } from './errors.js';
import { claimedAttributes, isPending, PENDING_FIELD, pendingOf, SEQUENCE_NAME, sequenceAttributes, sequenceKey, uniqueKey } from './model.js';
import { AuthorityRemote, type ClaimAnswer, type ConnectOptions } from './remote.js';
import { claimOf, claimsOf, ROUTE_HOLD_MS, UniqueIndex, uniqueRefusal } from './unique-index.js';
import { KERNEL_ERRORS, type ClassModel, definePlugin, type Doc, DocstackError, type WriteContext } from '../../index.js';
import { tapWhen } from '../../kit/index.js';

export { isPending, pendingOf, PENDING_FIELD, type ClaimAnswer, type ConnectOptions, type NumberBlock };

export interface AuthorityOptions {
  /** true on the server node: it keeps the counters, assigns pending numbers and refuses a peer's duplicate */
  authority?: boolean;
}

/** The authority plugin's API: `stack.authority`, or `getApi(stack, authorityPlugin)`. */
export interface AuthorityApi {
  /** true on the node (the server preset) */
  readonly isAuthority: boolean;
  /** A client: ask this node for numbers and claims from now on (creates draw from it while it answers). */
  connect(options: ConnectOptions): void;
  disconnect(): void;
  readonly connected: boolean;
  /** `count` numbers of a sequence, in one block: the node's counters, or the connected node's (else DS_AUTHORITY_OFFLINE). */
  next(name: string, count?: number): Promise<NumberBlock>;
  /**
   * Claims a unique value for a document before writing it: on the node, held 10 minutes for a
   * document not written yet; on a client, asked of the connected node.
   */
  claim(className: string, attribute: string, value: unknown, id: string): Promise<ClaimAnswer>;
  /** The last number of a sequence the node handed out (node only; 0 before the first). */
  current(name: string): Promise<number>;
  /** Is the attribute's number still to come from the node? */
  isPending(doc: Record<string, unknown> | null | undefined, attribute: string): boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const MAX_COUNT = 10_000;

function checkSequenceRequest(name: unknown, count: unknown): void {
  if (typeof name !== 'string' || !SEQUENCE_NAME.test(name)) throw AUTHORITY_ERRORS.sequenceName(`${JSON.stringify(name)} is not a sequence name.`, { path: 'name' });
  if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > MAX_COUNT) {
    throw AUTHORITY_ERRORS.sequenceName(`count must be a whole number from 1 to ${MAX_COUNT} (got ${JSON.stringify(count)}).`, { path: 'count' });
  }
}

/**
 * Sequences and unique attributes (issue 13): the config keys `sequence: "<name>"` and
 * `unique: true`. On a client, a new document's number comes from the connected node, or is left
 * pending (`~pending`) for the node to assign on receipt; unique values are claimed here and, when
 * connected, at the node. On the node (`authority: true`), the counters live, pending numbers are
 * assigned as documents arrive, and a peer's document whose unique value another live document
 * holds is refused with that document's id.
 */
export const authorityPlugin = definePlugin<AuthorityOptions | undefined, AuthorityApi, { authority: AuthorityApi }>({
  name: 'authority',
  optional: ['sync'],
  errors: authorityErrorList,
  setup({ hooks, stack, storage, defineConfigKey }, options): AuthorityApi {
    defineConfigKey(sequenceKey);
    defineConfigKey(uniqueKey);
    const authority = options?.authority === true;
    const index = new UniqueIndex(storage, stack.clock);
    const counters = new SequenceCounters(storage);
    const assigner = new PendingAssigner(stack, counters);
    let remote: AuthorityRemote | null = null;
    /** sequence names some class attribute draws from, read again from the classes on a miss */
    let known = new Set<string>();
    const refuseUnknown = async (name: string) => {
      if (known.has(name)) return;
      const names = new Set<string>();
      for (const className of await stack.listClasses()) {
        const model = await stack.classCache.get(className);
        if (model) for (const a of sequenceAttributes(model)) names.add(a.sequence as string);
      }
      known = names;
      if (!known.has(name)) throw AUTHORITY_ERRORS.sequenceUnknown(`No class attribute draws from the sequence ${JSON.stringify(name)}.`, { path: 'name' });
    };

    /** A number for a new document now, or undefined: it is written pending. */
    const draw = async (sequence: string): Promise<number | undefined> => {
      if (authority) return (await counters.next(sequence)).first;
      if (!remote) return undefined;
      return remote.draw(sequence).catch(() => undefined); // offline: the node numbers it on receipt
    };

    // sequences on this stack's own writes: a number drawn now, or a pending marker; never the caller's
    // the write plan leaves these taps out for a class without sequences (numbering) or claimed attributes (claims)
    const numbered = (model: ClassModel) => sequenceAttributes(model).length > 0;
    const claiming = (model: ClassModel) => claimedAttributes(model).length > 0;
    hooks.beforeValidate.tapPromise(tapWhen('authority', numbered, -150), async (draft, ctx) => {
      if (ctx.op === 'delete' || ctx.origin === 'replication' || ctx.session === ASSIGNING) return draft;
      const attributes = sequenceAttributes(ctx.classModel);
      if (attributes.length === 0) return draft;
      if (ctx.op === 'update') {
        for (const name of [...attributes.map((a) => a.name), PENDING_FIELD]) {
          if (!same(draft[name], ctx.previous?.[name])) throw AUTHORITY_ERRORS.sequenceReadonly(`"${name}" of ${ctx.classModel.name} is set by the node, never by an update.`, { path: name });
        }
        return draft;
      }
      for (const name of [...attributes.map((a) => a.name), PENDING_FIELD]) {
        if (draft[name] !== undefined) throw AUTHORITY_ERRORS.sequenceReadonly(`"${name}" of ${ctx.classModel.name} is set by the node: leave it out of a new document.`, { path: name });
      }
      const next: Record<string, unknown> = { ...draft };
      const pending: string[] = [];
      for (const attribute of attributes) {
        const value = ctx.dryRun ? undefined : await draw(attribute.sequence as string);
        if (value === undefined) pending.push(attribute.name);
        else next[attribute.name] = value;
      }
      if (pending.length > 0) next[PENDING_FIELD] = pending;
      return next as Doc;
    });

    // a callback tap: a local write has nothing to wait for here, and answers without a promise
    // a function bound to this stack's counters, not a closure per stack: it runs on every write
    // (docs/benchmarks.md#code-shared-by-every-stack); `null`: not the authority, no peer numbers checked
    hooks.validate.tapAsync({ name: 'authority', stage: 5 }, checkNumbers.bind(authority ? counters : null));

    // this stack's own writes claim their unique values (and numbers) before they are stored
    hooks.beforeWrite.tapPromise(tapWhen('authority', claiming, -50), async (doc, ctx) => {
      if (ctx.op === 'delete' || ctx.origin === 'replication') return doc;
      const held = new Set(claimsOf(ctx.classModel, ctx.previous).map((c) => c.keyId));
      for (const claim of claimsOf(ctx.classModel, doc)) {
        if (held.has(claim.keyId)) continue;
        if (remote && !authority && ctx.classModel.schema[claim.attribute]?.unique === true) {
          const answer = await remote.claim(claim.className, claim.attribute, claim.value, claim.docId).catch((err: DocstackError) => {
            if (err.code === 'DS_AUTHORITY_OFFLINE') return null; // offline: checked when it reaches the node
            throw err;
          });
          if (answer && !answer.claimed) throw uniqueRefusal(claim, answer.id);
        }
        const owner = await index.claim(claim, { force: ctx.session === ASSIGNING });
        if (owner) throw uniqueRefusal(claim, owner);
      }
      return doc;
    });

    // a peer's documents: their values claimed as they arrive; on the node, a duplicate is refused
    hooks.admit.tapPromise({ name: 'authority', stage: 0 }, async (item, ctx) => {
      const { doc } = item;
      const className = doc['~class'];
      if (doc._deleted === true || typeof className !== 'string') return;
      const model = await stack.classCache.get(className);
      if (!model || claimedAttributes(model).length === 0) return;
      for (const claim of claimsOf(model, doc)) {
        // a client takes what its node decided; the node keeps the first holder
        const owner = await index.claim(claim, { force: !authority });
        if (owner) {
          stack.emit('unique:refused', { id: doc._id, className, attribute: claim.attribute, existingId: owner, origin: ctx.origin });
          throw uniqueRefusal(claim, owner);
        }
      }
      if (authority && pendingOf(doc).length > 0) await assigner.enqueue(doc._id);
    });

    // a pending number names a sequence attribute (checkPendingField), so `claiming` covers numbering too
    hooks.afterWrite.tapPromise(tapWhen('authority', claiming, 20), async (docs, ctx) => {
      for (const doc of docs) {
        const kept = new Set(claimsOf(ctx.classModel, doc).map((c) => c.keyId));
        for (const claim of claimsOf(ctx.classModel, ctx.previous)) if (!kept.has(claim.keyId)) await index.release(claim);
        if (authority && ctx.origin === 'replication' && pendingOf(doc).length > 0) {
          // a failure leaves the id queued: numbered when the node next opens
          await assigner.assign(doc._id, ctx.previous).catch((err: Error) => stack.emit('sequence:failed', { id: doc._id, error: err.message }));
        }
      }
    });

    if (authority) hooks.onOpen.tapPromise({ name: 'authority', stage: 20 }, () => assigner.recover().catch(() => undefined));

    return {
      isAuthority: authority,
      connect: (connectOptions) => void (remote = new AuthorityRemote(connectOptions)),
      disconnect: () => void (remote = null),
      get connected() {
        return remote !== null;
      },
      next: async (name, count = 1) => {
        checkSequenceRequest(name, count);
        if (authority) {
          // only sequences the schema uses: a caller cannot make the node keep counters at will
          await refuseUnknown(name);
          return counters.next(name, count);
        }
        if (!remote) throw AUTHORITY_ERRORS.authorityOffline('No node is connected (authority.connect).');
        return remote.next(name, count);
      },
      claim: async (className, attribute, value, id) => {
        const model = await stack.requireClass(className);
        if (model.schema[attribute]?.unique !== true) throw KERNEL_ERRORS.attributeInvalid(`"${attribute}" of ${className} is not a unique attribute.`, { path: attribute });
        if (value === undefined || value === null || typeof value === 'object') throw KERNEL_ERRORS.docInvalid('A claim needs a scalar value.', { path: 'value' });
        // the document's id: `<Class>-…`, or one its creator chose (docs/data-model.md, "Ids")
        if (typeof id !== 'string' || id === '') throw KERNEL_ERRORS.docIdInvalid(`A claim names the ${className} document it is for (its id).`, { path: 'id' });
        if (!authority) {
          if (!remote) throw AUTHORITY_ERRORS.authorityOffline('No node is connected (authority.connect).');
          return remote.claim(className, attribute, value, id);
        }
        const claim = claimOf(className, attribute, value, id);
        const owner = await index.claim(claim, { holdMs: ROUTE_HOLD_MS });
        return owner ? { claimed: false, id: owner } : { claimed: true, id };
      },
      current: async (name) => {
        checkSequenceRequest(name, 1);
        return counters.current(name);
      },
      isPending,
    };
  },
  members: (api) => ({ authority: api }),
});

/** The validate tap: a pending number is the engine's to set, one batch holds a key once, and on the authority a peer's numbers are ones it issued. */
function checkNumbers(this: SequenceCounters | null, draft: Doc, ctx: WriteContext, done: (err?: Error | null) => void): void {
  try {
    if (ctx.op === 'delete') return done();
    checkPendingField(draft, ctx);
    refuseBatchDuplicates(draft, ctx);
    if (ctx.origin !== 'replication' || !this) return done();
  } catch (err) {
    return done(err as Error);
  }
  checkPeerNumbers(this, draft, ctx).then(() => done(), (err: Error) => done(err));
}

/** A peer's numbers: only ones this node issued, and a document's number never changes. */
async function checkPeerNumbers(counters: SequenceCounters, draft: Doc, ctx: WriteContext): Promise<void> {
  for (const attribute of sequenceAttributes(ctx.classModel)) {
    const value = draft[attribute.name];
    if (value === undefined) continue;
    const before = isPending(ctx.previous, attribute.name) ? undefined : ctx.previous?.[attribute.name];
    if (before !== undefined && before !== value) throw AUTHORITY_ERRORS.sequenceReadonly(`The number "${attribute.name}" of ${draft._id} cannot change (${String(before)} → ${String(value)}).`, { path: attribute.name });
    if (before === undefined && (value as number) > (await counters.current(attribute.sequence as string))) {
      throw AUTHORITY_ERRORS.sequenceUnissued(`${String(value)} was never issued by sequence "${String(attribute.sequence)}".`, { path: attribute.name });
    }
  }
}

/** `~pending` lists sequence attributes of the class that have no value yet, each once. */
function checkPendingField(draft: Doc, ctx: WriteContext): void {
  const pending = draft[PENDING_FIELD];
  if (pending === undefined) return;
  const names = new Set(sequenceAttributes(ctx.classModel).map((a) => a.name));
  const ok = Array.isArray(pending) && pending.length > 0 && new Set(pending).size === pending.length && pending.every((p) => typeof p === 'string' && names.has(p) && draft[p] === undefined);
  if (!ok) throw AUTHORITY_ERRORS.sequenceReadonly(`"${PENDING_FIELD}" must list sequence attributes of ${ctx.classModel.name} that have no number yet.`, { path: PENDING_FIELD });
}

/** Two documents of one call with the same unique value: the second is refused. */
function refuseBatchDuplicates(draft: Doc, ctx: WriteContext): void {
  // (Node: a class that claims nothing makes no claim lists per document; the browser files have no bytes for it)
  if (ctx.batch.drafts.length < 2 || (!globalThis.docstackBrowserBuild && claimedAttributes(ctx.classModel).length === 0)) return;
  for (const claim of claimsOf(ctx.classModel, draft)) {
    const other = ctx.batch.drafts.find((d, i) => i < ctx.index && d['~class'] === claim.className && d._id !== draft._id && d.active !== false && same(d[claim.attribute], claim.value));
    if (other) throw uniqueRefusal(claim, other._id);
  }
}
