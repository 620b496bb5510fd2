import type { WriteOp } from '../../index.js';
// The trigger model type on its own, so jobs.ts, registry.ts and run.ts need not import model.ts (which imports them).

/**
 * A trigger as stored in its class document's `triggers` (normalised: every field present but
 * the one of handler / job that is not used). It names code, it never carries any.
 */
export type TriggerModel = {
  name: string;
  description: string;
  when: 'before' | 'after';
  on: WriteOp[];
  handler?: string;
  job?: string;
  params: Record<string, unknown>;
  order: number;
  enabled: boolean;
};
