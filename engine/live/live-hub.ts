import type { Doc } from '../../contracts/model.js';
import type { FindOptions, GetOptions, Selector } from '../../contracts/queries.js';
import type { DocChangeEvent } from '../../kernel/pipeline.js';
import { checkFindOptions } from '../queries/reads.js';
import { compileSelector } from '../queries/selector.js';
import { checkSort, type LiveOptions } from './live-order.js';
import { LiveQuery, type LiveChange } from './live-query.js';

/** The stack as the live queries use it (the ClientStack; an interface so this file does not import it back). */
export interface LiveStack {
  on(event: string, listener: (payload: any) => void): unknown;
  off(event: string, listener: (payload: any) => void): unknown;
  findDocuments(className: string, selector: Selector | undefined, options: FindOptions): Promise<Doc[]>;
  getDocument(id: string, options: GetOptions): Promise<Doc | null>;
  readonly isOpen: boolean;
}

/** A change waiting for the next tick: the document as the write returned it, or undefined to read it again. */
type Pending = { className: string | undefined; doc: Doc | undefined };

/**
 * The live queries of one stack (`stack.live`). It listens to the stack only while a query is
 * open, gathers the tick's changed documents (the `change` events of local writes, transactions,
 * conflict resolutions and ingests; `tx:shown`; purges), then hands each query of their class
 * the batch once: many writes in one tick make one new result per query. A local write's
 * document is used as the write returned it (it reads as a read would); a peer's arrival, a
 * shown transaction's members and a purge are read again by id (the winning revision, hidden
 * or gone), once for all the queries.
 */
export class LiveHub {
  private readonly byClass = new Map<string, Set<LiveQuery>>();
  private pending = new Map<string, Pending>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** batches are applied in order: a later batch waits for the reads of the one before */
  private chain: Promise<void> = Promise.resolve();
  private readonly listeners: [string, (payload: any) => void][] = [
    ['change', (e: DocChangeEvent) => this.changed(e.id, e.className, e.origin === 'replication' ? undefined : e.doc)],
    ['tx:shown', (e: { members: string[] }) => this.reread(e.members)],
    ['closed', () => this.closeAll()],
  ];

  constructor(private readonly stack: LiveStack) {}

  /** A live query of a class; its options and selector are checked now (DS_QUERY_INVALID). */
  open(className: string, selector: Selector | undefined, options: LiveOptions = {}): LiveQuery {
    checkFindOptions(options);
    checkSort(options.sort);
    compileSelector(selector);
    const query = new LiveQuery(className, selector, { ...options }, { find: (name, s, o) => this.stack.findDocuments(name, s, o) }, () => this.forget(query));
    if (this.byClass.size === 0) for (const [event, listener] of this.listeners) this.stack.on(event, listener);
    let queries = this.byClass.get(className);
    if (!queries) this.byClass.set(className, (queries = new Set()));
    queries.add(query);
    query.start();
    return query;
  }

  /** Documents to read again at the next tick (purged, shown): a read answers what they are now. */
  reread(ids: readonly string[]): void {
    if (this.byClass.size === 0) return;
    for (const id of ids) this.changed(id, undefined, undefined);
  }

  private changed(id: string, className: string | undefined, doc: Doc | undefined): void {
    if (className !== undefined && !this.byClass.has(className)) return;
    this.pending.set(id, { className, doc });
    this.timer ??= setTimeout(() => this.flush(), 0);
  }

  private flush(): void {
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    this.chain = this.chain.then(() => this.apply(batch)).catch(() => undefined);
  }

  private async apply(batch: Map<string, Pending>): Promise<void> {
    const byClass = new Map<string, LiveChange[]>();
    const add = (className: string, change: LiveChange) => {
      if (!byClass.has(className)) byClass.set(className, []);
      byClass.get(className)!.push(change);
    };
    const reads: Promise<void>[] = [];
    for (const [id, { className, doc }] of batch) {
      if (doc) add(className!, { id, doc });
      else if (this.stack.isOpen) {
        // read as findDocuments reads it (hidden, afterRead); inactive ones too: the query decides
        const read = this.stack.getDocument(id, { includeInactive: true }).catch(() => null);
        reads.push(read.then((now) => {
          const name = className ?? (typeof now?.['~class'] === 'string' ? now['~class'] : undefined);
          if (name !== undefined) add(name, { id, doc: now });
          else for (const known of this.byClass.keys()) add(known, { id, doc: null }); // gone, class unknown: whoever holds it drops it
        }));
      }
    }
    await Promise.all(reads);
    for (const [className, changes] of byClass) for (const query of this.byClass.get(className) ?? []) query.apply(changes);
  }

  private forget(query: LiveQuery): void {
    const queries = this.byClass.get(query.className);
    queries?.delete(query);
    if (queries?.size === 0) this.byClass.delete(query.className);
    if (this.byClass.size > 0) return;
    for (const [event, listener] of this.listeners) this.stack.off(event, listener);
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  private closeAll(): void {
    for (const queries of [...this.byClass.values()]) for (const query of [...queries]) query.close();
  }
}
