import { type ClientStack, DOMAIN_META, isEngineClassName } from '../../index.js';
import { PATCH_CLASS } from '../../plugins.config.js';

/**
 * The tenants the class model declares: the union of the `tenants` of the default stack's
 * classes. The model decides which tenant spaces exist, before any data does (SPEC: "the list
 * is static so that replication scoping can be derived before data exists").
 */
export async function declaredTenants(source: ClientStack): Promise<Set<string>> {
  const tenants = new Set<string>();
  for (const name of await source.listClasses()) {
    if (isEngineClassName(name)) continue;
    const model = await source.classCache.get(name);
    for (const tenant of model?.tenants ?? []) tenants.add(tenant);
  }
  return tenants;
}

/** The names of the default stack's classes that belong to this tenant. */
export async function tenantClasses(source: ClientStack, tenant: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (const name of await source.listClasses()) {
    if (isEngineClassName(name)) continue;
    const model = await source.classCache.get(name);
    if (model && model.active !== false && model.tenants.includes(tenant)) names.add(name);
  }
  return names;
}

/**
 * The ids of the schema documents a tenant stack needs: the class documents of its classes,
 * the domain documents between two of its classes, and the versioned patches of its classes.
 */
export async function tenantSchemaIds(source: ClientStack, tenant: string): Promise<string[]> {
  const classes = await tenantClasses(source, tenant);
  const ids = [...classes];
  for (const row of await source.storage.range({ prefix: `${DOMAIN_META}-`, includeDocs: true })) {
    const { sourceClass, targetClass } = row.doc as { sourceClass?: unknown; targetClass?: unknown };
    if (classes.has(String(sourceClass)) && classes.has(String(targetClass))) ids.push(row.id);
  }
  for (const name of classes) {
    for (const row of await source.storage.range({ prefix: `${PATCH_CLASS}-${name}@` })) ids.push(row.id);
  }
  return ids;
}

/**
 * Copies schema documents from the default stack into a tenant stack with their revisions
 * (`new_edits: false`, as a replication would), so a client that syncs the default stack and a
 * tenant sees one revision of each class document, not two diverging ones. Documents the
 * tenant already holds at that revision are skipped by the store (nothing is written).
 */
export async function copySchemaDocs(source: ClientStack, target: ClientStack, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const missing = await target.storage.replication.revsDiff(await currentRevs(source, ids));
  const wanted = Object.entries(missing).flatMap(([id, diff]) => (diff.missing ?? []).map((rev) => ({ id, rev })));
  if (wanted.length === 0) return 0;
  const { results } = await source.storage.replication.bulkGet({ docs: wanted, revs: true });
  const docs = results.flatMap((r) => r.docs.flatMap((d) => ('ok' in d ? [d.ok] : [])));
  const lines = await target.ingest(docs, { origin: 'replication', newEdits: false });
  return lines.filter((line) => line.ok).length;
}

async function currentRevs(source: ClientStack, ids: readonly string[]): Promise<Record<string, string[]>> {
  const revs: Record<string, string[]> = {};
  const rows = (await source.storage.replication.allDocs({ keys: [...ids] })).rows as Array<{ id?: string; value?: { rev: string } }>;
  for (const row of rows) if (row.id && row.value) revs[row.id] = [row.value.rev];
  return revs;
}
