import type { DriveAdapter, DriveRetry } from './adapter.js';
import { DRIVE_ERRORS, driveErrorList } from './errors.js';
import { DriveReplicator, type DriveSyncOptions, type DriveSyncResult } from './replicate.js';
import { type ClientStack, definePlugin } from '../../index.js';

export type { DriveAdapter, DriveCursor, DriveFile, DriveFileRef, DriveRetry } from './adapter.js';
export type { DriveSyncOptions, DriveSyncResult } from './replicate.js';
export type { RetryPolicy } from './http-retry.js';
export { webdavAdapter, type WebdavOptions } from './webdav.js';
export { memoryDrive } from './memory-drive.js';
export { fileNameOf, mergeLeaves, parseDocFile, FORMAT as DRIVE_FORMAT, type Leaf, type DriveDocFile } from './layout.js';

/** The drive-sync plugin's API; `stack.driveSync` is its `driveSync`. */
export interface DriveSyncApi {
  /**
   * One round of replication with a drive (pull, then push); resolves with what moved. Rounds
   * on one stack run one after the other; call it on a schedule, on `online`, on app start.
   */
  driveSync(options: DriveSyncOptions): Promise<DriveSyncResult>;
}

type Observable = DriveAdapter & { observe?(listener: (retry: DriveRetry) => void): () => void };

function checkOptions(options: DriveSyncOptions): void {
  const adapter = options?.adapter as Partial<DriveAdapter> | undefined;
  const methods = ['changes', 'read', 'write', 'delete'] as const;
  if (!adapter || typeof adapter.id !== 'string' || adapter.id === '' || methods.some((m) => typeof adapter[m] !== 'function')) {
    throw DRIVE_ERRORS.options('stack.driveSync needs { adapter } with an id and changes, read, write and delete (webdavAdapter gives one).', { path: 'adapter' });
  }
  for (const key of ['batchSize', 'concurrency', 'conflictRetries'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value < (key === 'conflictRetries' ? 0 : 1))) {
      throw DRIVE_ERRORS.options(`driveSync's ${key} must be a whole number${key === 'conflictRetries' ? ' ≥ 0' : ' ≥ 1'}.`, { path: key });
    }
  }
}

/**
 * Replication through a user's own cloud drive, no server: the local store stays the source of
 * truth, the drive holds one file per document with its leaf revisions (docs/drive-sync.md).
 * Opt-in: not in any preset; `import { driveSyncPlugin } from 'docstack/drive-sync'`.
 */
export const driveSyncPlugin = definePlugin<undefined, DriveSyncApi, { driveSync: DriveSyncApi['driveSync'] }>({
  name: 'drive-sync',
  errors: driveErrorList,
  setup({ hooks, stack }): DriveSyncApi {
    let queue: Promise<unknown> = Promise.resolve();
    let closing = false;
    hooks.onClose.tapPromise('drive-sync', async () => {
      closing = true; // a running round stops at its next page; its checkpoints are consistent
      await queue.catch(() => undefined);
    });
    const round = async (options: DriveSyncOptions) => {
      const adapter = options.adapter as Observable;
      const unobserve = adapter.observe?.((retry) => stack.emit('drive:retry', retry));
      try {
        const result = await new DriveReplicator(stack as ClientStack, adapter, options, () => closing).run();
        stack.emit('drive:synced', { adapter: adapter.id, ...result });
        return result;
      } finally {
        unobserve?.();
      }
    };
    return {
      driveSync(options) {
        checkOptions(options);
        const run = queue.catch(() => undefined).then(() => round(options));
        queue = run;
        return run;
      },
    };
  },
  members: (api) => ({ driveSync: api.driveSync }),
});
