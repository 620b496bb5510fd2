import { type ClientStack } from '../../index.js';
import { isEachPeersOwnClassDoc } from '../../kit/index.js';
import { authorize, classifyWrite, KeyringOwners, refusePlaintext, type Caller } from '../authorization/index.js';
import { quotasByStack } from '../authority/quotas.js';
import { refusedId } from './policy.js';
import { malformedDoc } from './shapes.js';
import { SERVER_ERRORS } from '../errors-codes.js';

/** The session a replication request passes to `stack.ingest`: who pushed. */
export class PeerPush {
  constructor(readonly caller: Caller) {}
}

const admitted = new WeakSet<ClientStack>();

/**
 * Puts every document a peer pushes to the node's one authorization check, as the first
 * `admit` tap of the stack's ingest path: reserved ids refused, then who may write what
 * (server/authorization), then the shape (server/replication/shapes.ts), then plaintext in an
 * encrypted attribute. Only ingests carrying a PeerPush are the node's to judge; the engine's
 * own (a sync this node starts) are not a peer's write.
 */
export function admitPeerPushes(stack: ClientStack): void {
  if (admitted.has(stack)) return;
  admitted.add(stack);
  // a held document refused for good once what it waited for arrived: its quota share given back
  stack.on('ingest:refused', (e: { id: string }) => void quotasByStack.get(stack)?.settle([e.id]).catch(() => undefined));
  stack.hooks.admit.tapPromise({ name: 'node-authorization', stage: -100 }, async (item, ctx) => {
    // a held document tried again: authorized (and its quota share reserved) when it was pushed;
    // only what needed its class, absent then, is checked now
    if (ctx.held) return refusePlaintextOf(stack, item.doc);
    if (!(ctx.session instanceof PeerPush)) return;
    const { doc, previous } = item;
    // a tombstone needs no body: what a peer sends with `_deleted: true` is dropped before it is
    // stored, so a deletion can carry no bytes past a quota (quotas count live documents)
    if (doc._deleted === true) stripTombstone(doc);
    // the meta-class documents (`class`, `domain`, `~self`) and the engine's own class documents
    // (`~Job`, `~Keyring`, …): every peer's engine makes its own from its system patches; a peer's
    // copy is answered as stored and ignored (never stored), not reported as a refusal
    if (ctx.newEdits === false && isEachPeersOwnClassDoc(doc._id)) {
      item.ignored = true;
      return;
    }
    const reserved = refusedId(doc._id);
    if (reserved) throw SERVER_ERRORS.replicationForbidden(reserved, { details: { id: doc._id } });
    const { caller } = ctx.session;
    const subject = classifyWrite(doc._id, doc, previous);
    // a keyring is its owner's: the node's record says who (a stored one nobody owns: nobody writes it)
    const owners = subject.kind === 'keyring' ? await KeyringOwners.of(stack) : null;
    if (subject.kind === 'keyring' && owners) subject.owner = owners.ownerOf(doc._id) ?? (previous ? '' : null);
    authorize(caller, { type: 'write', subject });
    // checkpoints are written with PUT /_local/<id>, where they are bounded (./peer-locals.ts)
    if (doc._id.startsWith('_local/')) throw SERVER_ERRORS.replicationForbidden('A _local document is written with PUT /db/<name>/_local/<id>, not through _bulk_docs.', { details: { id: doc._id } });
    const malformed = malformedDoc(doc, ctx.newEdits);
    if (malformed) throw SERVER_ERRORS.requestInvalid(malformed, { details: { id: doc._id } });
    // a keyring nobody pushed yet becomes the pusher's, unless a concurrent push claimed it first
    if (subject.kind === 'keyring' && owners && subject.owner === null && (await owners.claim(doc._id, caller.userId)) !== caller.userId) {
      throw SERVER_ERRORS.authzKeyring(`"${doc._id}" is a keyring of another user.`, { path: doc._id });
    }
    await refusePlaintextOf(stack, doc);
    // quotas (server/authority): the write's share reserved, or refused with the usage
    await quotasByStack.get(stack)?.admit(stack, doc, previous ?? null, caller);
  });
}

/** What a tombstone keeps: its identity, revision history, and its class (the sync filter and domains may read it). */
const TOMBSTONE_FIELDS = new Set(['_id', '_rev', '_revisions', '_deleted', '~class']);

function stripTombstone(doc: Record<string, unknown>): void {
  for (const key of Object.keys(doc)) if (!TOMBSTONE_FIELDS.has(key)) delete doc[key];
  if (typeof doc['~class'] !== 'string' || doc['~class'].length > 200) delete doc['~class'];
}

/** Plaintext in an attribute its class encrypts is refused (once the class is here). */
async function refusePlaintextOf(stack: ClientStack, doc: Record<string, unknown>): Promise<void> {
  const className = doc['~class'];
  if (typeof className !== 'string' || doc._deleted) return;
  const model = await stack.classCache.get(className);
  if (model) refusePlaintext(model, doc);
}
