import { RUN_CLASS, type JobContext } from '../jobs/index.js';
import { checkSweepParams, type SweepParams } from './params.js';
import { type ClassModel, type ClientStack, type Doc, isDocstackError, type WriteRequest } from '../../index.js';
import { deleteDraft, nowIso } from '../../kit/index.js';

const DAY_MS = 86_400_000;

export interface SweepResult {
  swept: number;
  batches: number;
}

/**
 * The `retention.sweep` job: documents of a class created more than `olderThanDays` ago are
 * deactivated through the pipeline (hooks run, `change` events), or in `purge` mode removed
 * from storage for good (primary keys released). Works batch by batch along the class's id
 * range, so memory stays bounded and an abort (timeout, close) stops it between two batches.
 */
export async function sweep(context: JobContext): Promise<SweepResult> {
  const { stack, signal, depth } = context;
  const params = checkSweepParams(context.params, 'run');
  const model = await stack.requireClass(params.className);
  const cutoff = stack.clock.now() - params.olderThanDays * DAY_MS;
  // the last id read; null once the class is read to its end
  let cursor: string | undefined | null;
  const result: SweepResult = { swept: 0, batches: 0 };
  while (cursor !== null) {
    signal.throwIfAborted();
    const batch: { docs: Doc[]; next: string | null } = await nextBatch(stack, params, cursor, cutoff);
    cursor = batch.next;
    if (batch.docs.length === 0) continue;
    result.swept += params.mode === 'purge' ? await stack.purgeDocuments(batch.docs.map((d) => d._id)) : await deactivate(stack, model, batch.docs, depth);
    result.batches += 1;
  }
  return result;
}

/**
 * Up to batchSize old documents after `after` (the last id read; from the start when undefined),
 * and where to continue (null at the end). The class's documents are its id range and the ids
 * given outside it, in id order (storage.classPages); a cursor id purged since is fine.
 */
async function nextBatch(stack: ClientStack, params: SweepParams, after: string | undefined, cutoff: number): Promise<{ docs: Doc[]; next: string | null }> {
  const docs: Doc[] = [];
  for await (const page of stack.storage.classPages(params.className, { size: params.batchSize, ...(after === undefined ? {} : { after }) })) {
    for (const doc of page) {
      if (isSweepable(doc, params, cutoff)) docs.push(doc);
      if (docs.length === params.batchSize) return { docs, next: doc._id };
    }
  }
  return { docs, next: null };
}

function isSweepable(doc: Doc, params: SweepParams, cutoff: number): boolean {
  if (doc['~class'] !== params.className) return false;
  // purge also clears documents deactivated earlier; deactivating them again would change nothing
  if (params.mode === 'deactivate' && doc.active === false) return false;
  // a run still under way (this sweep's own, for one) is in use: its record is swept once it ends
  if (doc['~class'] === RUN_CLASS && (doc.status === 'PENDING' || doc.status === 'RUNNING')) return false;
  const created = Date.parse(doc['~createTimestamp']);
  return !Number.isNaN(created) && created < cutoff;
}

/**
 * One pipeline call per batch (one bulkDocs), as `deleteDocument` would do per document. If
 * another writer changed one of them meanwhile the call stores nothing; then go one by one,
 * leaving out what is already gone.
 */
async function deactivate(stack: ClientStack, model: ClassModel, docs: Doc[], depth: number): Promise<number> {
  const now = nowIso(stack.clock);
  const requests: WriteRequest[] = docs.map((previous) => ({ op: 'delete', draft: deleteDraft(previous, now), previous, classModel: model }));
  try {
    return (await stack.writeRequests(requests, 'system', { depth })).length;
  } catch (err) {
    if (!isDocstackError(err, 'DS_DOC_CONFLICT')) throw err;
  }
  let count = 0;
  for (const doc of docs) {
    try {
      await stack.deleteDocument(doc._id, { origin: 'system', depth });
      count += 1;
    } catch (err) {
      if (!isDocstackError(err, 'DS_DOC_NOT_FOUND') && !isDocstackError(err, 'DS_DOC_CONFLICT')) throw err;
    }
  }
  return count;
}
