/**
 * docstack/react: React hooks over a stack (docs/live-queries.md#react). React is an optional
 * peer dependency: only an app importing this entry needs it, and no bundle of the engine
 * holds it. The engine is imported by the package's name, so an app's bundler hands these hooks
 * the same engine as the app's own `docstack/browser` import.
 */
import { createContext, createElement, useContext, useEffect, useState, type ReactElement, type ReactNode } from 'react';
import { KERNEL_ERRORS, type ClientStack, type Doc, type LiveOptions, type LiveQuery, type Selector } from 'docstack';
import type { SyncStatus } from 'docstack/plugins/sync';

const StackContext = createContext<ClientStack | null>(null);

/** Hands `stack` to the hooks of every component below it. */
export function StackProvider({ stack, children }: { stack: ClientStack; children?: ReactNode }): ReactElement {
  return createElement(StackContext.Provider, { value: stack }, children);
}

/** The stack of the nearest StackProvider (typed as the app opened it: `useStack<BrowserStack>()`). */
export function useStack<S extends ClientStack = ClientStack>(): S {
  const stack = useContext(StackContext);
  if (!stack) throw KERNEL_ERRORS.stackOptionsInvalid('useStack (and the docstack hooks) need a <StackProvider stack={stack}> above the component.');
  return stack as S;
}

/** A live query's state in a component: `loading` until its first result, `error` when a read failed. */
export interface LiveQueryState {
  docs: Doc[];
  loading: boolean;
  error: unknown;
}

const NO_DOCS: Doc[] = [];
const LOADING: LiveQueryState = { docs: NO_DOCS, loading: true, error: undefined };

/**
 * The documents of a class matching a selector, kept current (stack.live): the query opens when
 * the component mounts, opens again when its arguments change — compared by value, so an
 * inline `{ status: 'open' }` does not reopen it each render — and closes on unmount.
 */
export function useLiveQuery(className: string, selector?: Selector, options?: LiveOptions): LiveQueryState {
  const stack = useStack();
  const key = JSON.stringify([className, selector ?? null, options ?? null]);
  const [state, setState] = useState<LiveQueryState & { key: string }>({ ...LOADING, key });
  useEffect(() => {
    let handle: LiveQuery;
    try {
      handle = stack.live(className, selector, options);
    } catch (error) {
      setState({ docs: NO_DOCS, loading: false, error, key });
      return undefined;
    }
    const stop = handle.subscribe(
      (docs) => setState({ docs, loading: false, error: undefined, key }),
      (error) => setState((s) => ({ docs: s.key === key ? s.docs : NO_DOCS, loading: false, error, key })),
    );
    return () => {
      stop();
      handle.close();
    };
    // the key stands for className, selector and options by value
  }, [stack, key]);
  return state.key === key ? state : LOADING;
}

/** A document's state in a component: `doc` null when it is missing, inactive or hidden. */
export interface DocumentState {
  doc: Doc | null;
  loading: boolean;
  error: unknown;
}

const NO_DOCUMENT: DocumentState = { doc: null, loading: false, error: undefined };

/**
 * One document by id, kept current: read as stack.getDocument reads it (decrypted, hidden while
 * a peer's transaction is pending), again after each change of it this stack stores (a write,
 * an ingest, a shown transaction). A null or empty id gives `{ doc: null }`.
 */
export function useDocument(id: string | null | undefined): DocumentState {
  const stack = useStack();
  const [state, setState] = useState<DocumentState & { id: typeof id }>({ doc: null, loading: Boolean(id), error: undefined, id });
  useEffect(() => {
    if (!id) return undefined;
    let asked = 0;
    let mounted = true;
    // reads may answer out of order: only the last one asked is shown
    const read = () => {
      const mine = ++asked;
      stack.getDocument(id).then(
        (doc) => mounted && mine === asked && setState({ doc, loading: false, error: undefined, id }),
        (error: unknown) => mounted && mine === asked && setState({ doc: null, loading: false, error, id }),
      );
    };
    const onChange = (e: { id: string }) => e.id === id && read();
    const onShown = (e: { members: string[] }) => e.members.includes(id) && read();
    stack.on('change', onChange);
    stack.on('tx:shown', onShown);
    read();
    return () => {
      mounted = false;
      stack.off('change', onChange);
      stack.off('tx:shown', onShown);
    };
  }, [stack, id]);
  if (!id) return NO_DOCUMENT;
  return state.id === id ? state : { doc: null, loading: true, error: undefined };
}

/** What useSyncState needs of a sync: `stack.sync(...)`'s handle (plugins/sync). */
export interface SyncStatusSource {
  status(): SyncStatus;
  on(event: 'status', listener: (status: SyncStatus) => void): unknown;
  off(event: 'status', listener: (status: SyncStatus) => void): unknown;
}

/**
 * A sync's status (docs/replication.md#the-status-what-a-ui-shows), re-rendered on each of its
 * `status` events; undefined without a handle.
 */
export function useSyncState(handle: SyncStatusSource | null | undefined): SyncStatus | undefined {
  const [state, setState] = useState<{ handle: typeof handle; status: SyncStatus | undefined }>(() => ({ handle, status: handle?.status() }));
  useEffect(() => {
    if (!handle) return undefined;
    const onStatus = (status: SyncStatus) => setState({ handle, status });
    handle.on('status', onStatus);
    setState({ handle, status: handle.status() }); // what changed between the render and now
    return () => {
      handle.off('status', onStatus);
    };
  }, [handle]);
  if (!handle) return undefined;
  return state.handle === handle ? state.status : handle.status();
}
