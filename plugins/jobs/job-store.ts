import { JOB_NAME } from './model.js';
import { JOB_CLASS, type JobDoc, type JobModel } from './types.js';
import { type ClientStack, DocstackError, isDocstackError } from '../../index.js';
import { JOB_ERRORS } from './errors.js';

/** Optional fields of a job: an update that leaves one out clears it. */
const OPTIONAL = ['schedule', 'timeout', 'description'] as const;

/**
 * `~Job` documents. A job is found by its name through the primary-key index (two gets, never
 * a scan); its `_id` is generated, so a removed (inactive) job does not block its name.
 */
export class JobStore {
  constructor(private readonly stack: ClientStack) {}

  async find(name: string): Promise<JobDoc | null> {
    if (typeof name !== 'string' || !JOB_NAME.test(name)) return null;
    const jobs = await this.stack.getClass(JOB_CLASS);
    return (await jobs.getByPrimaryKeys({ name })) as JobDoc | null;
  }

  async require(name: string): Promise<JobDoc> {
    const job = await this.find(name);
    if (!job) throw JOB_ERRORS.jobNotFound(`There is no job named ${JSON.stringify(name)}.`, { path: 'name', details: { job: name } });
    return job;
  }

  async list(): Promise<JobDoc[]> {
    return (await this.stack.findDocuments(JOB_CLASS)) as JobDoc[];
  }

  async create(model: JobModel): Promise<JobDoc> {
    try {
      return (await this.stack.createDoc({ '~class': JOB_CLASS, ...model })) as JobDoc;
    } catch (err) {
      // two definers of one name at the same moment: the key index lets exactly one win
      if (isDocstackError(err, 'DS_UNIQUE_VIOLATION')) throw exists(model.name);
      throw err;
    }
  }

  /** Stores the whole normalised model over the job (optional fields it lacks are cleared). */
  async replace(job: JobDoc, model: JobModel): Promise<JobDoc> {
    const changes: Record<string, unknown> = { ...model, _rev: job._rev };
    for (const key of OPTIONAL) if (model[key] === undefined) changes[key] = null;
    return (await this.stack.updateDoc(job._id, changes)) as JobDoc;
  }

  async remove(job: JobDoc): Promise<void> {
    await this.stack.deleteDocument(job._id);
  }
}

export function exists(name: string): DocstackError {
  return JOB_ERRORS.jobExists(`A job named "${name}" already exists; update it or remove it first.`, { path: 'name', details: { job: name } });
}
