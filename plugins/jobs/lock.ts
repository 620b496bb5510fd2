import type { Clock, Storage } from '../../index.js';

const PREFIX = '_local/~job-lock/';
/**
 * How long a lock holds without renewal. The holder renews it every third of this while the
 * run lasts, so only a crashed (or frozen) holder lets it lapse — and then a crash locks a
 * singleton job for at most this long, never forever.
 */
export const DEFAULT_LEASE_MS = 60_000;

interface LockDoc {
  _id: string;
  _rev?: string;
  /** the run holding the lock */
  owner: string;
  /** ms since the epoch (the stack's clock) after which the lock is free for the taking */
  expiresAt: number;
}

function isConflict(err: unknown): boolean {
  return (err as { status?: number }).status === 409;
}

/** A held lock: renewed in the background until released. */
export interface Lease {
  release(): Promise<void>;
}

/**
 * Singleton locks shared by every instance of one store: a `_local/~job-lock/<job>` document.
 * PouchDB refuses a second put without `_rev` with a conflict, so exactly one claimant wins;
 * `_local` documents do not replicate, so the lock is per store (per peer), like the key index.
 */
export class JobLocks {
  constructor(
    private readonly storage: Storage,
    /** the stack's clock: expiry times are written and compared on it */
    private readonly clock: Clock,
    private readonly leaseMs = DEFAULT_LEASE_MS,
  ) {}

  /** Claims the lock of a job for a run; null when another live run holds it. */
  async acquire(job: string, owner: string): Promise<Lease | null> {
    const id = `${PREFIX}${job}`;
    const fresh: LockDoc = { _id: id, owner, expiresAt: this.clock.now() + this.leaseMs };
    try {
      fresh._rev = await this.storage.put(fresh);
      return this.lease(fresh);
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
    const held = await this.read(id);
    if (held && held.expiresAt > this.clock.now()) return null;
    try {
      // expired (its holder crashed) or released meanwhile: take it over, unless someone beats us
      fresh._rev = await this.storage.put({ ...fresh, ...(held ? { _rev: held._rev } : {}) });
      return this.lease(fresh);
    } catch (err) {
      if (isConflict(err)) return null;
      throw err;
    }
  }

  private lease(lock: LockDoc): Lease {
    let current = lock;
    let lost = false;
    let renewing: Promise<void> = Promise.resolve();
    const renew = async () => {
      try {
        const next = { ...current, expiresAt: this.clock.now() + this.leaseMs };
        current = { ...next, _rev: await this.storage.put(next) };
      } catch {
        // taken over after we looked dead (a long stall), or storage closing: stop renewing
        lost = true;
        clearInterval(timer);
      }
    };
    const timer = setInterval(() => {
      renewing = renew();
    }, Math.max(1, Math.floor(this.leaseMs / 3)));
    timer.unref?.();
    return {
      release: async () => {
        clearInterval(timer);
        await renewing; // a renewal in flight would otherwise outlive the removal
        if (lost) return;
        try {
          const held = await this.read(current._id);
          if (held?.owner === current.owner) await this.storage.remove(held._id, held._rev!);
        } catch {
          // storage closed under us: the lease simply expires
        }
      },
    };
  }

  private read(id: string): Promise<LockDoc | null> {
    return this.storage.get<LockDoc>(id);
  }
}
