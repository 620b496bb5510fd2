import { holdReason } from './ingest-held.js';
import { checkClassDocument } from '../model/class-check.js';
import { isEngineClassName, type ClassModel } from '../../contracts/model.js';
import type { StackPort } from '../../contracts/stack-port.js';
import type { IngestDoc } from '../../kernel/hooks.js';

interface ClassEntry {
  doc: IngestDoc;
  previous?: unknown;
}

/**
 * The class documents of one ingest, in the order their foreign keys ask: each round checks
 * what is left, stores what passes (`store`), and checks again what waited for a class just
 * stored — a topological order found by trying. Classes left waiting only for each other (a
 * cycle: Customer.primarySite → Site, Site.customer → Customer) are checked as one set, each
 * counting the others as existing, and stored together. What still fails goes to `fail`: held
 * when it waits for something missing, refused otherwise (the caller decides).
 */
export async function ingestClasses<E extends ClassEntry>(
  stack: StackPort,
  entries: E[],
  store: (entries: E[]) => Promise<void>,
  fail: (entry: E, err: unknown) => Promise<void>,
): Promise<void> {
  const failures = new Map<E, unknown>();
  const check = async (entry: E, arriving?: ReadonlySet<string>): Promise<boolean> => {
    try {
      // the engine's own classes (`~…`, the meta-classes) are written by system patches on each peer
      if (!isEngineClassName(entry.doc._id)) await checkClassDocument(stack, entry.doc, (entry.previous as ClassModel | undefined) ?? null, arriving);
      return true;
    } catch (err) {
      failures.set(entry, err);
      return false;
    }
  };

  let pending = entries;
  while (pending.length > 0) {
    const passed: E[] = [];
    const waiting: E[] = [];
    for (const entry of pending) {
      if (await check(entry)) passed.push(entry);
      else if (holdReason(entry.doc, failures.get(entry))) waiting.push(entry);
      else await fail(entry, failures.get(entry));
    }
    pending = waiting;
    if (passed.length === 0) break;
    await store(passed);
  }
  if (pending.length === 0) return;

  // a cycle: the set shrinks until every class of it passes with the others counted as arriving
  let cycle = pending;
  for (;;) {
    const arriving = new Set(cycle.map((e) => e.doc._id));
    const next: E[] = [];
    for (const entry of cycle) if (await check(entry, arriving)) next.push(entry);
    if (next.length === cycle.length) break;
    cycle = next;
  }
  if (cycle.length > 0) await store(cycle);
  for (const entry of pending) if (!cycle.includes(entry)) await fail(entry, failures.get(entry));
}
