import { relationPrefix } from '../domains/index.js';
import type { TableInfo } from './catalog.js';
import type { Access } from './plan.js';
import { compareKeys, contains, isPoint, type Key } from './ranges.js';
import type { DocCache } from './doc-cache.js';
import type { ClassIndex } from './indexes/class-index.js';
import type { SqlStore } from './store.js';
import type { ClientStack, Doc } from '../../index.js';

/**
 * The stored documents an access path names, raw, of the table only (class or domain), active
 * ones unless the statement asked for inactive ones too. `read` counts the documents read
 * (from storage, or for an index read from the revision-exact cache).
 */
export async function readDocs(
  stack: ClientStack,
  store: SqlStore,
  info: TableInfo,
  access: Access,
  cache?: DocCache,
  /** told each page's size as it is read: a statement's budget and deadline stop it between pages */
  onPage?: (count: number) => void | Promise<void>,
): Promise<{ docs: Doc[]; read: number }> {
  const prefix = info.kind === 'class' ? `${info.name}-` : relationPrefix(info.name);
  let raw: Doc[] = [];
  const fetch = async (ids: string[]) => {
    await onPage?.(ids.length);
    return fetchDocs(store, ids, access.index ?? null, cache);
  };
  if (access.path === 'primary-key') {
    const ids = await Promise.all(access.keys!.map((values) => stack.primaryKeys.lookup(info.name, values)));
    raw = await fetch([...new Set(ids.filter((id): id is string => id !== null))]);
  } else if (access.path === 'id-range') {
    const points = access.ranges!.filter(isPoint).map((r) => r.lo as Key);
    // a class's document may have an id outside its range (given by the caller): a point is any id, `mine` checks the class
    raw = await fetch([...new Set(points.filter((id): id is string => typeof id === 'string' && (info.kind === 'class' || id.startsWith(prefix))))]);
    const spans = access.ranges!.filter((r) => !isPoint(r));
    if (info.kind === 'class' && spans.length > 0) {
      const outside = await store.outsideIds(info.name);
      raw.push(...(await fetch(outside.filter((id) => spans.some((range) => contains(range, id))))));
    }
    for (const range of spans) {
      const lo = typeof range.lo === 'string' && range.lo > prefix ? range.lo : prefix;
      const hi = typeof range.hi === 'string' && range.hi < `${prefix}\uffff` ? range.hi : `${prefix}\uffff`;
      if (compareKeys(lo, hi) > 0) continue;
      for await (const page of store.range(lo, hi)) {
        await onPage?.(page.length);
        raw.push(...page.filter((d) => contains(range, d._id)));
      }
    }
  } else if (access.path.startsWith('index:')) {
    const hits = access.index!.lookup(access.attribute!, access.ranges!, access.includeInactive);
    raw = await fetch(hits.map((h) => h.id));
  } else {
    for await (const page of info.kind === 'class' ? store.classPages(info.name) : store.range(prefix, `${prefix}\uffff`)) {
      await onPage?.(page.length);
      raw.push(...page);
    }
  }
  const mine = (d: Doc) => (info.kind === 'class' ? d['~class'] === info.name : d['~domain'] === info.name);
  const unique = new Map(raw.map((d) => [d._id, d]));
  // a document a read hides (a peer's transaction not whole here yet) is no row either
  const shown = (d: Doc) => !stack.hooks.hidden.call(d, { stack, ...(info.model ? { classModel: info.model } : {}) });
  return { docs: [...unique.values()].filter((d) => mine(d) && (access.includeInactive || d.active !== false) && shown(d)), read: raw.length };
}

/**
 * Documents by id. When the class has an index, it knows the current revision of each of its
 * documents (it was caught up before the read): a cached copy of that revision is used as it is,
 * an id it does not know is not a document of the class, the rest is read from storage.
 */
async function fetchDocs(store: SqlStore, ids: string[], index: ClassIndex | null, cache: DocCache | undefined): Promise<Doc[]> {
  if (!index || !cache) return store.getDocs(ids);
  const found: Doc[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const entry = index.entries.get(id);
    if (!entry) continue;
    const cached = cache.get(id, entry.rev);
    if (cached) found.push(cached);
    else missing.push(id);
  }
  const fetched = await store.getDocs(missing);
  for (const doc of fetched) cache.set(doc);
  return [...found, ...fetched];
}
