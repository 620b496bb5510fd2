import { systemClock, type Clock } from '../contracts/clock.js';
import { KERNEL_ERRORS } from '../contracts/errors.js';
import { CLASS_META, DOMAIN_META, isEngineClassName, primaryKeyAttributes, SELF_META, type ClassModel, type Doc } from '../contracts/model.js';

/** `<ClassName>-<random>`: a class scan is then an allDocs key range (an id a caller chose may lie outside it). */
export function newDocId(className: string): string {
  return `${className}-${globalThis.crypto.randomUUID()}`;
}

/**
 * The id of a keyed document: `<ClassName>-<encoded key>`, one part per key attribute in schema
 * order, joined by `.`. A part is the value's canonical JSON (object keys sorted) with every
 * UTF-8 byte outside `A-Z a-z 0-9 -` written `_XX` (hex): every device derives the same id from
 * the same key, any string is safe, the id needs no escaping in a URL path (no `%`, `/`, `?`),
 * and it starts with the class name (never `_`). Reversible: decodeNaturalKey.
 */
export function naturalDocId(className: string, values: readonly unknown[]): string {
  return `${className}-${values.map((v) => escapeIdPart(canonicalJson(v))).join('.')}`;
}

/** The key values a natural id encodes (naturalDocId's inverse), or null for another id. */
export function decodeNaturalKey(className: string, id: string): unknown[] | null {
  const prefix = `${className}-`;
  if (!id.startsWith(prefix) || id.length === prefix.length) return null;
  try {
    return id.slice(prefix.length).split('.').map((part) => {
      if (!/^(?:[A-Za-z0-9-]|_[0-9A-F]{2})*$/.test(part)) throw new Error('not a natural id part');
      return JSON.parse(decodeURIComponent(part.replace(/_/g, '%'))) as unknown;
    });
  } catch {
    return null; // a random id, or one a caller chose
  }
}

const encoder = new TextEncoder();

/** Text that is only ASCII (then each character is its own UTF-8 byte). */
const ASCII = /^[\x00-\x7f]*$/;

function escapeIdPart(text: string): string {
  if (!globalThis.docstackBrowserBuild) {
    const scanned = escapeAsciiScan(text); // Node: one scan (undefined past ASCII)
    if (scanned !== undefined) return scanned;
  } else if (ASCII.test(text)) return escapeAscii(text);
  let out = '';
  for (const byte of encoder.encode(text)) {
    const c = String.fromCharCode(byte);
    out += KEPT.test(c) ? c : byteEscape(byte);
  }
  return out;
}

/** Characters an id part keeps as they are; escapeIdPart writes every other byte `_XX` (byteEscape). */
const KEPT = /[A-Za-z0-9-]/;
/** The characters KEPT does not match, for a replace. */
const UNSAFE_ASCII = /[^A-Za-z0-9-]/g;

