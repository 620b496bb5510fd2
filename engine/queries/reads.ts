import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { KernelHooks } from '../../kernel/hooks.js';
import { planFor } from '../../kernel/write-plan.js';
import { runWaterfall } from '../../kernel/planned-calls.js';
import { CLASS_META, SELF_META, type ClassModel, type Doc } from '../../contracts/model.js';
import { hasFlatAttributes, toClassDocument } from '../model/attribute-shape.js';
import type { FindOptions, GetOptions } from '../../contracts/queries.js';
import { compileSelector, projectFields, type DocMatcher, type RegexEngine, type Selector } from './selector.js';
import type { ClassNamesIndex } from '../indexes/class-names.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { Database } from '../../storage/database.js';
import { rangePages, readRaw, SCAN_PAGE } from '../../storage/raw-reads.js';
import { classPages } from '../../storage/class-ids.js';
import { getStoredVia } from '../../storage/direct-get.js';

export { rangePages, readRaw };

export type { FindOptions, GetOptions };

export function checkFindOptions(options: FindOptions): void {
  for (const key of ['skip', 'limit'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw KERNEL_ERRORS.queryInvalid(`${key} must be a whole number ≥ 0 (got ${String(value)}).`, { path: key });
    }
  }
  if (options.after !== undefined && typeof options.after !== 'string') {
    throw KERNEL_ERRORS.queryInvalid('after must be a document id.', { path: 'after' });
  }
  if (options.fields !== undefined && (!Array.isArray(options.fields) || options.fields.some((f) => typeof f !== 'string'))) {
    throw KERNEL_ERRORS.queryInvalid('fields must be a list of attribute names.', { path: 'fields' });
  }
}

/**
 * Reads a class's documents as a key range of allDocs (`<Class>-` … `<Class>-\uffff`) merged
 * with its ids outside that range (storage/class-ids.ts), page by page in id order, so memory stays bounded and a `limit` stops the scan early. Selectors match after
 * afterRead (they see decrypted values).
 */
