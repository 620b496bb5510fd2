import { registerJobHandler } from '../jobs/index.js';
import { checkSweepParams } from './params.js';
import { sweep } from './sweep.js';
import { definePlugin } from '../../index.js';

export { checkSweepParams, DEFAULT_BATCH_SIZE, type SweepMode, type SweepParams } from './params.js';
export type { SweepResult } from './sweep.js';

/** The handler name a retention job uses: `{ handler: 'retention.sweep', params: { className, olderThanDays } }`. */
export const RETENTION_SWEEP = 'retention.sweep';

/**
 * The retention sweep, and the example of a third-party job plugin: it requires `jobs` and
 * registers one handler in its setup. Define a job to use it, e.g. every night at 3:
 *
 * ```ts
 * await stack.jobs.define({ name: 'prune-logs', handler: 'retention.sweep', schedule: '0 3 * * *',
 *   singleton: true, params: { className: 'Log', olderThanDays: 30, mode: 'purge' } });
 * ```
 */
export const retentionPlugin = definePlugin({
  name: 'retention',
  requires: ['jobs'],
  setup(kernel) {
    registerJobHandler(kernel, RETENTION_SWEEP, sweep, {
      description: 'Deactivates (or purges) documents of a class older than N days, in batches.',
      checkParams: (params, phase) => void checkSweepParams(params, phase),
    });
  },
});
