/**
 * The React test page (bundled by harness.ts with `docstack/browser` importing the real bundle
 * /docstack.js, and docstack/react from the source): a real React 19 root rendering a live list
 * of a class, one document and a sync's state through the hooks, over a stack on IndexedDB that
 * syncs with a server node. The Node side (react.test.ts) drives it with `docstackTest.run`.
 */
import { createElement as h, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { Class, createStack, type BrowserStack, type NewDoc, type SyncHandle } from 'docstack/browser';
import { browser } from 'docstack/presets';
import { StackProvider, useDocument, useLiveQuery, useStack, useSyncState } from '../../react.js';

let stack: BrowserStack | undefined;
let root: Root | undefined;
let sync: SyncHandle | undefined;
/** the App's setters, for steps that change what it shows */
const controls: { setFocus?: (id: string | null) => void; setSync?: (handle: SyncHandle | null) => void } = {};
const renders = { jobs: 0 };

function Jobs() {
  const { docs, loading } = useLiveQuery('Job', { status: 'open' }, { sort: ['site'], fields: ['site'] });
  renders.jobs += 1;
  return h('ul', { id: 'jobs', 'data-loading': String(loading) }, ...docs.map((job) => h('li', { key: job._id }, String(job.site))));
}

function Focus({ id }: { id: string | null }) {
  const { doc, loading } = useDocument(id);
  return h('p', { id: 'focus' }, loading ? 'loading' : doc ? `${String(doc.site)}: ${String(doc.status)}` : 'none');
}

function SyncLine({ handle }: { handle: SyncHandle | null }) {
  const status = useSyncState(handle);
  return h('p', { id: 'sync' }, status ? `${status.state} pulled=${status.pulled}` : 'no sync');
}

function StackName() {
  return h('p', { id: 'stack' }, useStack().name);
}

function App() {
  const [focus, setFocus] = useState<string | null>(null);
  const [handle, setSync] = useState<SyncHandle | null>(null);
  controls.setFocus = setFocus;
  controls.setSync = setSync;
  return h('main', null, h(StackName, null), h(Jobs, null), h(Focus, { id: focus }), h(SyncLine, { handle }));
}

const steps: Record<string, (args: any) => Promise<unknown>> = {
  async mount({ name }: { name: string }) {
    stack = (await createStack({ name, adapter: 'indexeddb', plugins: browser })) as unknown as BrowserStack;
    const container = document.body.appendChild(document.createElement('div'));
    root = createRoot(container);
    root.render(h(StackProvider, { stack }, h(App, null)));
  },
  async write({ docs }: { docs: NewDoc[] }) {
    return (await stack!.createDocs(docs)).map((d) => d._id);
  },
  async update({ id, changes }: { id: string; changes: Record<string, unknown> }) {
    await stack!.updateDoc(id, changes);
  },
  async remove({ id }: { id: string }) {
    await stack!.deleteDocument(id);
  },
  async focus({ id }: { id: string | null }) {
    controls.setFocus!(id);
  },
  async syncLive({ remote, auth }: { remote: string; auth: { username: string; password: string } }) {
    sync = stack!.sync({ remote, auth, live: true, retry: true, maxRetryDelay: 500 });
    controls.setSync!(sync);
  },
  async stopSync() {
    sync?.cancel();
  },
  async renders() {
    return renders.jobs;
  },
  async unmount() {
    const before = stack!.listenerCount('change');
    root!.unmount();
    const after = stack!.listenerCount('change');
    await stack!.close();
    return { before, after };
  },
  async classExists() {
    return Class !== undefined;
  },
};

(globalThis as unknown as { docstackTest: unknown }).docstackTest = {
  run: (step: string, args: unknown) => {
    const fn = steps[step];
    if (!fn) throw new Error(`no step ${step}`);
    return fn(args);
  },
};
