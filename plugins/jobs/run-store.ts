import { RUN_CLASS, type JobRunDoc } from './types.js';
import type { ClientStack } from '../../index.js';
import { nowIso } from '../../kit/index.js';

const PAGE = 100;
export const DEFAULT_RUNS_LIMIT = 100;

export type NewRun = Omit<JobRunDoc, '_id' | '_rev' | '~class' | '~createTimestamp' | 'active'>;

/**
 * `~JobRun` documents, written through the pipeline with origin `system` (validated, `change`
 * events, afterWrite taps).
 *
 * Run ids are `~JobRun-<job>~<ISO time>~<random>`: still in the class's id range, and sorted by
 * job then by time, so "the latest runs of a job" is one descending allDocs range, not a scan
 * of every run. Job names hold no `~`, so one job's range never includes another's.
 */
export class RunStore {
  constructor(private readonly stack: ClientStack) {}

  async create(fields: NewRun): Promise<JobRunDoc> {
    const id = `${RUN_CLASS}-${fields.job}~${nowIso(this.stack.clock)}~${globalThis.crypto.randomUUID().slice(0, 8)}`;
    return (await this.stack.createDoc({ '~class': RUN_CLASS, ...fields }, { id, origin: 'system' })) as JobRunDoc;
  }

  /** Applies changes to a run record (the record as this store last returned it). */
  async save(run: JobRunDoc, changes: Partial<NewRun>): Promise<JobRunDoc> {
    // the stack accepts writes while its onClose taps run, so a run close waits for is recorded
    return (await this.stack.updateDoc(run._id, changes, { origin: 'system' })) as JobRunDoc;
  }

  /** Active run records of a job, newest first, page by page. */
  async *newestOf(job: string): AsyncGenerator<JobRunDoc> {
    const classModel = await this.stack.requireClass(RUN_CLASS);
    const prefix = `${RUN_CLASS}-${job}~`;
    let cursor: string | undefined;
    for (;;) {
      const page = await this.stack.storage.range({ prefix, start: cursor, skip: cursor === undefined ? 0 : 1, descending: true, includeDocs: true, limit: PAGE });
      for (const { doc } of page) {
        if (doc['~class'] !== RUN_CLASS || doc.active === false) continue;
        yield (await this.stack.hooks.afterRead.promise(doc, { stack: this.stack, classModel })) as JobRunDoc;
      }
      if (page.length < PAGE) return;
      cursor = page[page.length - 1].id;
    }
  }

  /** Newest first: one job's runs (a range read), or every job's (a class scan, then sorted). */
  async list(job: string | undefined, limit = DEFAULT_RUNS_LIMIT): Promise<JobRunDoc[]> {
    const out: JobRunDoc[] = [];
    if (limit === 0) return out;
    if (job !== undefined) {
      for await (const run of this.newestOf(job)) {
        out.push(run);
        if (out.length >= limit) break;
      }
      return out;
    }
    const all = (await this.stack.findDocuments(RUN_CLASS)) as JobRunDoc[];
    const newestFirst = (a: JobRunDoc, b: JobRunDoc) => b['~createTimestamp'].localeCompare(a['~createTimestamp']) || b._id.localeCompare(a._id);
    return all.sort(newestFirst).slice(0, limit);
  }

  /** The newest run the scheduler started for this job (any status), or null. */
  async latestScheduled(job: string): Promise<JobRunDoc | null> {
    for await (const run of this.newestOf(job)) if (run.trigger === 'schedule') return run;
    return null;
  }
}
