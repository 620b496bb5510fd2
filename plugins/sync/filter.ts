import { type ClientStack, isEngineClassName } from '../../index.js';
import { SYNC_ERRORS } from './errors.js';

/** What a sync carries: every document, or the asked classes plus ids. */
export interface SyncScope {
  /** class names, sorted and unique */
  classes: string[];
  /** ids that travel whatever their class: the classes' own class documents and extraDocIds, sorted */
  ids: string[];
}

const ID = /^[^\s]{1,1000}$/;

function stringList(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.length > 10_000 || !value.every((v) => typeof v === 'string' && ID.test(v))) {
    throw SYNC_ERRORS.syncOptions(`stack.sync: "${path}" must be a list of names or ids (strings without spaces).`, { path });
  }
  return [...new Set(value as string[])].sort();
}

/**
 * The scope of a sync from its options, or null for the whole stack. Sorted and deduplicated,
 * so that the same scope always yields the same filter and so the same checkpoint.
 */
export function syncScope(classes: unknown, internalDocs: unknown): SyncScope | null {
  if (internalDocs !== undefined && (typeof internalDocs !== 'object' || internalDocs === null || Array.isArray(internalDocs))) {
    throw SYNC_ERRORS.syncOptions('stack.sync: "internalDocs" must be { extraDocIds?: [...] }.', { path: 'internalDocs' });
  }
  const extra = (internalDocs as { extraDocIds?: unknown } | undefined)?.extraDocIds;
  if (classes === undefined) {
    if (extra !== undefined) throw SYNC_ERRORS.syncOptions('stack.sync: "internalDocs.extraDocIds" narrows nothing without "classes" (the whole stack syncs already).', { path: 'internalDocs.extraDocIds' });
    return null;
  }
  const names = stringList(classes, 'classes');
  if (names.length === 0) throw SYNC_ERRORS.syncOptions('stack.sync: "classes" must name at least one class (leave it out to sync everything).', { path: 'classes' });
  const engine = names.find((name) => isEngineClassName(name) || name.includes('-'));
  if (engine) throw SYNC_ERRORS.syncOptions(`stack.sync: "${engine}" is not an application class name; engine documents travel by id (internalDocs.extraDocIds).`, { path: 'classes' });
  const ids = extra === undefined ? [] : stringList(extra, 'internalDocs.extraDocIds');
  return { classes: names, ids: [...new Set([...names, ...ids])].sort() };
}

/**
 * The pull side's filter: a Mango selector the node serves with `filter=_selector` (matched
 * there by two set lookups per change, server/replication/change-filter.ts) — never a JavaScript
 * filter function, which the node would have to run.
 */
export function pullSelector(scope: SyncScope): Record<string, unknown> {
  return { $or: [{ '~class': { $in: [...scope.classes, ...TRAVEL_WITH_ANY_SCOPE] } }, { _id: { $in: scope.ids } }] };
}

/**
 * Classes whose documents travel with whatever a scope names: the encryption plugin's keyrings
 * (`~Keyring-<random>`, wrapped under the user's passphrase), so that the sealed values of the
 * scope's classes open on the user's other devices. A docstack node serves each user only the
 * keyrings their own devices pushed (docs/authorization.md).
 */
const TRAVEL_WITH_ANY_SCOPE = ['~Keyring'];


/** The class a document (or a tombstone, by its id `<Class>-…`) belongs to, or null. */
function classOf(doc: { _id: string; _deleted?: boolean } & Record<string, unknown>): string | null {
  if (typeof doc['~class'] === 'string') return doc['~class'];
  const dash = doc._id.indexOf('-');
  return doc._deleted && dash > 0 ? doc._id.slice(0, dash) : null;
}

/**
 * The push side's filter, run by this stack's own change feed: documents of ephemeral classes
 * never leave (so the node never answers `denied` for them), and with a scope only its classes
 * and ids go. PouchDB names the push checkpoint after this function's text and its
 * `query_params` (the scope), so each scope keeps its own checkpoint.
 */
export function pushFilter(ephemeral: ReadonlySet<string>, scope: SyncScope | null) {
  const classes = new Set(scope?.classes ?? []);
  const ids = new Set(scope?.ids ?? []);
  return function docstackPushFilter(doc: { _id: string; _deleted?: boolean } & Record<string, unknown>): boolean {
    const className = classOf(doc);
    if (className !== null && ephemeral.has(className)) return false;
    if (!scope) return true;
    if (ids.has(doc._id)) return true;
    return className !== null && (classes.has(className) || TRAVEL_WITH_ANY_SCOPE.includes(className));
  };
}

/** The names of this stack's ephemeral classes, kept current while `stop()` is not called. */
export async function followEphemeralClasses(stack: ClientStack): Promise<{ names: Set<string>; stop(): void }> {
  const names = new Set<string>();
  const refresh = async () => {
    const found = new Set<string>();
    for (const name of await stack.listClasses()) {
      const model = await stack.classCache.get(name);
      if (model?.ephemeral && model.active !== false) found.add(name);
    }
    names.clear();
    for (const name of found) names.add(name);
  };
  await refresh();
  // a class document changed: its ephemeral flag may have (class documents have no "-" in their id)
  const stop = stack.changes.subscribe((change) => {
    if (!change.id.includes('-') && !change.id.startsWith('_')) void refresh().catch(() => undefined);
  });
  return { names, stop };
}