const byteEscape = (byte: number): string => `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * escapeIdPart for ASCII text: one replace (a key's JSON always has its quotes to escape), not a
 * string grown character by character — that made ≈ 1.4 kB of garbage per natural id. Node scans
 * by character codes instead (escapeAsciiScan: a regex replace with a callback was ≈ 15 % of a
 * serial create's own CPU); the browser files keep the replace (no bytes for the scan).
 */
function escapeAscii(text: string): string {
  return text.replace(UNSAFE_ASCII, (c) => byteEscape(c.charCodeAt(0)));
}

/** `_XX` of each ASCII code, '' for a character kept as it is; built on first use. */
let asciiEscapes: string[] | undefined;

const escapesOfAscii = (): string[] => (asciiEscapes ??= Array.from({ length: 128 }, (_, code) => (KEPT.test(String.fromCharCode(code)) ? '' : byteEscape(code))));

/**
 * Is `id` the natural id of a one-attribute key whose value is `text`, when the text is only of
 * characters escapeIdPart keeps (then the id is `<Class>-_22<text>_22`: its quotes escaped)?
 * Compared in place, nothing built; false for any other text (derive the id then). Node only.
 */
export function isPlainTextNaturalId(className: string, text: string, id: string): boolean {
  const at = className.length + 4; // where the text starts: after `<Class>-_22`
  if (id.length !== at + text.length + 3 || !id.startsWith(className) || !id.startsWith('-_22', className.length) || !id.endsWith('_22')) return false;
  const escapes = escapesOfAscii();
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (escapes[code] !== '' || id.charCodeAt(at + i) !== code) return false; // past ASCII: undefined, not ''
  }
  return true;
}

/** `<Class>-_22<text>_22` when the text is only of characters escapeIdPart keeps, else undefined. Node only. */
function plainTextNaturalId(className: string, text: string): string | undefined {
  const escapes = escapesOfAscii();
  for (let i = 0; i < text.length; i++) if (escapes[text.charCodeAt(i)] !== '') return undefined; // past ASCII: undefined, not ''
  return `${className}-_22${text}_22`;
}

/** escapeIdPart of ASCII text by its character codes, or undefined when the text is not only ASCII. */
function escapeAsciiScan(text: string): string | undefined {
  const escapes = escapesOfAscii();
  let out = '';
  let kept = 0; // text[kept, i) is copied as it is
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 127) return undefined;
    const escaped = escapes[code];
    if (escaped === '') continue;
    out += text.slice(kept, i) + escaped;
    kept = i + 1;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * The natural id of a new document of a keyed (non-simple) class, or undefined: no key, or a key
 * value missing (the mandatory check refuses it; a key filled by a default keeps a random id)
 * or not plain text, number or boolean.
 */
export function naturalIdOf(model: ClassModel, doc: Record<string, unknown>): string | undefined {
  if (model.simple) return undefined;
  const attributes = primaryKeyAttributes(model);
  if (attributes.length === 0) return undefined;
  // text, numbers and booleans only: a value validation may still convert (a Date, say) would
  // name the document by a key it does not store; such a document keeps a random id
  if (attributes.length === 1 && !globalThis.docstackBrowserBuild) {
    // the usual key, one attribute: no arrays (every lookup and every write works this id out;
    // Node only: the browser files have no bytes for it, types/build-flags.d.ts)
    const value = doc[attributes[0].name];
    if (typeof value === 'string') {
      // plain text (only characters an id keeps as they are): its JSON is the text in quotes,
      // and the id is that with the quotes escaped — no JSON text made (a call into the
      // runtime), what isPlainTextNaturalId compares against
      const plain = plainTextNaturalId(model.name, value);
      if (plain !== undefined) return plain;
    }
    return isKeyScalar(value) ? naturalIdOfJson(model.name, JSON.stringify(value)) : undefined;
  }
  const values = attributes.map((a) => doc[a.name]);
  if (!values.every(isKeyScalar)) return undefined;
  return naturalDocId(model.name, values);
}

// the last natural id naturalIdOfJson made: a create asks for its key's twice (createDraft, then its claim)
let lastClassName = '';
let lastJson = '';
let lastNaturalId = '';

/** The natural id of a one-attribute key whose value's JSON is `json` (a key claim has it at hand). */
export function naturalIdOfJson(className: string, json: string): string {
  if (json === lastJson && className === lastClassName) return lastNaturalId;
  lastNaturalId = `${className}-${escapeIdPart(json)}`;
  lastClassName = className;
  lastJson = json;
  return lastNaturalId;
}

export function isKeyScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** JSON with object keys sorted at every level: one text per value, whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

let lastMs = Number.NaN;
let lastIso = '';
/** the second lastIso lies in (its first millisecond), and its text up to the milliseconds: `…T12:34:56.` */
let secondStart = Number.NaN;
let secondText = '';
/** the last millisecond a Date holds (past it toISOString throws) */
const MAX_TIME = 8.64e15;

/**
 * The time of a clock (default the wall clock) as an ISO string: document timestamps. The string
 * of the last millisecond is kept: serial writes come many to a millisecond, and formatting a
 * Date was ≈ 2 % of a serial insert's CPU in the kernel's profile. Node also keeps the text of
 * the last second and writes only the milliseconds of a new one: a serial create (≈ 0.1–0.2 ms)
 * mostly meets a new millisecond, and Date's formatting (a call into the runtime) was 1–2 µs of
 * a create in context (bench/serial-profile). The browser files format each millisecond (no bytes).
 */
export function nowIso(clock: Clock = systemClock): string {
  const ms = clock.now();
  if (ms !== lastMs) {
    lastIso = globalThis.docstackBrowserBuild ? new Date(ms).toISOString() : isoInSecond(ms);
    lastMs = ms;
  }
  return lastIso;
}

/** nowIso's text of a new millisecond (Node): the milliseconds written after the kept second's text, or formatted anew. */
function isoInSecond(ms: number): string {
  const inSecond = ms - secondStart;
  if (inSecond >= 0 && inSecond < 1000 && Number.isInteger(inSecond) && ms <= MAX_TIME) return secondText + (inSecond < 10 ? '00' : inSecond < 100 ? '0' : '') + inSecond + 'Z';
  const iso = new Date(ms).toISOString(); // throws for a clock that is not a time, as before
  secondStart = ms - (((ms % 1000) + 1000) % 1000);
  secondText = iso.slice(0, -4); // `….123Z` → `….`
  return iso;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Fields a caller may never set on create. */
const CREATE_PROTECTED = ['_rev', '_deleted', '~createTimestamp', '~updateTimestamp', '~tx'] as const;
/** Fields a caller may repeat on update (same value) but never change. */
const UPDATE_PROTECTED = ['_id', '~class', '~createTimestamp', 'active', '~tx'] as const;

export function requireObject(input: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(input)) {
    throw KERNEL_ERRORS.docInvalid(`${what} must be a plain object, not ${Array.isArray(input) ? 'an array' : typeof input}.`);
  }
  return input;
}

export function classNameOf(input: Record<string, unknown>): string {
  const name = input['~class'];
  if (typeof name !== 'string' || name === '') {
    throw KERNEL_ERRORS.classMissing('A document needs a "~class" naming its class.', { path: '~class' });
  }
  if (name === CLASS_META || name === SELF_META) {
    throw KERNEL_ERRORS.classInvalid('Classes are created with Class.create, not as documents.', { path: '~class' });
  }
  return name;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Has the input a key that may be an engine or plugin field — `_…` or `~…` (kernel.defineSystemField's
 * rule), other than `_id` and `~class`? Every protected field has that shape, so without one
 * createDraft has nothing to refuse: a new document's usual keys are its attributes, and one pass
 * over them (no array) is cheaper than asking for each protected field by name.
 */
function mayHoldSystemField(input: Record<string, unknown>): boolean {
  for (const key in input) {
    const first = key.charCodeAt(0);
    if ((first === 95 || first === 126) && key !== '_id' && key !== '~class') return true; // '_' or '~'
  }
  return false;
}

/**
 * The draft of a new document: the caller's attributes plus the system fields. `pluginFields`:
 * the stack's plugin-owned `~` fields (stack.systemFields), which a caller may not set either.
 */
export function createDraft(input: Record<string, unknown>, model: ClassModel, givenId: string | undefined, now: string, pluginFields: ReadonlySet<string> = NONE): Doc {
  // (Node: only when a key could be one of them; the browser files always look)
  if (globalThis.docstackBrowserBuild || mayHoldSystemField(input)) {
    for (const fields of [CREATE_PROTECTED, pluginFields]) {
      for (const field of fields) {
        if (Object.hasOwn(input, field)) {
          throw KERNEL_ERRORS.docProtectedField(`"${field}" is set by the engine; leave it out of a new document.`, { path: field });
        }
      }
    }
  }
  if (Object.hasOwn(input, 'active') && input.active !== true) {
    throw KERNEL_ERRORS.docProtectedField('A new document is active; delete it to deactivate it.', { path: 'active' });
  }
  // an explicit id wins; then the key's natural id (one document per key on every device); else random
  const id = givenId ?? (typeof input._id === 'string' ? input._id : undefined) ?? naturalIdOf(model, input) ?? newDocId(model.name);
  checkDocId(id, model.name);
  // one object built in the stored order (_id, ~class, the attributes, the stamps). Node copies
  // the attributes one by one (copiedDraft says why); the browser files keep the spread (no
  // bytes for the loop), which keeps an own "__proto__" (parsed JSON) a field, never the prototype
  if (!globalThis.docstackBrowserBuild) return copiedDraft(input, id, model.name, now);
  const doc: Record<string, unknown> = { _id: id, '~class': model.name, ...input, '~createTimestamp': now, active: true };
  doc._id = id; // the input's own _id or ~class took the first places' values
  doc['~class'] = model.name;
  if (Object.hasOwn(input, 'active')) {
    // the input's `active` (true) took its place among the attributes: moved last, after the stamp
    delete doc.active;
    doc.active = true;
  }
  return doc as Doc;
}

/**
 * createDraft's draft on Node: `_id`, `~class`, the input's own attributes in their order, then
 * the stamps — what the spread builds. Why not the spread: a spread after other fields copies
 * through a generic builtin, one property definition at a time with no inline cache, and in a
 * serial create's context (caches cold from the adapter's work between two writes) that was
 * 3.8–4.7 µs of createDraft's own time per create (bench/serial-profile, memory); copied here by
 * keyed stores, createDraft and this took 1.6–1.8 µs. bench/serial-ab (116 rounds each, A =
 * the spread): B ÷ A 0.976 and 0.986 (memory), 0.986 and 0.996 (leveldb); bulk inserts of
 * 10,000 (22 rounds) 1.04 and 0.94 (memory) and 0.99 (leveldb): not told apart. Own string keys
 * only (Object.keys: an enumerable property a polluted prototype carries is not copied, as a
 * spread copies none); an own "__proto__" stays a field, as the spread keeps it.
 */
function copiedDraft(input: Record<string, unknown>, id: string, className: string, now: string): Doc {
  const doc: Record<string, unknown> = { _id: id, '~class': className };
  const keys = Object.keys(input);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '_id' || key === '~class' || key === 'active') continue; // set here, in their places
    if (key === '__proto__') Object.defineProperty(doc, key, { value: input[key], enumerable: true, writable: true, configurable: true });
    else doc[key] = input[key];
  }
  doc['~createTimestamp'] = now;
  doc.active = true;
  return doc as Doc;
}

/**
 * The rules an id a caller (or a peer) chose obeys, as far as they need no class list: a
 * non-empty string (else DS_DOC_ID_INVALID), not a system id — `_…` (PouchDB's), `~…` (the
 * engine's), `domain-…` (a domain's document), an id without `-` (the shape of a class
 * document's id, its name: isClassDocId) — else DS_DOC_ID_RESERVED. Any other id is accepted:
 * one outside `<Class>-…` is listed beside the class's counter so class scans find it
 * (storage/class-ids.ts); the engine also refuses one in another existing class's range
 * (DS_DOC_ID_OTHER_CLASS, engine/write-parts/class-ids.ts), which needs the class model. A
 * document of an engine class (`~…`) keeps its range: a node tells them apart by id alone.
 */
export function checkDocId(id: unknown, className: string): void {
  if (typeof id !== 'string' || id === '') {
    throw KERNEL_ERRORS.docIdInvalid(`An id is a non-empty string (got ${JSON.stringify(id)}).`, { path: '_id', details: { id } });
  }
  // an engine class's documents keep their range: a node tells them apart by id alone (`~…`: internal)
  if (!id.startsWith(`${className}-`) && (/^[_~]|^domain-|^[^-]*$/.test(id) || isEngineClassName(className))) {
    throw KERNEL_ERRORS.docIdReserved(`${JSON.stringify(id)} is a system id (see docs/data-model.md, "Ids").`, { path: '_id', details: { id } });
  }
}

/**
 * The draft of an update: stored document, changes merged on top, `null` clearing an attribute.
 * A plugin-owned `~` field (`pluginFields`) may be repeated with its stored value, never changed.
 */
export function updateDraft(previous: Doc, changes: Record<string, unknown>, now: string, pluginFields: ReadonlySet<string> = NONE): Doc {
  if (Object.hasOwn(changes, '_rev') && changes._rev !== previous._rev) {
    throw KERNEL_ERRORS.docConflict(`"${previous._id}" is at another revision than the one given; read it again and retry.`, {
      path: '_rev',
      details: { id: previous._id, expected: changes._rev, actual: previous._rev },
    });
  }
  for (const field of [...UPDATE_PROTECTED, ...pluginFields]) {
    if (Object.hasOwn(changes, field) && !sameValue(changes[field], previous[field])) {
      throw KERNEL_ERRORS.docProtectedField(`"${field}" cannot be changed by an update.`, { path: field });
    }
  }
  const draft: Record<string, unknown> = { ...previous };
  for (const [key, value] of Object.entries(changes)) {
    if (key === '_rev' || key === '~updateTimestamp' || key === '_deleted') continue;
    if (value === null || value === undefined) delete draft[key];
    else draft[key] = value;
  }
  draft['~updateTimestamp'] = now;
  return draft as Doc;
}

/** Equal as stored (JSON): a system field's value read back and given again is not a change. */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));
}

export function deleteDraft(previous: Doc, now: string): Doc {
  return { ...previous, active: false, '~updateTimestamp': now };
}
