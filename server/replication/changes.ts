import type { Request, Response } from 'express';
import type { ClientStack, ReplicationChangesOptions } from '../../index.js';
import { boolParam, intParam, jsonParam, sendError, sendPouchError } from './http.js';
import { readableBy } from './policy.js';
import { isIdKey, parseSince } from './shapes.js';

/** CouchDB's default longpoll timeout; PouchDB sends a heartbeat (10 s) instead of a timeout. */
const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_TIMEOUT_MS = 300_000;
/** Pages read to fill one answer when every change of a page was a hidden document. */
const MAX_HIDDEN_PAGES = 50;

type ChangesResult = { results: Array<{ id: string; seq: number | string }>; last_seq: number | string; pending?: number };

/** The options of a `_changes` request, or an Error saying what is malformed. */
function changesOptions(req: Request): ReplicationChangesOptions | Error {
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
  return options;
}

/**
 * One page of changes without server-private documents. A page whose changes were all hidden
 * is not answered empty (PouchDB reads an empty page as "caught up"): the next page is read.
 */
async function visibleChanges(stack: ClientStack, options: ReplicationChangesOptions, readable: (id: string) => boolean): Promise<ChangesResult> {
  let since = options.since;
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
export async function handleChanges(stack: ClientStack, req: Request, res: Response): Promise<void> {
  const options = changesOptions(req);
  if (options instanceof Error) return sendError(res, 400, 'bad_request', options.message);
  const readable = readableBy(res);
  try {
    const first = await visibleChanges(stack, options, readable);
    const feed = req.query.feed;
    if ((feed !== 'longpoll' && feed !== 'continuous') || first.results.length > 0) {
      res.json(first);
      return;
    }
    await waitForChange(stack, req, res, { ...options, since: first.last_seq }, first.last_seq, readable);
  } catch (err) {
    sendPouchError(res, err);
  }
}

async function waitForChange(stack: ClientStack, req: Request, res: Response, options: ReplicationChangesOptions, lastSeq: number | string, readable: (id: string) => boolean): Promise<void> {
  const heartbeat = intParam(req.query.heartbeat);
  const timeout = Math.min(intParam(req.query.timeout) ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  res.status(200).type('application/json');
  res.flushHeaders();
  await new Promise<void>((resolve) => {
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const feed = stack.storage.replication.live(options.since);
    const finish = async (answer: boolean) => {
      if (done) return;
      done = true;
      timers.forEach(clearTimeout);
      clearInterval(beat);
      feed.cancel();
      stack.off('closed', onClosed);
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
  });
}
