import { malformedDoc } from './shapes.js';
import { DocstackError } from '../../kernel/errors.js';
import type { WriteRequest } from '../../kernel/pipeline.js';
import { claimFor, uniqueViolation, type KeyClaim } from '../../kernel/indexes/primary-keys.js';
import { CLASS_META, SELF_META, type ClassModel, type Doc } from '../../kernel/model/types.js';
import type { ClientStack } from '../../kernel/stack.js';
import { domainDocId, relationPrefix } from '../../plugins/domains/model.js';
import { authorize, checkSchemaChange, classifyWrite, refusePlaintext, type Caller } from '../authorization/index.js';
import { refusedId } from './policy.js';

/** One line of a `_bulk_docs` answer (CouchDB shape, plus the engine's code when it refused). */
export interface BulkResult {
  id: string;
  rev?: string;
  ok?: boolean;
  error?: string;
  reason?: string;
  code?: string;
}

type Incoming = Record<string, unknown> & { _id: string; _rev?: string; _deleted?: boolean };

class Refusal extends Error {}
const refuse = (reason: string): never => {
  throw new Refusal(reason);
};
const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Stores what a peer pushed through `_bulk_docs` (or one `PUT`): each document is first put to
 * the node's one authorization check (server/authorization: who may write what), then
 * validated as a write of origin 'replication' (stack.checkRequests, a dry run of
 * beforeValidate + validate), then its primary key is claimed; only then does it reach
 * `db.bulkDocs`, with the peer's revisions kept as they are (`new_edits: false`). A refused
 * document gets a per-document `forbidden` (with the refusal's code) and is not stored; the
 * others of the batch still are.
 */
export async function acceptBulkDocs(stack: ClientStack, docs: unknown[], newEdits: boolean, caller: Caller): Promise<BulkResult[]> {
  const refusals: BulkResult[] = [];
  const refused = (doc: unknown, why: unknown) => {
    const id = typeof (doc as Incoming)?._id === 'string' ? (doc as Incoming)._id : '';
    refusals.push({ id, error: 'forbidden', reason: reasonOf(why), ...(why instanceof DocstackError ? { code: why.code } : {}) });
  };

  const candidates: Incoming[] = [];
  for (const doc of docs) {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      refused(doc, 'A document must be a JSON object.');
      continue;
    }
    const bad = refusedId((doc as Incoming)._id);
    if (bad) refused(doc, bad);
    else candidates.push(doc as Incoming);
  }

  // one read of the stored revisions serves authorization, the checks and the key claims
  const stored = candidates.length > 0 ? await currentDocs(stack, candidates.filter((d) => !d._id.startsWith('_local/')).map((d) => d._id)) : new Map<string, Doc>();
  const locals: Incoming[] = [];
  const classDocs: Incoming[] = [];
  const others: Incoming[] = [];
  for (const doc of candidates) {
    const subject = classifyWrite(doc._id, doc, stored.get(doc._id));
    try {
      authorize(caller, { type: 'write', subject });
    } catch (err) {
      refused(doc, err);
      continue;
    }
    // authorized, then checked for shape before PouchDB sees it (server/replication/shapes.ts)
    const malformed = malformedDoc(doc, newEdits);
    if (malformed) {
      refusals.push({ id: doc._id, error: 'bad_request', reason: malformed, code: 'DS_REQUEST_INVALID' });
      continue;
    }
    if (subject.kind === 'checkpoint') locals.push(doc);
    else if (subject.kind === 'schema' && subject.what === 'class') classDocs.push(doc);
    else others.push(doc);
  }

  // Class documents first, stored before the rest is validated: an admin's new class and its
  // first documents often arrive in the same batch.
  const acceptedClasses: Incoming[] = [];
  for (const doc of classDocs) {
    try {
      await checkSchemaChange(stack, doc, (stored.get(doc._id) as unknown as ClassModel | undefined) ?? null);
      acceptedClasses.push(doc);
    } catch (err) {
      refused(doc, err);
    }
  }
  const classResults = await store(stack, acceptedClasses, newEdits);
  for (const doc of acceptedClasses) stack.classCache.invalidate(doc._id);

  const accepted = await checkDocuments(stack, others, stored, refused);
  const claims = await claimKeys(stack, accepted, stored, refused);
  const kept = accepted.filter((doc) => !claims.refusedIds.has(doc._id));
  const results = [...(await store(stack, [...locals, ...kept], newEdits)), ...classResults];
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

/** Runs the pipeline checks: the whole batch at once, one by one only when the batch fails. */
async function checkDocuments(stack: ClientStack, docs: Incoming[], previous: Map<string, Doc>, refused: (doc: unknown, why: unknown) => void): Promise<Incoming[]> {
  if (docs.length === 0) return [];
  const checked: { doc: Incoming; request: WriteRequest | null }[] = [];
  for (const doc of docs) {
    try {
      checked.push({ doc, request: await requestFor(stack, doc, previous.get(doc._id)) });
    } catch (err) {
      refused(doc, err);
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
      refused(doc, err);
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
  refusePlaintext(model, doc);
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
async function claimKeys(stack: ClientStack, docs: Incoming[], previous: Map<string, Doc>, refused: (doc: unknown, why: unknown) => void) {
  const refusedIds = new Set<string>();
  const wanted: { doc: Incoming; claim: KeyClaim; className: string }[] = [];
  const releases: KeyClaim[] = [];
  const inBatch = new Map<string, string>();
  for (const doc of docs) {
    const className = doc['~class'];
    if (typeof className !== 'string') continue;
    const model = await stack.classCache.get(className);
    if (!model || model.simple) continue;
    const before = previous.get(doc._id);
    const prevClaim = before ? claimFor(model, before) : null;
    const live = !doc._deleted && doc.active !== false;
    const next = live ? claimFor(model, doc as unknown as Doc) : null;
    if (next && next.keyId !== prevClaim?.keyId) {
      // two documents of one batch with the same key: the first is kept, as createDocs would
      const first = inBatch.get(next.keyId);
      if (first !== undefined && first !== doc._id) {
        refusedIds.add(doc._id);
        refused(doc, uniqueViolation(next, first));
        continue;
      }
      inBatch.set(next.keyId, doc._id);
      wanted.push({ doc, claim: next, className });
    }
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
  for (const { doc, claim } of wanted) {
    const owner = await stack.primaryKeys.ownerOf(claim);
    if (owner) {
      refusedIds.add(doc._id);
      refused(doc, uniqueViolation(claim, owner));
      continue;
    }
    claims.push(claim);
  }
  await stack.primaryKeys.claim(claims);
  return { refusedIds, releases };
}
