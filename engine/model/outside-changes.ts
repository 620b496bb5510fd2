import type { StackPort } from '../../contracts/stack-port.js';
import type { ChangeEvent } from '../../storage/change-feed.js';

/**
 * A live class object's `change` events for its documents whose id a caller chose outside
 * `<Class>-…` (listed in `_local/~ids/<Class>`): the feed names ids only, so the list is kept in
 * memory and read again (one read per burst of changes) when an id that may be one arrives — not
 * for an id of a class the cache knows (`<Other>-…`), a class document or an engine id.
 */
export function outsideChanges(stack: StackPort, className: string, emit: (change: ChangeEvent) => void): (change: ChangeEvent) => void {
  let known: ReadonlySet<string> | null = null;
  let waiting: ChangeEvent[] = [];
  let reading: Promise<void> | null = null;
  const reread = (): void => {
    reading ??= stack.storage
      .outsideIds(className)
      .then((ids) => {
        known = new Set(ids);
        const due = waiting;
        waiting = [];
        for (const change of due) if (known.has(change.id)) emit(change);
      })
      .catch(() => undefined)
      .finally(() => {
        reading = null;
        if (waiting.length > 0) reread();
      });
  };
  reread();
  return (change) => {
    const { id } = change;
    const dash = id.indexOf('-');
    if (dash <= 0 || id.startsWith('_') || id.startsWith('~') || stack.classCache.peek(id.slice(0, dash))) return;
    if (known?.has(id)) return emit(change);
    waiting.push(change);
    if (!reading) reread();
  };
}
