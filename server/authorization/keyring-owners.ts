import type { ClientStack } from '../../index.js';

/** Where a stack of the node records who owns each keyring document (a `_local` document: it never replicates). */
const OWNERS_ID = '_local/~keyring-owners';

type OwnersDoc = { _id: string; _rev?: string; owners: Record<string, string> };

const byStack = new WeakMap<ClientStack, Promise<KeyringOwners>>();

/**
 * Who owns each keyring document (`~Keyring-<random>`) of one stack of the node: the user whose
 * device first pushed it. Recorded by the node itself when it admits that first push — never
 * taken from the document, which its sender writes — and checked on every later write (only the
 * owner's devices change or delete it) and every read (only the owner's devices are served it,
 * admins included: a keyring is nobody else's business). Loaded once per stack and kept in
 * memory: the read checks of `_changes`, `_bulk_get`, `_all_docs` and GET ask it for every id
 * they serve, synchronously; claims are written one at a time, before the document is stored.
 */
export class KeyringOwners {
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly stack: ClientStack,
    private readonly owners: Map<string, string>,
    private rev: string | undefined,
  ) {}

  static of(stack: ClientStack): Promise<KeyringOwners> {
    let owners = byStack.get(stack);
    if (!owners) {
      owners = (async () => {
        const doc = await stack.storage.get<OwnersDoc>(OWNERS_ID);
        return new KeyringOwners(stack, new Map(Object.entries(doc?.owners ?? {})), doc?._rev);
      })();
      owners.catch(() => byStack.delete(stack));
      byStack.set(stack, owners);
    }
    return owners;
  }

  /** The `~User` id of the keyring's owner, or undefined for a keyring nobody pushed yet. */
  ownerOf(id: string): string | undefined {
    return this.owners.get(id);
  }

  /** Records `userId` as the owner when the keyring has none yet; answers the owner it has after. */
  claim(id: string, userId: string): Promise<string> {
    const run = this.chain.then(async () => {
      const owner = this.owners.get(id);
      if (owner !== undefined) return owner;
      for (let attempt = 0; ; attempt++) {
        const owners = Object.fromEntries(this.owners);
        owners[id] = userId;
        try {
          this.rev = await this.stack.storage.put<OwnersDoc>({ _id: OWNERS_ID, ...(this.rev ? { _rev: this.rev } : {}), owners });
          this.owners.set(id, userId);
          return userId;
        } catch (err) {
          // the record was written elsewhere (another process on this store): read it again, once
          if (attempt > 0 || (err as { status?: number }).status !== 409) throw err;
          const stored = await this.stack.storage.get<OwnersDoc>(OWNERS_ID);
          this.rev = stored?._rev;
          for (const [doc, owner] of Object.entries(stored?.owners ?? {})) this.owners.set(doc, owner);
          const owner = this.owners.get(id);
          if (owner !== undefined) return owner;
        }
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}
