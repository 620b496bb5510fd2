import type { IngestItem } from '../../kernel/hooks.js';
import type { Doc } from '../../kernel/model/types.js';
import type { ClientStack } from '../../kernel/stack.js';

const ARRIVALS_ID = '_local/~tx/arrivals';

interface ArrivalsDoc {
  _id: string;
  _rev?: string;
  /** transactions some of whose members arrived from a peer, not all yet: id → size */
  pending: Record<string, number>;
}

/**
 * Transactions arriving from peers: a document written by a transaction of several documents
 * (`~tx: { id, size }`) is hidden from reads from the moment it is admitted until `size` members
 * of that transaction are stored here; then all show together. Pending transactions are kept in
 * a `_local` document (never replicated), written when one starts or completes; which members
 * arrived is counted again from the stored documents on open (only while some are pending).
 */
export class Arrivals {
  private readonly pending = new Map<string, { size: number; ids: Set<string> }>();
  private rev: string | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly stack: ClientStack) {}

  async load(): Promise<void> {
    const doc = await this.stack.storage.get<ArrivalsDoc>(ARRIVALS_ID);
    this.rev = doc?._rev;
    for (const [id, size] of Object.entries(doc?.pending ?? {})) this.pending.set(id, { size, ids: new Set() });
    if (this.pending.size === 0) return;
    for await (const page of this.stack.storage.pages('')) for (const doc of page) this.arrived(doc);
    await this.persist();
  }

  /** Hidden: a member of a transaction still pending here. */
  hides(doc: Doc): boolean {
    const tx = doc['~tx'];
    return tx !== undefined && this.pending.has(tx.id);
  }

  /** Before a peer's document is stored: a member of a transaction new here starts it pending. */
  async admit(item: IngestItem): Promise<void> {
    const tx = (item.doc as Partial<Doc>)['~tx'];
    if (!tx || typeof tx.id !== 'string' || !(tx.size > 1) || this.pending.has(tx.id)) return;
    // a later revision of a member already shown (an update outside any transaction keeps `~tx`)
    if (item.previous?.['~tx']?.id === tx.id) return;
    this.pending.set(tx.id, { size: tx.size, ids: new Set() });
    await this.persist();
  }

  /** Once stored: counted; the last member shows them all. */
  async stored(doc: Doc): Promise<void> {
    if (this.arrived(doc)) await this.persist();
  }

  /** Counts a member; true when its transaction is complete now. */
  private arrived(doc: Doc): boolean {
    const tx = doc['~tx'];
    const entry = tx && this.pending.get(tx.id);
    if (!entry) return false;
    entry.ids.add(doc._id);
    if (entry.ids.size < entry.size) return false;
    this.pending.delete(tx.id);
    return true;
  }

  private persist(): Promise<void> {
    const run = this.tail.then(async () => {
      const pending = Object.fromEntries([...this.pending].map(([id, e]) => [id, e.size]));
      this.rev = await this.stack.storage.put<ArrivalsDoc>({ _id: ARRIVALS_ID, ...(this.rev ? { _rev: this.rev } : {}), pending });
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}
