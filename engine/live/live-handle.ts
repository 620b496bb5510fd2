import type { DocOf } from '../../contracts/model.js';
import { KERNEL_ERRORS } from '../../contracts/errors.js';

/** What a live result calls: `next` with each new result, `error` when a run failed (the handle stays open). */
export interface LiveObserver<T> {
  next(value: T): void;
  error?(error: unknown): void;
}

/** What `stack.live` answers: a handle on a query's documents, typed by class (`live<T>` or the DocstackClasses map). */
export type LiveQueryOf<T extends object = Record<string, unknown>> = LiveHandle<DocOf<T>[]>;

/**
 * A result that follows the store (`stack.live`, `stack.liveSql`): `current` is the newest
 * result (undefined until the first is ready), `ready` the first one, `subscribe` is told of
 * each new one. `close` stops all its work; closing the stack closes it too.
 */
export class LiveHandle<T> {
  #current: T | undefined;
  #error: unknown;
  #closed = false;
  #observers = new Set<LiveObserver<T>>();
  #settle!: { resolve(value: T): void; reject(error: unknown): void };
  /** the first result; rejects when the first run fails or the handle closes before it */
  readonly ready: Promise<T>;

  constructor(private readonly onClose?: () => void) {
    this.ready = new Promise<T>((resolve, reject) => (this.#settle = { resolve, reject }));
    // nobody has to await `ready`: a failure also reaches `error` and the observers
    this.ready.catch(() => undefined);
  }

  /** The newest result, undefined until the first is ready. */
  get current(): T | undefined {
    return this.#current;
  }

  /** The last run's failure, undefined after a run that succeeded. */
  get error(): unknown {
    return this.#error;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Calls `next` with the current result at once when there is one, then with every new one.
   * Returns the function that stops this observer (the handle keeps running for the others:
   * `close` stops the handle).
   */
  subscribe(next: ((value: T) => void) | LiveObserver<T>, error?: (error: unknown) => void): () => void {
    const observer: LiveObserver<T> = typeof next === 'function' ? { next, ...(error ? { error } : {}) } : next;
    if (this.#closed) return () => undefined;
    this.#observers.add(observer);
    if (this.#current !== undefined) observer.next(this.#current);
    else if (this.#error !== undefined) observer.error?.(this.#error);
    return () => this.#observers.delete(observer);
  }

  /** Stops the handle: no more runs, no more calls to its observers. Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#observers.clear();
    this.#settle.reject(KERNEL_ERRORS.stackClosed('The live result was closed before its first result was ready.'));
    this.onClose?.();
  }

  /** Hands observers a new result (the caller has checked that it differs). */
  protected publish(value: T): void {
    if (this.#closed) return;
    this.#current = value;
    this.#error = undefined;
    this.#settle.resolve(value);
    for (const observer of [...this.#observers]) observer.next(value);
  }

  /** A run failed: `error` observers are told, `current` stays the last good result. */
  protected fail(error: unknown): void {
    if (this.#closed) return;
    this.#error = error;
    this.#settle.reject(error);
    for (const observer of [...this.#observers]) observer.error?.(error);
  }
}

/**
 * Runs `run` again whenever `request` is called, one run at a time: a request during a run asks
 * for one more run after it (the run may have read before the change), never more than one.
 */
export class Rerunner {
  #running = false;
  #again = false;

  constructor(private readonly run: () => Promise<void>) {}

  get running(): boolean {
    return this.#running;
  }

  request(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    do {
      this.#again = false;
      await this.run();
    } while (this.#again);
    this.#running = false;
  }
}
