import type { EventEmitter } from 'events';

/**
 * Runs `start` while the emitter has at least one listener for any of `events`, and the
 * function it returns when the last such listener leaves. Live objects (classes, domains)
 * use it to hold a change-feed subscription only while somebody is listening, so an idle
 * live object costs nothing.
 */
export function whileObserved(emitter: EventEmitter, events: readonly string[], start: () => () => void): () => void {
  let stop: (() => void) | null = null;
  const count = () => events.reduce((n, e) => n + emitter.listenerCount(e), 0);
  const onNew = (event: string | symbol) => {
    if (typeof event === 'string' && events.includes(event) && !stop) stop = start();
  };
  const onRemove = (event: string | symbol) => {
    if (typeof event === 'string' && events.includes(event) && count() === 0 && stop) {
      stop();
      stop = null;
    }
  };
  emitter.on('newListener', onNew);
  emitter.on('removeListener', onRemove);
  if (count() > 0) stop = start();
  return () => {
    emitter.off('newListener', onNew);
    emitter.off('removeListener', onRemove);
    stop?.();
    stop = null;
  };
}
