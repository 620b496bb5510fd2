import type { Storage } from '../../index.js';

const STATE_ID = '_local/~patches';

/** A patch this replica applied. */
export interface AppliedPatch {
  target: string;
  version: string;
  id: string;
  /** when this replica finished applying it */
  at: string;
  /** this replica's id (random, kept in its own `_local` state) */
  by: string;
}

export interface FailedTarget {
  version: string;
  /** facts of the error (the change, its kind, the cause's code) */
  details?: Record<string, unknown>;
  id: string;
  code: string;
  message: string;
  at: string;
}

/**
 * Where an interrupted patch stands: the change it is at and, for changes over documents, the
 * last document id done (`cursor`) and the batch being written (`batch`, each document's
 * revision before the write: on resume a document whose revision moved was written already).
 */
export interface RunState {
  id: string;
  change: number;
  cursor: string | null;
  batch: Array<{ id: string; rev: string }>;
  done: number;
}

export interface PatchState {
  _id: string;
  _rev?: string;
  replica: string;
  applied: AppliedPatch[];
  failed: Record<string, FailedTarget>;
  running: RunState | null;
}

/**
 * The per-replica record of patches: a `_local` document, so it never replicates (each replica
 * applies each patch itself, once). One writer per stack: the runner's queue.
 */
export class PatchStateStore {
  private cached: PatchState | null = null;
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly storage: Storage) {}

  async read(): Promise<PatchState> {
    this.cached ??= (await this.storage.get<PatchState>(STATE_ID)) ?? {
      _id: STATE_ID,
      replica: randomId(),
      applied: [],
      failed: {},
      running: null,
    };
    return this.cached;
  }

  /** Changes and stores the state; one write at a time (a copy is changed, the cache only on success). */
  update(change: (state: PatchState) => void): Promise<PatchState> {
    const next = this.writing.then(async () => {
      const state = structuredClone(await this.read());
      change(state);
      state._rev = await this.storage.put(state);
      this.cached = state;
      return state;
    });
    this.writing = next.catch(() => undefined);
    return next;
  }

  /** Forgets the cached copy (another instance of the store may have written). */
  reset(): void {
    this.cached = null;
  }
}

function randomId(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
