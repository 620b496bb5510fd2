import { EPHEMERAL_ERRORS, ephemeralErrorList } from './errors.js';
import { type ClientStack, type Doc, definePlugin } from '../../index.js';

const PURGE_CHUNK = 500;

/**
 * Ephemeral classes hold documents that only make sense while the stack is open (drafts,
 * presence, caches). When the stack next opens their documents are removed for good —
 * deleted from storage, not soft-deleted — before anything else can read them.
 */
export const ephemeralPlugin = definePlugin({
  name: 'ephemeral',
  errors: ephemeralErrorList,
  setup({ hooks, stack }) {
    // ephemeral documents are this peer's alone: one arriving from a peer is refused
    hooks.admit.tapPromise('ephemeral', async ({ doc }) => {
      const className = doc['~class'];
      if (typeof className !== 'string' || doc._deleted) return;
      const model = await stack.classCache.get(className);
      if (model?.ephemeral) throw EPHEMERAL_ERRORS.replicated(`${className} is an ephemeral class: its documents stay on the peer that wrote them.`, { details: { className } });
    });
    hooks.onOpen.tapPromise({ name: 'ephemeral', stage: -50 }, async (stack) => {
      const purged = await purgeEphemeral(stack);
      if (purged > 0) stack.emit('ephemeral:purged', { count: purged });
    });
  },
});

export async function purgeEphemeral(stack: ClientStack): Promise<number> {
  let purged = 0;
  const names = await stack.classNames.list();
  // the class documents read at once (an open reads every class here: one at a time was most of the purge's cost)
  const models = await Promise.all(names.map((name) => stack.classCache.get(name)));
  for (const [i, name] of names.entries()) {
    const model = models[i];
    if (!model?.ephemeral || model.active === false) continue;
    for (;;) {
      // the class's first documents (its range and the ids given outside it): purged, they leave the next ones first
      const pages = stack.storage.classPages(name, { size: PURGE_CHUNK });
      const page = ((await pages.next()).value ?? []) as Doc[];
      await pages.return(undefined);
      if (page.length === 0) break;
      const removed = await stack.purgeDocuments(page.map((doc) => doc._id));
      purged += removed;
      if (removed === 0) break; // nothing could be removed (a concurrent writer): do not spin
    }
  }
  return purged;
}
