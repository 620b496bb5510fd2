import { CLASS_META, DOMAIN_META } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { JOB_ERRORS } from '../jobs/index.js';

export type SweepMode = 'deactivate' | 'purge';

export interface SweepParams {
  className: string;
  olderThanDays: number;
  mode: SweepMode;
  batchSize: number;
}

export const DEFAULT_BATCH_SIZE = 500;
export const MAX_BATCH_SIZE = 10_000;
const MODES: readonly SweepMode[] = ['deactivate', 'purge'];
const KEYS = ['className', 'olderThanDays', 'mode', 'batchSize'];

function invalid(message: string, key: string): never {
  throw JOB_ERRORS.jobInvalid(message, { path: `params.${key}` });
}

/**
 * Checks sweep params. At define time only what is given is checked (a trigger may supply the
 * rest when it runs the job); at run time className and olderThanDays are required.
 */
export function checkSweepParams(params: Record<string, unknown>, phase: 'define' | 'run'): SweepParams {
  if (!isPlainObject(params)) invalid('The retention sweep takes params { className, olderThanDays, mode?, batchSize? }.', '');
  const unknown = Object.keys(params).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) invalid(`The retention sweep has no param "${unknown[0]}"; use ${KEYS.join(', ')}.`, unknown[0]);
  const { className, olderThanDays, mode = 'deactivate', batchSize = DEFAULT_BATCH_SIZE } = params;
  const required = phase === 'run';
  if (className !== undefined || required) {
    if (typeof className !== 'string' || className === '') invalid('"className" names the class to sweep.', 'className');
    if (className === CLASS_META || className === DOMAIN_META) invalid(`The meta-class "${className}" cannot be swept.`, 'className');
  }
  if (olderThanDays !== undefined || required) {
    if (typeof olderThanDays !== 'number' || !Number.isFinite(olderThanDays) || olderThanDays < 0) {
      invalid('"olderThanDays" is a number of days ≥ 0 (documents created before then are swept).', 'olderThanDays');
    }
  }
  if (!MODES.includes(mode as SweepMode)) invalid(`"mode" is "deactivate" (default) or "purge" (got ${JSON.stringify(mode)}).`, 'mode');
  if (!Number.isInteger(batchSize) || (batchSize as number) < 1 || (batchSize as number) > MAX_BATCH_SIZE) {
    invalid(`"batchSize" is a whole number from 1 to ${MAX_BATCH_SIZE}.`, 'batchSize');
  }
  return { className: className as string, olderThanDays: olderThanDays as number, mode: mode as SweepMode, batchSize: batchSize as number };
}
