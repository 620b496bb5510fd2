import { DocstackError, isEachPeersOwnClassDoc, type ClientStack } from '../../index.js';
import { authorize, classifyWrite, KeyringOwners, refusePlaintext, type Caller } from '../authorization/index.js';
import { quotasByStack } from '../authority/quotas.js';
import { refusedId } from './policy.js';
import { malformedDoc } from './shapes.js';

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
    // the meta-class documents (`class`, `domain`, `~self`) and the engine's own class documents
    // (`~Job`, `~Keyring`, …): every peer's engine makes its own from its system patches; a peer's
    // copy is answered as stored and ignored (never stored), not reported as a refusal
    if (ctx.newEdits === false && isEachPeersOwnClassDoc(doc._id)) {
      item.ignored = true;
      return;
    }
    const reserved = refusedId(doc._id);
    if (reserved) throw new DocstackError('DS_REPLICATION_FORBIDDEN', reserved, { details: { id: doc._id } });
    const { caller } = ctx.session;
    const subject = classifyWrite(doc._id, doc, previous);
    // a keyring is its owner's: the node's record says who (a stored one nobody owns: nobody writes it)
    const owners = subject.kind === 'keyring' ? await KeyringOwners.of(stack) : null;
    if (subject.kind === 'keyring' && owners) subject.owner = owners.ownerOf(doc._id) ?? (previous ? '' : null);
    authorize(caller, { type: 'write', subject });
    const malformed = malformedDoc(doc, ctx.newEdits);
    if (malformed) throw new DocstackError('DS_REQUEST_INVALID', malformed, { details: { id: doc._id } });
    // a keyring nobody pushed yet becomes the pusher's, unless a concurrent push claimed it first
    if (subject.kind === 'keyring' && owners && subject.owner === null && (await owners.claim(doc._id, caller.userId)) !== caller.userId) {
      throw new DocstackError('DS_AUTHZ_KEYRING', `"${doc._id}" is a keyring of another user.`, { path: doc._id });
    }
    await refusePlaintextOf(stack, doc);
    // quotas (server/authority): the write's share reserved, or refused with the usage
    await quotasByStack.get(stack)?.admit(stack, doc, previous ?? null, caller);
  });
}

/** Plaintext in an attribute its class encrypts is refused (once the class is here). */
async function refusePlaintextOf(stack: ClientStack, doc: Record<string, unknown>): Promise<void> {
  const className = doc['~class'];
  if (typeof className !== 'string' || doc._deleted) return;
  const model = await stack.classCache.get(className);
  if (model) refusePlaintext(model, doc);
}
