import { LiveHandle, type StackPort } from '../../index.js';
import { SQL_ERRORS } from './errors.js';
import { tableNames } from './names.js';
import { readStatement } from './parse.js';
import type { Row } from './rows.js';

/** The stack events that may change a statement's rows: by class, by relation domain, a shown transaction. */
type Watch = [event: string, listener: (payload: any) => void];

/**
 * A SELECT that follows the store (`stack.liveSql`): run now, then again one tick after a change
 * to a class (or relation domain) the statement reads — many changes of one tick make one run,
 * a change during a run one more run — and published only when its rows differ.
 */
export class LiveSql extends LiveHandle<Row[]> {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #again = false;
  #last = '';
  readonly #watches: Watch[];

  constructor(
    private readonly stack: StackPort,
    statement: string,
    private readonly run: () => Promise<Row[]>,
  ) {
    super();
    const tokens = readStatement(statement);
    const first = tokens.find((t) => t.kind === 'word')?.text.toUpperCase();
    if (first !== 'SELECT') throw SQL_ERRORS.syntax('liveSql takes a SELECT statement (a write has no result to follow).');
    // names compared without case: following one class too many costs a run, one too few a stale result
    const tables = new Set(tableNames(tokens).map((n) => n.toLowerCase()));
    const reads = (name: unknown) => typeof name === 'string' && tables.has(name.toLowerCase());
    this.#watches = [
      ['change', (e: { className: string }) => reads(e.className) && this.schedule()],
      ['relation', (e: { domain: string }) => reads(e.domain) && this.schedule()],
      ['tx:shown', () => this.schedule()],
      ['closed', () => this.close()],
    ];
    for (const [event, listener] of this.#watches) stack.on(event, listener);
    void this.runNow();
  }

  private schedule(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.runNow();
    }, 0);
  }

  private async runNow(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    do {
      this.#again = false;
      if (this.closed) break;
      try {
        const rows = await this.run();
        const text = JSON.stringify(rows);
        if (text !== this.#last || this.current === undefined) {
          this.#last = text;
          this.publish(rows);
        }
      } catch (error) {
        this.fail(error);
      }
    } while (this.#again);
    this.#running = false;
  }

  override close(): void {
    clearTimeout(this.#timer);
    for (const [event, listener] of this.#watches ?? []) this.stack.off(event, listener);
    super.close();
  }
}
