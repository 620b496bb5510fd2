import type { SequenceCounters } from './counters.js';
import { PENDING_FIELD, pendingOf, sequenceAttributes } from './model.js';
import type { ClientStack, Doc } from '../../index.js';

declare module '../../contracts/hooks.js' {
  interface WriteSession {
    /** set on the node's own assignment writes (ASSIGNING) */
    readonly authority?: 'assign';
  }
}

/** The session of the node's own assignment writes: the sequence rules let it set the numbers. */
export const ASSIGNING = Object.freeze({ authority: 'assign' as const });

const QUEUE_ID = '_local/~authority/pending';

/**
 * On the node: documents that arrived with numbers pending get them — a new revision the node
 * writes, which the client pulls. Their ids are recorded (`_local/~authority/pending`) when they
 * are admitted, before they are stored, and removed once numbered: a node that stops between
 * the two numbers them when it next opens.
 */
export class PendingAssigner {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly stack: ClientStack,
    private readonly counters: SequenceCounters,
  ) {}

  enqueue(id: string): Promise<void> {
    return this.editQueue((ids) => (ids.includes(id) ? ids : [...ids, id]));
  }

  /**
   * Numbers the document's pending attributes. `previous`: the revision the document had here
   * before (a peer's edit made before it pulled its number keeps the number it was given).
   */
  async assign(id: string, previous?: Doc): Promise<void> {
    const { stack } = this;
    const doc = await stack.storage.get<Doc>(id);
    const model = doc && doc.active !== false ? await stack.classCache.get(doc['~class']) : null;
    const sequences = new Map((model ? sequenceAttributes(model) : []).map((a) => [a.name, a.sequence as string]));
    const pending = pendingOf(doc).filter((name) => sequences.has(name));
    if (doc && model && pending.length > 0) {
      const changes: Record<string, unknown> = { [PENDING_FIELD]: null };
      for (const name of pending) {
        const kept = previous?.[name];
        changes[name] = typeof kept === 'number' && !pendingOf(previous).includes(name) ? kept : (await this.counters.next(sequences.get(name)!)).first;
      }
      await stack.updateDoc(id, changes, { origin: 'system', session: ASSIGNING });
      for (const name of pending) {
        stack.emit('sequence:assigned', { id, className: model.name, attribute: name, sequence: sequences.get(name), value: changes[name] });
      }
    }
    await this.editQueue((ids) => ids.filter((i) => i !== id));
  }

  /** Numbers what a stop left pending (onOpen). */
  async recover(): Promise<void> {
    const queue = await this.stack.storage.get<{ ids: string[] }>(QUEUE_ID);
    for (const id of queue?.ids ?? []) await this.assign(id).catch(() => undefined);
  }

  /** One queue edit at a time (the queue is one document). */
  private editQueue(edit: (ids: string[]) => string[]): Promise<void> {
    const run = this.chain.then(async () => {
      const current = await this.stack.storage.get<{ _id: string; _rev: string; ids: string[] }>(QUEUE_ID);
      const ids = current?.ids ?? [];
      const next = edit(ids);
      if (next === ids) return;
      await this.stack.storage.put({ _id: QUEUE_ID, ...(current ? { _rev: current._rev } : {}), ids: next });
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}
