import type { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import type { ClientStack, ReplicationChangesOptions } from '../../index.js';
import { boolParam, intParam, jsonParam, sendError, sendPouchError } from './http.js';
import { readableBy } from './policy.js';
import { isIdKey, parseSince } from './shapes.js';
import { type ChangeMatcher, type ChangeRow, selectorMatcher } from './change-filter.js';
import { feedSince, snapshotPage } from './class-snapshot.js';

/** CouchDB's default longpoll timeout; PouchDB sends a heartbeat (10 s) instead of a timeout. */
const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_TIMEOUT_MS = 300_000;
/** Pages read to fill one answer when every change of a page was a hidden document. */
const MAX_HIDDEN_PAGES = 50;

/** Raw changes read per page when a selector filters them (bodies are read to match). */
const FILTER_SCAN_PAGE = 1000;

type ChangesResult = { results: Array<{ id: string; seq: number | string }>; last_seq: number | string; pending?: number };
/** A `_changes` request's options, and the selector's matcher when it asks for `filter=_selector`. */
type ChangesRequest = ReplicationChangesOptions & { match?: ChangeMatcher };

/** The options of a `_changes` request, or an Error saying what is malformed. */
function changesOptions(req: Request): ChangesRequest | Error {
  const q = { ...(req.query as Record<string, unknown>), ...(req.method === 'POST' && req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) };
  const since = parseSince(q.since);
  if (since instanceof Error) return since;
  const options: ReplicationChangesOptions = {
    since,
    style: q.style === 'all_docs' ? 'all_docs' : 'main_only',
  };
  const limit = intParam(q.limit);
  if (limit !== undefined) options.limit = Math.max(limit, 1);
  for (const key of ['include_docs', 'conflicts', 'descending', 'attachments'] as const) {
    const value = boolParam(q[key]);
    if (value !== undefined) options[key] = value;
  }
  const seqInterval = intParam(q.seq_interval);
  if (seqInterval !== undefined) options.seq_interval = seqInterval;
  // `filter=_doc_ids` with the ids in the POST body (what PouchDB sends for doc_ids)
  const docIds = jsonParam(q.doc_ids);
  if (docIds !== undefined && !(Array.isArray(docIds) && docIds.length <= 10_000 && docIds.every(isIdKey))) return new Error('doc_ids must be a list of document ids.');
  if (Array.isArray(docIds)) options.doc_ids = docIds;
  // `filter=_selector` with { selector } in the POST body (what PouchDB sends for `selector`);
  // design-document filters would run stored code: never served
  if (q.filter !== undefined && q.filter !== '_selector' && q.filter !== '_doc_ids') return new Error('Only the _selector and _doc_ids filters are served.');
  if (q.filter === '_doc_ids' && !Array.isArray(docIds)) return new Error('filter=_doc_ids needs doc_ids.');
  if (q.filter === '_selector') {
    const match = selectorMatcher(jsonParam(q.selector));
    if (match instanceof Error) return match;
    return { ...options, match };
  }
  return options;
}

/**
 * One page of a selector-filtered feed: raw changes are read a page at a time with their
 * documents, matched, and the answer stops at `limit` matches with `last_seq` at the last one
 * taken, so the next request resumes right after it. A long run of non-matching changes is read
 * through (an empty page would tell PouchDB it has caught up).
 */
async function filteredChanges(stack: ClientStack, request: ChangesRequest, readable: (id: string) => boolean): Promise<ChangesResult> {
  const match = request.match!;
  // the first pull of a class scope: the classes' id ranges, not the whole feed (class-snapshot.ts)
  if (match.scope && !request.descending) {
    const page = await snapshotPage(stack, match.scope, request.since, request.limit ?? 1_000_000_000, request.include_docs === true, readable);
    if (page) {
      if (page.feedSince === null) return { results: page.results, last_seq: page.last_seq! };
      const room = request.limit === undefined ? undefined : request.limit - page.results.length;
      if (room === 0) return { results: page.results, last_seq: page.feedSince };
      const rest = await filteredFeed(stack, { ...request, since: page.feedSince, ...(room === undefined ? {} : { limit: room }) }, readable);
      return { results: [...page.results, ...rest.results], last_seq: rest.last_seq };
    }
  }
  return filteredFeed(stack, { ...request, since: feedSince(request.since) }, readable);
}

const NONE: ReadonlySet<string> = new Set();

/**
 * A class scope matches by id (`<Class>-…`); a document whose id its creator chose outside its
 * class's range is listed per class (storage.outsideIds): the lists are read after the page, when
 * it holds an id the match left out that may be one (lists are written before their documents).
 */
async function outsideOfScope(stack: ClientStack, match: ChangeMatcher, rows: readonly ChangeRow[]): Promise<ReadonlySet<string>> {
  const scope = match.scope;
  const candidates = scope ? rows.filter((row) => maybeOutside(stack, row.id) && !match(row)) : [];
  if (!scope || candidates.length === 0) return NONE;
  const outside = new Set((await Promise.all(scope.classes.map((name) => stack.storage.outsideIds(name)))).flat());
  // a purged one is unlisted: its tombstone names its class (engine/purge.ts)
  for (const row of candidates) {
    if (!row.deleted || outside.has(row.id)) continue;
    const rev = (row as { changes?: Array<{ rev: string }> }).changes?.[0]?.rev;
    const tombstone = rev ? await stack.storage.replication.get(row.id, { rev }).catch(() => null) : null;
    const className = (tombstone as Record<string, unknown> | null)?.['~class'];
    if (typeof className === 'string' && scope.classes.includes(className)) outside.add(row.id);
  }
  return outside;
}

/** Could this id be one its creator chose outside its class's range (not `<KnownClass>-…`, not the engine's)? */
function maybeOutside(stack: ClientStack, id: string): boolean {
  const dash = id.indexOf('-');
  return dash > 0 && !id.startsWith('_') && !id.startsWith('~') && !stack.classCache.peek(id.slice(0, dash));
}

async function filteredFeed(stack: ClientStack, request: ChangesRequest, readable: (id: string) => boolean): Promise<ChangesResult> {
  const { match, limit, include_docs: includeDocs, ...options } = request;
  const wanted = limit ?? Number.POSITIVE_INFINITY;
  // a class scope matches by id: bodies are read only when the client asked for them
  const readDocs = includeDocs === true || match!.needsDocs === true;
  const results: ChangeRow[] = [];
  let since = options.since;
  for (;;) {
    const page = options.descending ? undefined : FILTER_SCAN_PAGE;
    const raw = (await stack.storage.replication.changes({ ...options, since, ...(readDocs ? { include_docs: true } : {}), ...(page ? { limit: page } : {}) })) as unknown as { results: ChangeRow[]; last_seq: number | string };
    const outside = await outsideOfScope(stack, match!, raw.results);
    for (const row of raw.results) {
      if (!readable(row.id) || !(match!(row) || outside.has(row.id))) continue;
      if (!includeDocs) delete row.doc;
      results.push(row);
      if (results.length >= wanted) return { results, last_seq: row.seq };
    }
    if (!page || raw.results.length < page) return { results, last_seq: raw.last_seq };
    since = raw.last_seq;
  }
}

/**
 * One page of changes without server-private documents. A page whose changes were all hidden
 * is not answered empty (PouchDB reads an empty page as "caught up"): the next page is read.
 */
async function visibleChanges(stack: ClientStack, options: ChangesRequest, readable: (id: string) => boolean): Promise<ChangesResult> {
  if (options.match) return filteredChanges(stack, options, readable);
  let since = feedSince(options.since);
  for (let page = 0; ; page++) {
    const raw: ChangesResult = await stack.storage.replication.changes({ ...options, since });
    const results = raw.results.filter((r) => readable(r.id));
    if (results.length > 0 || raw.results.length === 0 || page >= MAX_HIDDEN_PAGES || options.descending) {
      return { ...raw, results };
    }
    since = raw.last_seq;
  }
}

/**
 * `_changes`: the normal feed, and `feed=longpoll` (what PouchDB's live replication uses):
 * when nothing is new, the answer waits for the next change (or the timeout), writing a
 * newline every `heartbeat` ms so proxies and the client keep the connection open.
 */
export async function handleChanges(stack: ClientStack, req: Request, res: Response, node?: EventEmitter): Promise<void> {
  const options = changesOptions(req);
  if (options instanceof Error) return sendError(res, 400, 'bad_request', options.message);
  const readable = await readableBy(stack, res);
  try {
    const first = await visibleChanges(stack, options, readable);
    const feed = req.query.feed;
    if ((feed !== 'longpoll' && feed !== 'continuous') || first.results.length > 0) {
      res.json(first);
      return;
    }
    await waitForChange(stack, req, res, { ...options, since: first.last_seq }, first.last_seq, readable, node);
  } catch (err) {
    sendPouchError(res, err);
  }
}

async function waitForChange(stack: ClientStack, req: Request, res: Response, options: ChangesRequest, lastSeq: number | string, readable: (id: string) => boolean, node?: EventEmitter): Promise<void> {
  const heartbeat = intParam(req.query.heartbeat);
  const timeout = Math.min(intParam(req.query.timeout) ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  res.status(200).type('application/json');
  res.flushHeaders();
  await new Promise<void>((resolve) => {
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const feed = stack.storage.replication.live(feedSince(options.since));
    const finish = async (answer: boolean) => {
      if (done) return;
      done = true;
      timers.forEach(clearTimeout);
      clearInterval(beat);
      feed.cancel();
      stack.off('closed', onClosed);
      node?.off('stopping', onClosed);
      try {
        const page = answer ? await visibleChanges(stack, options, readable) : { results: [], last_seq: lastSeq };
        res.end(JSON.stringify(page));
      } catch {
        res.end(JSON.stringify({ results: [], last_seq: lastSeq }));
      }
      resolve();
    };
    const onClosed = () => void finish(false);
    const beat = setInterval(() => res.write('\n'), heartbeat && heartbeat > 0 ? heartbeat : 2 ** 31 - 1);
    // a change of a hidden document wakes the feed; the page read then may be empty, which is a valid longpoll answer
    feed.on('change', () => void finish(true));
    feed.on('error', () => void finish(false));
    timers.push(setTimeout(() => void finish(false), heartbeat ? Math.max(timeout, heartbeat) : timeout));
    res.on('close', () => void finish(false)); // the client went away (req 'close' fires once the body is read)
    stack.once('closed', onClosed);
    // the node stopping: an empty page now (a valid longpoll answer; the client asks again
    // elsewhere or later) instead of holding the node's drain for the whole wait
    node?.once('stopping', onClosed);
  });
}
