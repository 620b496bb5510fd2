import { Class, type ClientStack } from '../../index.js';

export const QUOTA_CLASS = '~Quota';

/** A quota document: per user or per tenant (the node's stack name for now), optionally per class. */
export interface QuotaDoc {
  _id: string;
  key: string;
  scope: 'user' | 'tenant';
  /** the `~User` id, or the tenant's name */
  subject: string;
  className?: string;
  maxDocs?: number;
  maxBytes?: number;
}

export interface Usage {
  docs: number;
  bytes: number;
}

const QUOTA_SCHEMA: Record<string, Record<string, unknown>> = {
  key: { type: 'string', primaryKey: true, maxLength: 400, description: 'scope:subject:class (or *)' },
  scope: { type: 'enum', values: ['user', 'tenant'], mandatory: true },
  subject: { type: 'string', mandatory: true, maxLength: 200 },
  className: { type: 'string', maxLength: 100 },
  maxDocs: { type: 'integer', min: 0 },
  maxBytes: { type: 'integer', min: 0 },
};

export const usageKey = (scope: 'user' | 'tenant', subject: string, className?: string) => `${scope}:${subject}:${className ?? '*'}`;

export function ensureQuotaClass(stack: ClientStack): Promise<unknown> {
  return Class.ensure(stack, QUOTA_CLASS, 'Quotas of the server node (server/authority)', QUOTA_SCHEMA);
}

const USAGE_ID = '_local/~quota/usage';
/** How long counted changes may wait to be saved together (a push saves before it is answered). */
const SAVE_DELAY_MS = 50;

/**
 * The usage counters, one `_local` document: read once when the node opens, written after
 * changes (changes made while a write is in flight are saved together by the next one).
 */
export class UsageStore {
  counters = new Map<string, Usage>();
  private rev: string | undefined;
  private saving: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private version = 0;
  private savedVersion = 0;

  constructor(private readonly stack: ClientStack) {}

  async load(): Promise<void> {
    const doc = await this.stack.storage.get<{ _rev: string; counters: Record<string, Usage> }>(USAGE_ID);
    this.counters = new Map(Object.entries(doc?.counters ?? {}));
    this.rev = doc?._rev;
  }

  get(key: string): Usage {
    return this.counters.get(key) ?? { docs: 0, bytes: 0 };
  }

  add(key: string, docs: number, bytes: number): void {
    const usage = this.get(key);
    this.counters.set(key, { docs: usage.docs + docs, bytes: usage.bytes + bytes });
    this.version += 1;
  }

  /** Replaces every counter (a recount). */
  replace(counters: Map<string, Usage>): void {
    this.counters = counters;
    this.version += 1;
  }

  /** Saves the counters shortly (changes within SAVE_DELAY_MS share one write); `save()` saves now. */
  saveSoon(onError: (err: Error) => void): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.save().catch(onError);
    }, SAVE_DELAY_MS);
  }

  /** Persists the counters; resolves once a write that includes every change so far is stored (at once when there is none). */
  async save(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const wanted = this.version;
    while (this.savedVersion < wanted) {
      if (this.saving) {
        await this.saving.catch(() => undefined);
        continue;
      }
      const version = this.version;
      const counters = Object.fromEntries(this.counters);
      this.saving = (async () => {
        this.rev = await this.stack.storage.put({ _id: USAGE_ID, ...(this.rev ? { _rev: this.rev } : {}), counters });
        this.savedVersion = version;
      })().finally(() => (this.saving = null));
      await this.saving;
    }
  }
}
