import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientStack, Class, createStack, DocstackError } from '../../index.js';
import { kernelStack, refusal, tempDir, track, uniqueName, userClasses } from '../helpers/stack.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('opening a stack', () => {
  it('creates the bootstrap meta-model: class (~class ~self); domain is the domains plugin\'s', async () => {
    const stack = await kernelStack();
    const meta = (await stack.storage.get('class')) as Record<string, unknown>;
    expect(meta['~class']).toBe('~self');
    expect(meta.name).toBe('class');
    expect(stack.patchCount).toBe(2);
    expect(await userClasses(stack)).toEqual(['class']);
  });

  it('applies system patches once: a reopened store keeps the meta-model revision', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('patches');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
    const rev = (await first.storage.get('class'))?._rev;
    await first.close();
    const second = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] }));
    expect((await second.storage.get('class'))?._rev).toBe(rev);
    const record = await second.storage.get<{ applied: { id: string }[] }>('_local/~system-patches');
    expect(record?.applied.map((p) => p.id)).toEqual(['0001-meta-model', '0002-attribute-model']);
  });

  it('refuses to open when PATCH_COUNT differs from the applied patches (env and option)', async () => {
    vi.stubEnv('PATCH_COUNT', '5');
    const err = await refusal(createStack({ name: uniqueName(), adapter: 'memory', plugins: [] }));
    expect(err).toBeInstanceOf(DocstackError);
    expect(err.code).toBe('DS_STACK_PATCH_COUNT');
    expect(err.message).toMatch(/PATCH_COUNT is 5 but 2 system patches are applied/);
    vi.stubEnv('PATCH_COUNT', '2');
    track(await createStack({ name: uniqueName(), adapter: 'memory', plugins: [] }));
    vi.unstubAllEnvs();
    expect((await refusal(createStack({ name: uniqueName(), adapter: 'memory', patchCount: 3 }))).code).toBe('DS_STACK_PATCH_COUNT');
    vi.stubEnv('PATCH_COUNT', 'many');
    expect((await refusal(createStack({ name: uniqueName(), adapter: 'memory' }))).code).toBe('DS_STACK_OPTIONS_INVALID');
  });

  it('refuses an unknown adapter and a bad name', async () => {
    const bad = await refusal(createStack({ name: uniqueName(), adapter: 'sqlite' as never }));
    expect(bad.code).toBe('DS_STORAGE_ADAPTER_UNKNOWN');
    const badName = await refusal(createStack({ name: '../etc', adapter: 'memory' }));
    expect(badName.code).toBe('DS_STACK_OPTIONS_INVALID');
  });

  it('refuses IndexedDB where there is none (Node, a private window) with DS_STORAGE_UNAVAILABLE', async () => {
    const err = await refusal(createStack({ name: uniqueName(), adapter: 'indexeddb' }));
    expect(err).toMatchObject({ code: 'DS_STORAGE_UNAVAILABLE', status: 503 });
    expect(err.message).toMatch(/no IndexedDB/);
    // the other IndexedDB adapter names too (docs/browser.md#storage-indexeddb)
    for (const adapter of ['indexeddb-next', 'indexeddb-idb'] as const) {
      expect(await refusal(createStack({ name: uniqueName(), adapter }))).toMatchObject({ code: 'DS_STORAGE_UNAVAILABLE', message: expect.stringMatching(/no IndexedDB/) });
    }
  });

  it('also opens with ClientStack.create(name, options)', async () => {
    const stack = track(await ClientStack.create(uniqueName(), { adapter: 'memory', plugins: [] }));
    expect(stack).toBeInstanceOf(ClientStack);
    expect(stack.isOpen).toBe(true);
  });

  it('refuses work after close, and close twice is harmless', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Thing', 'class');
    let closedHook = 0;
    stack.hooks.onClose.tap('test', () => void closedHook++);
    await stack.close();
    await stack.close();
    expect(closedHook).toBe(1);
    expect((await refusal(stack.createDoc({ '~class': 'Thing' }))).code).toBe('DS_STACK_CLOSED');
    expect((await refusal(stack.findDocuments('Thing'))).code).toBe('DS_STACK_CLOSED');
  });

  it('lists classes caught up across more changes than one page of the changes feed', async () => {
    const stack = await kernelStack();
    await Class.create(stack, 'Early', 'class', '', { n: { type: 'integer' } });
    await stack.createDocs(Array.from({ length: 2500 }, (_, i) => ({ '~class': 'Early', n: i })));
    await Class.create(stack, 'Late', 'class');
    expect(await userClasses(stack)).toEqual(['Early', 'Late', 'class']);
    const index = await stack.storage.get<{ seq: number }>('_local/~index/class-names');
    expect(index?.seq).toBe((await stack.storage.info()).updateSeq);
  });
});
