import type { WriteRequest } from '../../kernel/pipeline.js';
import { claimFor, type KeyClaim } from '../../kernel/indexes/primary-keys.js';
import { isClassDocId } from '../../kernel/class-cache.js';
import { normalizeAttribute } from '../../kernel/model/attribute-rules.js';
import { ruleContext } from '../../kernel/model/attribute.js';
import { CLASS_META, SELF_META, type ClassModel, type Doc } from '../../kernel/model/types.js';
import type { ClientStack } from '../../kernel/stack.js';
import { domainDocId, relationPrefix } from '../../plugins/domains/model.js';
import { refusedId } from './policy.js';

/** One line of a `_bulk_docs` answer (CouchDB shape). */
export interface BulkResult {
  id: string;
  rev?: string;
  ok?: boolean;
  error?: string;
  reason?: string;
}

type Incoming = Record<string, unknown> & { _id: string; _rev?: string; _deleted?: boolean };

class Refusal extends Error {}
const refuse = (reason: string): never => {
  throw new Refusal(reason);
};
const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Stores what a peer pushed through `_bulk_docs`, after the server's own checks: every
 * document is validated as a write of origin 'replication' (stack.checkRequests, a dry run of
 * beforeValidate + validate) and only the accepted ones reach `db.bulkDocs`, with the peer's
 * revisions kept as they are (`new_edits: false`). A refused document gets a per-document
 * `forbidden` and is not stored; the others of the batch still are.
 */
export async function acceptBulkDocs(stack: ClientStack, docs: unknown[], newEdits: boolean): Promise<BulkResult[]> {
  const refusals: BulkResult[] = [];
  const refused = (doc: unknown, reason: string) => {
    const id = typeof (doc as Incoming)?._id === 'string' ? (doc as Incoming)._id : '';
    refusals.push({ id, error: 'forbidden', reason });
  };

  const locals: Incoming[] = [];
  const classDocs: Incoming[] = [];
  const others: Incoming[] = [];
  for (const doc of docs) {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      refused(doc, 'A document must be a JSON object.');
      continue;
    }
    const incoming = doc as Incoming;
    const bad = refusedId(incoming._id);
    if (bad) refused(doc, bad);
    else if (incoming._id.startsWith('_local/')) locals.push(incoming);
    else if (isClassDocId(incoming._id) && !incoming._deleted) classDocs.push(incoming);
    else others.push(incoming);
  }

  // Class documents first, stored before the rest is validated: a peer's new class and its
  // first documents often arrive in the same batch.
  const acceptedClasses: Incoming[] = [];
  for (const doc of classDocs) {
    try {
      await checkClassDoc(stack, doc);
      acceptedClasses.push(doc);
    } catch (err) {
      refused(doc, reasonOf(err));
    }
  }
  const stored = await store(stack, acceptedClasses, newEdits);
  for (const doc of acceptedClasses) stack.classCache.invalidate(doc._id);

  // one read of the stored revisions serves the checks and the primary-key claims
  const previous = others.length > 0 ? await currentDocs(stack, others.map((d) => d._id)) : new Map<string, Doc>();
  const accepted = await checkDocuments(stack, others, previous, refused);
  const claims = await claimKeys(stack, accepted, previous, refused);
  const kept = accepted.filter((doc) => !claims.refusedIds.has(doc._id));
  const results = [...(await store(stack, [...locals, ...kept], newEdits)), ...stored];
  if (claims.releases.length > 0) await stack.primaryKeys.release(claims.releases);
  return [...refusals, ...results];
}

async function store(stack: ClientStack, docs: Incoming[], newEdits: boolean): Promise<BulkResult[]> {
  if (docs.length === 0) return [];
  const results = await stack.db.bulkDocs(docs as never[], { new_edits: newEdits });
  return results.map((r) => {
    const e = r as { id?: string; rev?: string; ok?: boolean; error?: unknown; name?: string; status?: number; message?: string; reason?: string };
    if (e.error) return { id: e.id ?? '', error: typeof e.error === 'string' ? e.error : (e.name ?? 'error'), reason: e.reason ?? e.message ?? '' };
    return { id: e.id ?? '', rev: e.rev, ok: true };
  });
}

/**
 * Policy for class documents: accepted from an authenticated peer when the model is a
 * well-formed class (its name is its id) and every attribute passes the kernel's attribute
 * rules (the same rules Class.create applies). Meta-classes and server-private classes are
 * refused earlier (policy.ts).
 */
async function checkClassDoc(stack: ClientStack, doc: Incoming): Promise<void> {
  if (doc['~class'] !== CLASS_META) refuse(`"${doc._id}" looks like a class document but its ~class is not "class".`);
  const model = doc as unknown as ClassModel;
  if (model.name !== doc._id) refuse('A class document must carry its own name as _id.');
  if (model.schema === null || typeof model.schema !== 'object' || Array.isArray(model.schema)) refuse('A class document needs a schema object.');
  const ctx = ruleContext(stack, model);
  for (const [name, attribute] of Object.entries(model.schema)) {
    if (attribute === null || typeof attribute !== 'object' || attribute.name !== name) refuse(`The attribute "${name}" is malformed.`);
    await normalizeAttribute(attribute as unknown as Record<string, unknown>, ctx);
  }
}

