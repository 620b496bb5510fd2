import { DocstackError } from './errors.js';
import type { KernelHooks } from './hooks.js';
import type { ClassModel, Doc } from './model/types.js';
import { compileSelector, projectFields, type Selector } from './selector.js';
import type { ClientStack } from './stack.js';
import type { Database } from './storage.js';

export interface FindOptions {
  /** Attribute names to return (with `_id`); all when absent. */
  fields?: string[];
  skip?: number;
  limit?: number;
  includeInactive?: boolean;
}

export interface GetOptions {
  includeInactive?: boolean;
}

const SCAN_PAGE = 500;

export async function readRaw(db: Database, id: string): Promise<Doc | null> {
  try {
    return (await db.get(id)) as unknown as Doc;
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}

export function checkFindOptions(options: FindOptions): void {
  for (const key of ['skip', 'limit'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new DocstackError('DS_QUERY_INVALID', `${key} must be a whole number ≥ 0 (got ${String(value)}).`, { path: key });
    }
  }
  if (options.fields !== undefined && (!Array.isArray(options.fields) || options.fields.some((f) => typeof f !== 'string'))) {
    throw new DocstackError('DS_QUERY_INVALID', 'fields must be a list of attribute names.', { path: 'fields' });
  }
}

/**
 * Reads a class's documents as a key range of allDocs (`<Class>-` … `<Class>-\uffff`), page by
 * page, so memory stays bounded and a `limit` stops the scan early. Selectors match after
 * afterRead (they see decrypted values).
 */
export async function scanClass(
  stack: ClientStack,
  db: Database,
  hooks: KernelHooks,
  model: ClassModel,
  selector: Selector | undefined,
  options: FindOptions,
): Promise<Doc[]> {
  checkFindOptions(options);
  const match = compileSelector(selector);
  const limit = options.limit ?? Infinity;
  let toSkip = options.skip ?? 0;
  const out: Doc[] = [];
  if (limit === 0) return out;
  let startkey = `${model.name}-`;
  let skipFirst = 0;
  for (;;) {
    const page = await db.allDocs({ startkey, endkey: `${model.name}-\uffff`, include_docs: true, limit: SCAN_PAGE, skip: skipFirst });
    if (page.rows.length === 0) break;
    const stored: Doc[] = [];
    for (const row of page.rows) {
      const doc = row.doc as unknown as Doc | undefined;
      if (!doc || doc['~class'] !== model.name) continue;
      if (doc.active === false && !options.includeInactive) continue;
      stored.push(doc);
    }
    // a page's documents go through afterRead together: decryption overlaps instead of queueing
    const candidates = await Promise.all(stored.map((doc) => hooks.afterRead.promise(doc, { stack, classModel: model })));
    for (const doc of match(candidates)) {
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      out.push(projectFields(doc, options.fields));
      if (out.length >= limit) return out;
    }
    if (page.rows.length < SCAN_PAGE) break;
    startkey = page.rows[page.rows.length - 1].id;
    skipFirst = 1;
  }
  return out;
}
