/**
 * The clients of a convergence run: memory stacks with the browser preset (which carries the
 * sync plugin), all of one user unlocking one passphrase, and one sync round of a client against
 * the node, with what it moved, what it was refused and how it failed.
 */
import { createStack, getApi } from '../../../index.js';
import { type DeniedPush } from '../../../plugins/sync/index.js';
import { browser, type BrowserStack } from '../../../plugins.config.js';
import { syncPlugin } from '../../../plugins/sync/index.js';

export const PASSPHRASE = 'one passphrase for every device of the user';

export interface Client {
  index: number;
  name: string;
  /** the memory store's name (a store of one name is shared in a process: a reopen finds it) */
  store: string;
  stack: BrowserStack;
}

let opened = 0;
export async function openClient(index: number, seed: number): Promise<Client> {
  opened += 1;
  const store = `convergence-${process.pid}-${seed}-${index}-${opened}`;
  const stack = (await createStack({ name: store, adapter: 'memory', plugins: browser })) as BrowserStack;
  return { index, name: `client ${index}`, store, stack };
}

/** Opens the client's store again (after it was closed), as an app restarting would. */
export async function reopenClient(client: Client): Promise<void> {
  client.stack = (await createStack({ name: client.store, adapter: 'memory', plugins: browser })) as BrowserStack;
}

/** One refusal a sync reported: by whom (the node refusing a push, this client refusing a pull) */
export interface Refusal {
  client: number;
  direction: 'push' | 'pull';
  id: string;
  code: string;
  /** a peer's own meta-class and engine documents, which every peer makes for itself (docs/replication.md) */
  expected: boolean;
}

const EXPECTED_CODES = new Set(['DS_AUTHZ_META_CLASS', 'DS_AUTHZ_INTERNAL']);

export interface SyncRound {
  client: number;
  ok: boolean;
  /** documents written on the other side (push) and on this client (pull) */
  pushed: number;
  pulled: number;
  refusals: Refusal[];
  /** the failure of a round that did not complete: its code, or its message */
  error?: string;
}

export interface SyncTarget {
  remote: string;
  token: string;
}

/** `onChange` is called at every batch either way (the kill moment is counted in batches). */
export async function syncOnce(client: Client, target: SyncTarget, batchSize: number, onChange: () => void): Promise<SyncRound> {
  const refusals: Refusal[] = [];
  const round: SyncRound = { client: client.index, ok: false, pushed: 0, pulled: 0, refusals };
  let handle: ReturnType<BrowserStack['sync']>;
  try {
    handle = client.stack.sync({ remote: target.remote, auth: { token: target.token }, batchSize });
  } catch (err) {
    return { ...round, error: failureOf(err) };
  }
  handle.on('change', onChange);
  handle.on('denied', (info: { direction?: string; doc?: Record<string, unknown> }) => {
    const doc = info?.doc ?? {};
    const code = String(doc.code ?? doc.name ?? doc.error ?? 'unknown');
    refusals.push({ client: client.index, direction: info?.direction === 'pull' ? 'pull' : 'push', id: String(doc.id ?? doc._id ?? '?'), code, expected: EXPECTED_CODES.has(code) });
  });
  try {
    const result = (await handle) as { push?: Counts; pull?: Counts };
    round.ok = true;
    round.pushed = result.push?.docs_written ?? 0;
    round.pulled = result.pull?.docs_written ?? 0;
  } catch (err) {
    round.error = failureOf(err);
  }
  return round;
}

interface Counts {
  docs_written?: number;
}

/** The pushes the node refused, as this client's sync plugin keeps them (`denied()`). */
export async function deniedList(client: Client): Promise<DeniedPush[]> {
  const api = getApi(client.stack, syncPlugin);
  if (!api) throw new Error(`${client.name} has no sync plugin`);
  return api.denied();
}

export function failureOf(err: unknown): string {
  const e = err as { code?: unknown; status?: unknown; name?: unknown; message?: unknown };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.status === 'number') return `status ${e.status}${e.name ? ` ${String(e.name)}` : ''}`;
  return String(e?.message ?? err).slice(0, 120);
}