export async function scanClass(
  stack: StackPort,
  db: Database,
  hooks: KernelHooks,
  model: ClassModel,
  selector: Selector | undefined,
  options: FindOptions,
): Promise<Doc[]> {
  checkFindOptions(options);
  const match = compileSelector(selector, options.regex);
  const limit = options.limit ?? Infinity;
  let toSkip = options.skip ?? 0;
  const out: Doc[] = [];
  if (limit === 0) return out;
  for await (const page of candidatePages(stack, db, hooks, model, selector, options.includeInactive === true, options.after)) {
    if (options.signal || options.pace) {
      // a remote read gives the event loop back between pages, so no scan holds it for long
      // (an index's candidates are already in memory: without this, pages follow as microtasks)
      await yieldLoop(options.pace);
      refuseAborted(options.signal, model.name);
    }
    const stored = page.filter((doc) => doc['~class'] === model.name && (doc.active !== false || options.includeInactive) && !hooks.hidden.call(doc, { stack, classModel: model }));
    // a page's documents go through afterRead together: decryption overlaps instead of queueing
    const afterRead = planFor(hooks, model, 'local').afterRead;
    const candidates = afterRead ? await Promise.all(stored.map((doc) => afterRead.promise(doc, { stack, classModel: model }))) : stored;
    const matched = match.regexWork ? await matchYielding(match, candidates, options, model.name) : match(candidates);
    for (const doc of matched) {
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      out.push(projectFields(doc, options.fields));
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/** `$regex` characters scanned between two yields of a remote scan to the event loop. */
const REGEX_WORK_PER_TURN = 10_000;

/**
 * Matching with a `$regex` engine (a remote read's): one document at a time (each call bounded
 * by MAX_REGEX_WORK), giving the event loop back whenever the patterns scanned
 * REGEX_WORK_PER_TURN characters, and stopping at the deadline.
 */
async function matchYielding(match: DocMatcher, docs: Doc[], { signal, pace }: FindOptions, className: string): Promise<Doc[]> {
  const out: Doc[] = [];
  let mark = match.regexWork!();
  for (const doc of docs) {
    out.push(...match([doc]));
    if (match.regexWork!() - mark > REGEX_WORK_PER_TURN) {
      await yieldLoop(pace);
      refuseAborted(signal, className);
      mark = match.regexWork!();
    }
  }
  return out;
}

/** One turn of the event loop, or the caller's pacing (a remote query's share of the loop). */
function yieldLoop(pace: (() => Promise<void>) | undefined): Promise<void> {
  return pace ? pace() : new Promise((resolve) => setTimeout(resolve, 0));
}

/** A read past its deadline (its signal aborted) stops between two pages, with a coded refusal. */
export function refuseAborted(signal: AbortSignal | undefined, className: string): void {
  if (!signal?.aborted) return;
  throw KERNEL_ERRORS.queryTooCostly(`The query over ${className} ran past its deadline and was stopped: narrow the selector (an indexed attribute, _id) or page with a smaller limit.`, {
    details: { className, reason: 'deadline' },
  });
}

/**
 * The stored documents a find reads: what a findCandidates tap (an index) names, in `_id` order,
 * else the whole class range.
 */
async function* candidatePages(stack: StackPort, db: Database, hooks: KernelHooks, model: ClassModel, selector: Selector | undefined, includeInactive: boolean, after?: string): AsyncGenerator<Doc[]> {
  const answer = selector && Object.keys(selector).length > 0 ? await hooks.findCandidates.promise(selector, { stack, classModel: model, includeInactive }) : undefined;
  if (!answer) return yield* classPages(db, model.name, SCAN_PAGE, after);
  const docs = answer.docs.filter((d) => after === undefined || d._id > after).sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  for (let start = 0; start < docs.length; start += SCAN_PAGE) yield docs.slice(start, start + SCAN_PAGE);
}

/**
 * One document by id, as a read answers it: null when missing, inactive (unless asked), or hidden;
 * afterRead applied. One promise for the whole read (storage/direct-get.ts): a primary-key lookup
 * is this read, so each promise it adds over PouchDB's get shows in every lookup's cost. `next`
 * carries on inside that promise (getByPrimaryKeys checks the key there).
 */
export function readDocument(stack: StackPort, id: string, options: GetOptions): Promise<Doc | null>;
export function readDocument<R>(stack: StackPort, id: string, options: GetOptions, next: (doc: Doc | null) => R | Promise<R>): Promise<R>;
export function readDocument<R>(stack: StackPort, id: string, options: GetOptions, next?: (doc: Doc | null) => R | Promise<R>): Promise<R | Doc | null> {
  return new Promise((resolve, reject) =>
    getStoredVia(stack.storage, id, (err, stored) => {
      if (err) return reject(err);
      try {
        const doc = shapeRead(stack, stored, options);
        if (!next) return resolve(doc);
        resolve(doc instanceof Promise ? doc.then(next) : next(doc));
      } catch (thrown) {
        reject(thrown);
      }
    }),
  );
}

function shapeRead(stack: StackPort, stored: Doc | null, options: GetOptions): Doc | null | Promise<Doc | null> {
  if (!stored || (stored.active === false && !options.includeInactive)) return null;
  // a class document reads in the stored attribute shape, whichever shape a peer wrote it in
  const isFlatClass = (stored['~class'] === CLASS_META || stored['~class'] === SELF_META) && hasFlatAttributes(stored);
  const doc = isFlatClass ? (toClassDocument(stored as unknown as ClassModel) as unknown as Doc) : stored;
  const className = doc['~class'];
  if (typeof className !== 'string') return finishRead(stack, doc, undefined);
  const fresh = stack.classCache.fresh(className);
  if (fresh) return finishRead(stack, doc, fresh);
  return stack.classCache.get(className).then((model) => finishRead(stack, doc, model ?? undefined));
}

function finishRead(stack: StackPort, doc: Doc, classModel: ClassModel | undefined): Doc | null | Promise<Doc | null> {
  const ctx = classModel ? { stack, classModel } : { stack };
  if (stack.hooks.hidden.call(doc, ctx)) return null;
  // a class's plan leaves out afterRead taps with no work for it (no encrypted attribute: no decryption)
  const afterRead = classModel ? planFor(stack.hooks, classModel, 'local').afterRead : stack.hooks.afterRead;
  return afterRead ? runWaterfall(afterRead, doc, ctx) : doc;
}

/** The stored (raw) active document an update or delete starts from; DS_DOC_NOT_FOUND else. */
export async function requireActive(storage: StackPort['storage'], id: string): Promise<Doc> {
  const previous = typeof id === 'string' && id !== '' ? await storage.get(id) : null;
  if (!previous || previous.active === false || typeof previous['~class'] !== 'string') {
    throw KERNEL_ERRORS.docNotFound(`There is no active document with the id ${JSON.stringify(id)}.`, { details: { id } });
  }
  return previous;
}

/** Class documents cannot be range-scanned (their id is the bare name): list, then filter. */
export async function findClassDocuments(stack: StackPort, classNames: ClassNamesIndex, selector: Selector | undefined, options: FindOptions): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const name of await classNames.list()) {
    const doc = await stack.getDocument(name, options);
    if (doc) docs.push(doc);
  }
  const matched = compileSelector(selector, options.regex)(docs).slice(options.skip ?? 0);
  return matched.slice(0, options.limit ?? matched.length).map((d) => projectFields(d, options.fields));
}

/** Ids a caller chose must be new (generated ones are random); checked before validation writes anything. */
export async function refuseTakenIds(db: Database, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  if (new Set(ids).size !== ids.length) {
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    throw KERNEL_ERRORS.docExists(`The id "${dup}" appears twice in one batch.`, { path: '_id', details: { id: dup } });
  }
  const rows = await db.allDocs({ keys: ids });
  for (const row of rows.rows) {
    if ('value' in row && row.value && !row.value.deleted) {
      throw KERNEL_ERRORS.docExists(`A document with the id "${row.key}" already exists.`, { path: '_id', details: { id: row.key } });
    }
  }
}
