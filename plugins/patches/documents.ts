import type { PatchStateStore, RunState } from './state.js';
import type { ClientStack, Doc, WriteRequest } from '../../index.js';
import { nowIso, updateDraft } from '../../kit/index.js';

/** Documents per batch: one page read, one pipeline call, two small `_local` writes. */
export const BATCH = 500;

/** The changes for one document (as `updateDoc` takes them: null removes), or undefined to leave it. */
export type DocumentStep = (doc: Doc) => Promise<Record<string, unknown> | undefined> | Record<string, unknown> | undefined;

export interface DocumentPass {
  stack: ClientStack;
  store: PatchStateStore;
  /** the run state of this change (resumed or fresh) */
  run: RunState;
  className: string;
  /** renames and removals reach inactive documents too; a migrate only active ones */
  includeInactive: boolean;
  step: DocumentStep;
  progress(done: number, total: number): void;
  /** throws when the stack is closing: the pass stops between two batches, resumable */
  checkOpen(): void;
}

/**
 * Runs `step` over every document of a class, a batch at a time, through the pipeline with
 * origin `patch`. Exactly once per document, even across a kill: before a batch is written, its
 * documents' revisions are journalled; after, the cursor moves past it. A resumed pass starts at
 * the cursor and skips the journalled documents whose revision moved (written before the kill).
 */
export async function runDocumentPass(pass: DocumentPass): Promise<void> {
  const { stack, store, run, className } = pass;
  // the class's range and the ids given outside it (a listed id may name a document purged since: progress only)
  const total = (await stack.storage.range({ prefix: `${className}-` })).length + (await stack.storage.outsideIds(className)).length;
  let written = new Map(run.batch.map((b) => [b.id, b.rev]));
  for (;;) {
    pass.checkOpen();
    // the next batch after the cursor, in id order (classPages: range and listed ids merged; a page after a cursor may count it)
    const pages = stack.storage.classPages(className, { size: BATCH + 1, ...(typeof run.cursor === 'string' ? { after: run.cursor } : {}) });
    const rows = (((await pages.next()).value ?? []) as Doc[]).slice(0, BATCH).map((doc) => ({ id: doc._id, doc }));
    await pages.return(undefined);
    if (rows.length === 0) return;
    const requests: WriteRequest[] = [];
    const model = await stack.requireClass(className);
    const now = nowIso(stack.clock);
    for (const { doc } of rows) {
      if (doc['~class'] !== className || (!pass.includeInactive && doc.active === false)) continue;
      const before = written.get(doc._id);
      if (before !== undefined && before !== doc._rev) continue; // written before an interruption
      const changes = await pass.step(doc);
      if (changes && Object.keys(changes).length > 0) {
        requests.push({ op: 'update', previous: doc, draft: updateDraft(doc, changes, now), classModel: model });
      }
    }
    if (requests.length > 0) {
      await store.update((s) => {
        s.running = { ...run, batch: requests.map((r) => ({ id: r.draft._id, rev: r.previous!._rev! })) };
      });
      await stack.writeRequests(requests, 'patch');
    }
    run.cursor = rows[rows.length - 1].id;
    run.batch = [];
    run.done += rows.length;
    written = new Map();
    await store.update((s) => {
      s.running = { ...run };
    });
    pass.progress(run.done, total);
  }
}
