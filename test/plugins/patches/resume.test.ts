import { describe, expect, it } from 'vitest';
import { Class, createStack, definePlugin, type Doc, type PluginEntry } from '../../../index.js';
import { registerPatchHandler, type PatchFailedEvent } from '../../../plugins/patches/index.js';
import { browser, type BrowserStack } from '../../../plugins.config.js';
import { tempDir, track, uniqueName } from '../../helpers/stack.js';

/** four of the patch's 500-document batches: killed inside the third, with stored batches before and after */
const COUNT = 2_000;

/** The app's migrate code, registered in a plugin's setup: present before the open-time pass. */
const handlers = definePlugin({
  name: 'items-handlers',
  requires: ['patches'],
  setup: (kernel) => registerPatchHandler(kernel, 'items.bump', (doc) => ({ n: Number(doc.n) + 1 })), // not idempotent on purpose
});

/**
 * A simulated kill: after `at` documents written by the patch, the pipeline throws — in
 * `validate` (the batch is not stored) or in `afterWrite` (the batch is stored, the cursor not
 * moved: the journal must tell which documents were written).
 */
function killer(phase: 'validate' | 'afterWrite', at: number) {
  let seen = 0;
  return definePlugin({
    name: 'killer',
    setup({ hooks }) {
      const hit = (origin: string) => {
        if (origin === 'patch' && ++seen === at) throw new Error(`killed at document ${at}`);
      };
      if (phase === 'validate') hooks.validate.tapPromise({ name: 'killer', stage: 1000 }, async (_d, ctx) => hit(ctx.origin));
      else hooks.afterWrite.tapPromise({ name: 'killer', stage: 1000 }, async (_d, ctx) => hit(ctx.origin));
    },
  });
}

async function open(dataDir: string, name: string, extra: PluginEntry[] = []): Promise<BrowserStack> {
  return (await createStack({ name, adapter: 'leveldb', dataDir, plugins: [...browser, handlers, ...extra] })) as BrowserStack;
}

async function scenario(phase: 'validate' | 'afterWrite', at: number): Promise<void> {
  const dataDir = await tempDir();
  const name = uniqueName('resume');
  const first = await open(dataDir, name, [killer(phase, at)]);
  await Class.create(first, 'Item', 'class', '', { title: { type: 'string' }, n: { type: 'integer' } });
  for (let i = 0; i < COUNT; i += 1000) {
    await first.createDocs(Array.from({ length: 1000 }, (_, j) => ({ '~class': 'Item', title: `item ${i + j}`, n: 0 })));
  }
  const failed: PatchFailedEvent[] = [];
  first.on('patch:failed', (e: PatchFailedEvent) => failed.push(e));
  const patch = {
    target: 'items', version: '2.0.0', changes: [
      { kind: 'renameAttribute' as const, className: 'Item', from: 'title', to: 'label' },
      { kind: 'migrate' as const, className: 'Item', handler: 'items.bump' },
    ],
  };
  await expect(first.patches.apply(patch)).rejects.toMatchObject({ code: 'DS_PATCH_FAILED' });
  expect(failed).toHaveLength(1);
  expect(await first.patches.list()).toEqual([]);
  await first.close();

  // reopened without the killer: the open-time pass resumes where the run stopped
  const second = track(await open(dataDir, name));
  await second.patches.applyPending();
  expect((await second.patches.list()).map((r) => r.version)).toEqual(['2.0.0']);
  const docs: Doc[] = [];
  for await (const page of second.storage.pages('Item-')) docs.push(...page);
  expect(docs).toHaveLength(COUNT);
  const wrong = docs.filter((d) => d.n !== 1 || typeof d.label !== 'string' || 'title' in d);
  expect(wrong.length).toBe(0); // every document renamed, and migrated exactly once
}

describe('a patch interrupted half way resumes and applies every change once', () => {
  it('killed during the rename (batch not stored), resumed', { timeout: 60_000 }, () => scenario('validate', 1_200));
  it('killed during the migrate right after a batch was stored (cursor not moved), resumed', { timeout: 60_000 }, () => scenario('afterWrite', COUNT + 1_250));
});
