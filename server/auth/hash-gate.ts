import { SERVER_ERRORS } from '../errors-codes.js';
import { AUTH_ERRORS } from './errors-codes.js';

export interface HashGateOptions {
  /** password hashes computed at once (AUTH_HASH_CONCURRENCY, default 1) */
  concurrency: number;
  /** hashes waiting for a slot at most (AUTH_HASH_QUEUE, default 16); past it: DS_AUTH_BUSY */
  maxQueue: number;
  /** places (running or waiting) one owner — a client address — holds at most (default 4) */
  maxPerOwner?: number;
}

/** One holder of places in the gate and how many it may hold (a client address, a username). */
export interface GateOwner {
  key: string;
  max: number;
  /** for the refusal: "from this address", "for this username" */
  what: string;
}

interface Waiting {
  priority: number;
  seq: number;
  start: () => void;
  refuse: (err: Error) => void;
}

/**
 * The one door to password hashing (scrypt). A hash costs ~0.3 s of a core and 32 MiB, and runs
 * on libuv's pool — the same 4 threads leveldb and the file system use — so an unbounded number
 * of logins would take the node's storage and memory away from everyone. The gate runs at most
 * `concurrency` hashes at once, keeps at most `maxQueue` waiting and refuses the rest at once
 * (DS_AUTH_BUSY, 503): an overload is answered fast, never queued without bound.
 *
 * Fairness: a waiting hash has a priority (lower first; the service passes the recent failures
 * of its address and username, in-flight attempts included), so a first login from a clean
 * address overtakes a flood of bad ones; equal priorities go first come, first served. When the
 * queue is full, a newcomer with a lower priority than the worst waiting one takes its place
 * (that one is refused), so a flood cannot lock newcomers out by filling the queue first. And one
 * owner (a client address; a username) holds at most its share of places: more is 429 DS_AUTH_RATE_LIMITED
 * at once, before the task reads anything, so a spinning client costs no storage read either.
 */
export class HashGate {
  private running = 0;
  private seq = 0;
  private readonly waiting: Waiting[] = [];
  private readonly owners = new Map<string, number>();

  constructor(private readonly options: HashGateOptions) {}

  /** Hashes running and waiting now (the bench and tests read it). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs `task` when a slot is free; throws DS_AUTH_BUSY when it cannot even wait, and
   * DS_AUTH_RATE_LIMITED when an owner holds its share of places already (`owner`: a client
   * address, held to `maxPerOwner`; or a list of owners, each with its own share).
   */
  async run<T>(priority: number, task: () => Promise<T>, owner?: string | readonly GateOwner[]): Promise<T> {
    const owners: readonly GateOwner[] = owner === undefined ? [] : typeof owner === 'string' ? [{ key: owner, max: this.options.maxPerOwner ?? 4, what: 'from this address' }] : owner;
    for (const o of owners) {
      if ((this.owners.get(o.key) ?? 0) >= o.max) throw SERVER_ERRORS.authRateLimited(`Too many logins in flight ${o.what}; retry in a moment.`);
    }
    for (const o of owners) this.owners.set(o.key, (this.owners.get(o.key) ?? 0) + 1);
    try {
      if (this.running >= this.options.concurrency) await this.enqueue(priority);
      else this.running++;
      try {
        return await task();
      } finally {
        this.release();
      }
    } finally {
      for (const o of owners) {
        const left = (this.owners.get(o.key) ?? 1) - 1;
        if (left <= 0) this.owners.delete(o.key);
        else this.owners.set(o.key, left);
      }
    }
  }

  private enqueue(priority: number): Promise<void> {
    if (this.waiting.length >= this.options.maxQueue) {
      const worst = this.worstIndex();
      if (worst < 0 || this.waiting[worst].priority <= priority) return Promise.reject(busy());
      this.waiting.splice(worst, 1)[0].refuse(busy());
    }
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ priority, seq: this.seq++, start: resolve, refuse: reject });
    });
  }

  /** The slot passes straight to the best waiting hash (running stays counted). */
  private release(): void {
    const next = this.bestIndex();
    if (next < 0) {
      this.running--;
      return;
    }
    this.waiting.splice(next, 1)[0].start();
  }

  private bestIndex(): number {
    let best = -1;
    for (let i = 0; i < this.waiting.length; i++) {
      const w = this.waiting[i];
      if (best < 0 || w.priority < this.waiting[best].priority || (w.priority === this.waiting[best].priority && w.seq < this.waiting[best].seq)) best = i;
    }
    return best;
  }

  private worstIndex(): number {
    let worst = -1;
    for (let i = 0; i < this.waiting.length; i++) {
      const w = this.waiting[i];
      if (worst < 0 || w.priority > this.waiting[worst].priority || (w.priority === this.waiting[worst].priority && w.seq > this.waiting[worst].seq)) worst = i;
    }
    return worst;
  }
}

function busy(): Error {
  return AUTH_ERRORS.authBusy('The node is busy checking passwords; retry in a moment.');
}
