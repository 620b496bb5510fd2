import type { Doc } from '../../contracts/model.js';
import type { FindOptions, Selector } from '../../contracts/queries.js';
import { compileSelector, projectFields, type DocMatcher } from '../queries/selector.js';
import { LiveHandle, Rerunner } from './live-handle.js';
import { insertionPoint, orderOf, type DocOrder, type LiveOptions } from './live-order.js';

/** One document's news for a live query: its state now as a read answers it, or null when gone (purged, hidden, unreadable). */
export interface LiveChange {
  id: string;
  doc: Doc | null;
}

export interface LiveQueryDeps {
  /** the query's full read: findDocuments */
  find(className: string, selector: Selector | undefined, options: FindOptions): Promise<Doc[]>;
}

/**
 * A query that follows its class (`stack.live`): the first result from findDocuments, then each
 * batch of changed documents (one per tick, from the stack's LiveHub) applied to the result kept
 * by id — matched against the selector one document at a time, without reading the class again.
 * It reads again only when a change leaves a window short (a `limit` window lost a row and needs
 * the next one) or moves a window it cannot see (`skip`).
 */
export class LiveQuery extends LiveHandle<Doc[]> {
  private readonly match: DocMatcher;
  private readonly order: DocOrder;
  /** sorted: every match is kept and the window cut on output; windowed: only the window is kept */
  private readonly sorted: boolean;
  private readonly windowed: boolean;
  /** the documents kept, in result order, and by id */
  private list: Doc[] = [];
  private readonly byId = new Map<string, Doc>();
  /** a window holding every match there is (the read returned fewer than it asked for) */
  private exhaustive = true;
  private readonly rerun = new Rerunner(() => this.read());

  constructor(
    readonly className: string,
    private readonly selector: Selector | undefined,
    private readonly options: LiveOptions,
    private readonly deps: LiveQueryDeps,
    onClose: () => void,
  ) {
    super(onClose);
    this.match = compileSelector(selector);
    this.order = orderOf(options.sort);
    this.sorted = (options.sort?.length ?? 0) > 0;
    this.windowed = !this.sorted && (options.limit !== undefined || (options.skip ?? 0) > 0);
  }

  /** Reads the first result (and again whenever a change cannot be applied in place). */
  start(): void {
    this.rerun.request();
  }

  /** A tick's changes of this class: applied in place where possible, else one read. */
  apply(changes: readonly LiveChange[]): void {
    if (this.closed) return;
    if (this.rerun.running) return this.rerun.request(); // the read under way may predate them: read once more
    if (this.error !== undefined) return this.rerun.request(); // the last read failed (its class had not arrived): no result to apply them to
    let changed = false;
    for (const { id, doc } of changes) {
      const now = doc && this.accepts(doc) ? { ...doc } : null;
      const outcome = this.windowed ? this.applyToWindow(id, now) : this.replace(id, now);
      if (outcome === 'read') return this.rerun.request();
      changed ||= outcome;
    }
    if (changed) this.publish(this.output());
  }

  /** Does a document read as `doc` belong to the result (class, active, after, hidden left to the reader, selector)? */
  private accepts(doc: Doc): boolean {
    if (doc['~class'] !== this.className || doc._deleted === true) return false;
    if (doc.active === false && !this.options.includeInactive) return false;
    if (this.options.after !== undefined && !(doc._id > this.options.after)) return false;
    return this.match([doc]).length === 1;
  }

  /** The whole matching set is kept: add, replace or drop one document. */
  private replace(id: string, now: Doc | null): boolean {
    const before = this.byId.get(id);
    if (before) this.list.splice(insertionPoint(this.list, before, this.order) - 1, 1);
    if (now) this.list.splice(insertionPoint(this.list, now, this.order), 0, now);
    if (now) this.byId.set(id, now);
    else this.byId.delete(id);
    return before !== undefined || now !== null;
  }

  /** A window in `_id` order (limit, skip): in place when the change stays inside what it knows, else 'read'. */
  private applyToWindow(id: string, now: Doc | null): boolean | 'read' {
    const had = this.byId.has(id);
    if (had && now) return this.replace(id, now);
    const last = this.list[this.list.length - 1]?._id;
    const beyond = !this.exhaustive && last !== undefined && id > last;
    if (beyond) return false; // past the window's end: neither in it nor able to move it
    if ((this.options.skip ?? 0) > 0) return 'read'; // it may have entered or left the skipped rows: the window may shift
    if (now) {
      this.replace(id, now);
      if (this.list.length > this.options.limit!) {
        this.byId.delete(this.list.pop()!._id);
        this.exhaustive = false;
      }
      return true;
    }
    if (!had) return false;
    this.replace(id, null);
    return this.exhaustive ? true : 'read'; // a full window lost a row: the next one must be read
  }

  private output(): Doc[] {
    const { skip = 0, limit, fields } = this.options;
    const window = this.sorted ? this.list.slice(skip, limit === undefined ? undefined : skip + limit) : this.list;
    return fields && fields.length > 0 ? window.map((doc) => projectFields(doc, fields)) : [...window];
  }

  /** The query's full read; published only when it differs from what observers have. */
  private async read(): Promise<void> {
    if (this.closed) return;
    const { skip, limit, includeInactive, after } = this.options;
    const asked = this.windowed ? { skip, limit } : {};
    let docs: Doc[];
    try {
      docs = await this.deps.find(this.className, this.selector, { ...asked, ...(includeInactive ? { includeInactive } : {}), ...(after !== undefined ? { after } : {}) });
    } catch (error) {
      return this.fail(error);
    }
    if (this.closed) return;
    const previous = this.list;
    this.list = this.sorted ? [...docs].sort(this.order) : docs;
    this.byId.clear();
    for (const doc of this.list) this.byId.set(doc._id, doc);
    this.exhaustive = !this.windowed || limit === undefined || docs.length < limit;
    const same = this.current !== undefined && previous.length === this.list.length && previous.every((d, i) => d._id === this.list[i]._id && d._rev === this.list[i]._rev);
    if (!same) this.publish(this.output());
  }
}
