import type { Storage } from '../../index.js';

/** A block of numbers the node handed out: `first` to `last`, both included. */
export interface NumberBlock {
  first: number;
  last: number;
}

interface CounterState {
  last: number | null;
  rev: string | undefined;
  queue: { count: number; resolve(block: NumberBlock): void; reject(err: unknown): void }[];
  writing: boolean;
}

const PREFIX = '_local/~authority/sequence/';

/**
 * The node's sequence counters: one `_local` document per sequence holding the last number
 * handed out, written before any number is answered, so numbers stay unique and increasing
 * across restarts. Requests that arrive while a write is in flight are served together by the
 * next write (a group commit): 4 clients asking at once cost one write, not four.
 */
export class SequenceCounters {
  private readonly states = new Map<string, CounterState>();

  constructor(private readonly storage: Storage) {}

  next(name: string, count = 1): Promise<NumberBlock> {
    const state = this.stateOf(name);
    return new Promise<NumberBlock>((resolve, reject) => {
      state.queue.push({ count, resolve, reject });
      if (!state.writing) void this.flush(name, state);
    });
  }

  /** The last number handed out (0 before the first). */
  async current(name: string): Promise<number> {
    const state = this.stateOf(name);
    if (state.last === null) await this.load(name, state);
    return state.last ?? 0;
  }

  private stateOf(name: string): CounterState {
    let state = this.states.get(name);
    if (!state) this.states.set(name, (state = { last: null, rev: undefined, queue: [], writing: false }));
    return state;
  }

  private async load(name: string, state: CounterState): Promise<void> {
    const doc = await this.storage.get<{ _id: string; _rev: string; last: number }>(`${PREFIX}${name}`);
    state.last = doc?.last ?? 0;
    state.rev = doc?._rev;
  }

  private async flush(name: string, state: CounterState): Promise<void> {
    state.writing = true;
    for (;;) {
      // checked and cleared in one synchronous step: a request arriving later starts a new flush
      if (state.queue.length === 0) {
        state.writing = false;
        return;
      }
      const batch = state.queue.splice(0);
      try {
        if (state.last === null) await this.load(name, state);
        let cursor = state.last!;
        const blocks = batch.map(({ count }) => ({ first: cursor + 1, last: (cursor += count) }));
        state.rev = await this.storage.put({ _id: `${PREFIX}${name}`, ...(state.rev ? { _rev: state.rev } : {}), last: cursor });
        state.last = cursor;
        batch.forEach((request, i) => request.resolve(blocks[i]));
      } catch (err) {
        state.last = null; // read the stored counter again before the next block
        batch.forEach((request) => request.reject(err));
      }
    }
  }
}