/** Runs the pipeline checks: the whole batch at once, one by one only when the batch fails. */
async function checkDocuments(stack: ClientStack, docs: Incoming[], previous: Map<string, Doc>, refused: (doc: unknown, reason: string) => void): Promise<Incoming[]> {
  if (docs.length === 0) return [];
  const checked: { doc: Incoming; request: WriteRequest | null }[] = [];
  for (const doc of docs) {
    try {
      checked.push({ doc, request: await requestFor(stack, doc, previous.get(doc._id)) });
    } catch (err) {
      refused(doc, reasonOf(err));
    }
  }
  const requests = checked.filter((c) => c.request).map((c) => c.request as WriteRequest);
  try {
    await stack.checkRequests(requests, 'replication');
    return checked.map((c) => c.doc);
  } catch {
    // one refused draft fails a whole check: find which, so the others of the batch still pass
  }
  const accepted: Incoming[] = [];
  for (const { doc, request } of checked) {
    try {
      if (request) await stack.checkRequests([request], 'replication');
      accepted.push(doc);
    } catch (err) {
      refused(doc, reasonOf(err));
    }
  }
  return accepted;
}

/** The write request a replicated revision stands for; null when no pipeline check applies. */
async function requestFor(stack: ClientStack, doc: Incoming, previous: Doc | undefined): Promise<WriteRequest | null> {
  // A tombstone (a purge on the peer: ephemeral or retention) is accepted: removing never
  // depends on the document being valid, and refusing it would only leave the peers diverged.
  if (doc._deleted) return null;
  if (typeof doc['~domain'] === 'string' && doc['~class'] === undefined) {
    await checkRelation(stack, doc);
    return null;
  }
  const className = doc['~class'];
  if (typeof className !== 'string' || className === '') return refuse('A document needs a "~class" naming its class.');
  const model = await stack.classCache.get(className);
  const isClass = model && (model['~class'] === CLASS_META || model['~class'] === SELF_META);
  if (!model || !isClass || model.active === false) return refuse(`There is no class named ${JSON.stringify(className)} on this node.`);
  if (model.ephemeral) return refuse(`${className} is an ephemeral class: its documents stay on the peer that wrote them.`);
  if (!doc._id.startsWith(`${className}-`)) return refuse(`The _id of a ${className} document must start with "${className}-".`);
  const { _revisions: _r, _attachments: _a, _conflicts: _c, ...draft } = doc;
  const deleting = doc.active === false && previous !== undefined && previous.active !== false;
  return { op: deleting ? 'delete' : previous ? 'update' : 'create', draft: draft as unknown as Doc, ...(previous ? { previous } : {}), classModel: model };
}

/**
 * Policy for relation documents (`~domain`): accepted when the domain exists on this node and
 * the id is in the domain's range. Their ends are not checked here: a relation and its ends
 * arrive in any order under replication.
 */
async function checkRelation(stack: ClientStack, doc: Incoming): Promise<void> {
  const domain = doc['~domain'] as string;
  if (!doc._id.startsWith(relationPrefix(domain))) refuse(`A relation of "${domain}" must have an id starting with "${relationPrefix(domain)}".`);
  const found = await stack.db.get(domainDocId(domain)).catch(() => null);
  if (!found || (found as { active?: boolean }).active === false) refuse(`There is no domain named ${JSON.stringify(domain)} on this node.`);
}

/** The winning stored revision of each id (absent when new or deleted). */
async function currentDocs(stack: ClientStack, ids: string[]): Promise<Map<string, Doc>> {
  const rows = await stack.db.allDocs({ keys: [...new Set(ids)], include_docs: true });
  const found = new Map<string, Doc>();
  for (const row of rows.rows) {
    const doc = 'doc' in row ? (row.doc as unknown as Doc | null) : null;
    if (doc) found.set(doc._id, doc);
  }
  return found;
}

/**
 * Keeps the node's primary-key index exact for replicated documents: a document whose key a
 * different live document owns here is refused (DS_UNIQUE_VIOLATION); the keys of the others
 * are claimed before storing; keys of deactivated or removed documents are released after.
 */
async function claimKeys(stack: ClientStack, docs: Incoming[], previous: Map<string, Doc>, refused: (doc: unknown, reason: string) => void) {
  const refusedIds = new Set<string>();
  const wanted: { doc: Incoming; claim: KeyClaim; className: string }[] = [];
  const releases: KeyClaim[] = [];
  for (const doc of docs) {
    const className = doc['~class'];
    if (typeof className !== 'string') continue;
    const model = await stack.classCache.get(className);
    if (!model || model.simple) continue;
    const before = previous.get(doc._id);
    const prevClaim = before ? claimFor(model, before) : null;
    const live = !doc._deleted && doc.active !== false;
    const next = live ? claimFor(model, doc as unknown as Doc) : null;
    if (next && next.keyId !== prevClaim?.keyId) wanted.push({ doc, claim: next, className });
    if (prevClaim && prevClaim.keyId !== next?.keyId) releases.push(prevClaim);
  }
  // Fast path: claim the whole batch at once (a conflict-checked bulk write). Only when some
  // key is taken does each document get its own check, so the others of the batch still pass.
  try {
    await stack.primaryKeys.claim(wanted.map((w) => w.claim));
    return { refusedIds, releases };
  } catch (err) {
    if ((err as { code?: string }).code !== 'DS_UNIQUE_VIOLATION') throw err;
  }
  const claims: KeyClaim[] = [];
  for (const { doc, claim, className } of wanted) {
    const owner = await stack.primaryKeys.ownerOf(claim);
    if (owner) {
      refusedIds.add(doc._id);
      refused(doc, `Another ${className} (${owner}) already has this ${claim.attributes.join(' + ')}.`);
      continue;
    }
    claims.push(claim);
  }
  await stack.primaryKeys.claim(claims);
  return { refusedIds, releases };
}
