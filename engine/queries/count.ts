import { isPlainObject } from '../../kernel/drafts.js';
import { claimFor, keyIdOf } from '../indexes/primary-keys.js';
import { CLASS_META, primaryKeyAttributes, type ClassModel, type Doc } from '../../contracts/model.js';
import { compileSelector, type Selector } from './selector.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { Database } from '../../storage/database.js';
import { readRaw } from './reads.js';

/**
 * countDocuments: the class's counter for a whole class (one `_local` read), the primary-key
 * index for a selector that is exactly a whole key (one key entry and its document), an index
 * plugin's count for a selector its index answers whole (countMatches: no document read), else
 * the documents findDocuments would return (an index plugin's candidates when one answers part
 * of the selector, the class scan otherwise).
 */
export async function countDocuments(stack: StackPort, db: Database, model: ClassModel, selector: Selector | undefined): Promise<number> {
  compileSelector(selector); // a bad selector is refused on every path, as findDocuments does
  const empty = selector === undefined || Object.keys(selector).length === 0;
  if (model.name === CLASS_META) return (await stack.findDocuments(model.name, selector, { fields: ['_id'] })).length;
  if (empty) return (await stack.classCounts.count(model.name)) - hiddenIds(stack, model).length;
  const key = keyValues(model, selector);
  if (key) {
    const id = await stack.primaryKeys.lookup(model.name, key);
    const doc = id ? await readRaw<Doc>(db, id) : null;
    // a pending or stale entry (a crash between writes) counts only if its document holds the key
    const live = !!doc && doc.active !== false && claimFor(model, doc)?.keyId === keyIdOf(model.name, key) && !stack.hooks.hidden.call(doc, { stack, classModel: model });
    return live ? 1 : 0;
  }
  const counted = await stack.hooks.countMatches.promise(selector!, { stack, classModel: model, includeInactive: false });
  if (counted !== undefined) return counted;
  return (await stack.findDocuments(model.name, selector, { fields: ['_id'] })).length;
}

/** The class's stored active documents that reads hide (a peer's transaction not whole here yet). */
export function hiddenIds(stack: StackPort, model: ClassModel): string[] {
  return stack.hooks.hiddenIds.isUsed() ? stack.hooks.hiddenIds.call([], model) : [];
}

/** The key values when the selector is exactly equality on every primary-key attribute, else null. */
function keyValues(model: ClassModel, selector: Selector): unknown[] | null {
  const attributes = primaryKeyAttributes(model);
  if (attributes.length === 0 || Object.keys(selector).length !== attributes.length) return null;
  const values: unknown[] = [];
  for (const attribute of attributes) {
    if (!Object.hasOwn(selector, attribute.name)) return null;
    let value = selector[attribute.name];
    if (isPlainObject(value)) {
      const ops = Object.keys(value);
      if (ops.length !== 1 || ops[0] !== '$eq') return null;
      value = value.$eq;
    }
    if (value === null || value === undefined || typeof value === 'object') return null;
    values.push(value);
  }
  return values;
}
