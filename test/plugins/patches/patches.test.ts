import { describe, expect, it } from 'vitest';
import { Class } from '../../../index.js';
import { compareVersions, registerPatchHandler, type Patch, type PatchFailedEvent, type PatchProgressEvent } from '../../../plugins/patches/index.js';
import { memoryStack, refusal } from '../../helpers/stack.js';

const notes = (version: string, changes: Patch['changes']): Patch => ({ target: 'notes-app', version, changes });

describe('stack.patches: apply, list, pending', () => {
  it('applies a patch, records it once (target, version, when, by this replica) and stores it with a fixed id', async () => {
    const stack = await memoryStack();
    const record = await stack.patches.apply(notes('1.0.0', [{ kind: 'addClass', name: 'Note', schema: { title: { type: 'string' } } }]));
    expect(record).toMatchObject({ target: 'notes-app', version: '1.0.0', id: '~Patch-notes-app@1.0.0', by: await stack.patches.replica() });
    expect(typeof record.at).toBe('string');
    expect(await stack.listClasses()).toContain('Note');
    expect(await stack.storage.get('~Patch-notes-app@1.0.0')).toMatchObject({ '~class': '~Patch', target: 'notes-app', version: '1.0.0' });
    // again: a no-op, still one record
    expect(await stack.patches.apply(notes('1.0.0', [{ kind: 'addClass', name: 'Note', schema: { title: { type: 'string' } } }]))).toEqual(record);
    expect(await stack.patches.list()).toEqual([record]);
    expect(await stack.patches.pending()).toEqual([]);
  });

  it('refuses malformed patches, a different patch under a taken version, and older versions', async () => {
    const stack = await memoryStack();
    expect((await refusal(stack.patches.apply({ target: 'x', version: '1.0', changes: [{ kind: 'addClass', name: 'A' }] }))).code).toBe('DS_PATCH_INVALID');
    expect((await refusal(stack.patches.apply({ target: 'a b', version: '1.0.0', changes: [{ kind: 'addClass', name: 'A' }] }))).code).toBe('DS_PATCH_INVALID');
    expect((await refusal(stack.patches.apply(notes('1.0.0', [])))).code).toBe('DS_PATCH_INVALID');
    expect((await refusal(stack.patches.apply(notes('1.0.0', [{ kind: 'explode' } as never])))).path).toBe('changes[0].kind');
    expect((await refusal(stack.patches.apply(notes('1.0.0', [{ kind: 'migrate', className: 'A', handler: 'nobody' }])))).code).toBe('DS_HANDLER_UNKNOWN');
    expect(await stack.patches.pending()).toEqual([]); // nothing stored for a refused patch
    await stack.patches.apply(notes('1.1.0', [{ kind: 'addClass', name: 'A' }]));
    expect((await refusal(stack.patches.apply(notes('1.1.0', [{ kind: 'addClass', name: 'B' }])))).code).toBe('DS_PATCH_CONFLICT');
    expect((await refusal(stack.patches.apply(notes('1.0.9', [{ kind: 'addClass', name: 'B' }])))).code).toBe('DS_PATCH_ORDER');
  });

  it('compares versions as semver (pre-releases before their release, numbers numerically)', () => {
    const sorted = ['1.10.0', '1.2.0', '1.2.0-beta.2', '1.2.0-beta.10', '1.2.0-alpha', '0.9.9', '2.0.0'].sort(compareVersions);
    expect(sorted).toEqual(['0.9.9', '1.2.0-alpha', '1.2.0-beta.2', '1.2.0-beta.10', '1.2.0', '1.10.0', '2.0.0']);
  });

  it('applies pending patches per target in semver order, whatever order they arrived in', async () => {
    const author = await memoryStack();
    const receiver = await memoryStack();
    await author.patches.apply(notes('1.0.0', [{ kind: 'addClass', name: 'Note', schema: { title: { type: 'string' } } }]));
    await author.patches.apply(notes('1.2.0', [{ kind: 'addAttribute', className: 'Note', name: 'tags', type: 'string', config: { isArray: true } }]));
    await author.patches.apply(notes('1.10.0', [{ kind: 'renameAttribute', className: 'Note', from: 'tags', to: 'labels' }]));
    const docs = await author.storage.range({ prefix: '~Patch-', includeDocs: true });
    const order: string[] = [];
    receiver.on('patch:applied', (r: { version: string }) => order.push(r.version));
    expect(docs.map((r) => r.doc.after)).toEqual([undefined, '1.2.0', '1.0.0']); // id order: 1.0.0, 1.10.0, 1.2.0
    // newest first, one at a time, and without the class documents: the receiver builds them itself
    for (const row of [...docs].sort((a, b) => compareVersions(b.doc.version as string, a.doc.version as string))) {
      await receiver.ingest([{ ...row.doc, _revisions: { start: 1, ids: [row.doc._rev!.split('-')[1]] } }]);
      await receiver.patches.applyPending();
      if (row.doc.version !== '1.0.0') expect(order).toEqual([]); // waits for what it was authored after
    }
    expect(await receiver.patches.pending()).toEqual([]);
    expect(order).toEqual(['1.0.0', '1.2.0', '1.10.0']);
    expect(Object.keys((await receiver.requireClass('Note')).schema).sort()).toEqual(['labels', 'title']);
    expect((await receiver.patches.list()).map((r) => r.version)).toEqual(['1.0.0', '1.2.0', '1.10.0']);
    expect(await receiver.patches.pending()).toEqual([]);
  });
});

describe('the change kinds', () => {
  it('addAttribute (stamps its default), updateAttribute (config keys, null removes), removeAttribute (values too)', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Task', 'class', '', { title: { type: 'string', maxLength: 10 }, notes: { type: 'string' } });
    const task = await stack.createDoc({ '~class': 'Task', title: 'first', notes: 'x' });
    await stack.patches.apply({
      target: 'tasks', version: '1.0.0', changes: [
        { kind: 'addAttribute', className: 'Task', name: 'priority', type: 'integer', config: { defaultValue: 3 } },
        { kind: 'updateAttribute', className: 'Task', name: 'title', config: { maxLength: 100, mandatory: true } },
        { kind: 'updateAttribute', className: 'Task', name: 'priority', config: { defaultValue: null, max: 5 } },
        { kind: 'removeAttribute', className: 'Task', name: 'notes' },
      ],
    });
    const model = await stack.requireClass('Task');
    expect(model.schema.title).toMatchObject({ maxLength: 100, mandatory: true });
    expect(model.schema.priority).toMatchObject({ type: 'integer', max: 5 });
    expect(model.schema.priority.defaultValue).toBeUndefined();
    expect(model.schema.notes).toBeUndefined();
    const stored = await stack.getDocument(task._id);
    expect(stored).toMatchObject({ title: 'first', priority: 3 });
    expect(stored).not.toHaveProperty('notes');
    expect((await refusal(stack.createDoc({ '~class': 'Task', title: 'x', priority: 9 }))).code).toBe('DS_VALIDATION_RANGE');
  });

  it('takes attribute models in the specification\'s shape { name, type, config, description? } and in the flat one', async () => {
    const stack = await memoryStack();
    await stack.patches.apply({
      target: 'shelves', version: '1.0.0', changes: [
        { kind: 'addClass', name: 'Shelf', schema: { label: { name: 'label', type: 'string', config: { maxLength: 40, mandatory: true }, description: 'front' }, depth: { type: 'integer', max: 3 } } },
        { kind: 'addAttribute', className: 'Shelf', name: 'slots', type: 'integer', config: { min: 1 }, description: 'how many' },
        { kind: 'addAttribute', className: 'Shelf', name: 'color', type: 'enum', values: [{ value: 'red' }, { value: 'oak' }] },
        { kind: 'updateAttribute', className: 'Shelf', name: 'depth', max: 5 },
        { kind: 'updateAttribute', className: 'Shelf', name: 'slots', config: { max: 12 } },
      ],
    });
    const model = await stack.requireClass('Shelf');
    expect(model.schema.label).toEqual({ name: 'label', type: 'string', maxLength: 40, mandatory: true, description: 'front' });
    expect(model.schema.slots).toEqual({ name: 'slots', type: 'integer', min: 1, max: 12, description: 'how many' });
    expect(model.schema.color).toEqual({ name: 'color', type: 'enum', values: [{ value: 'red' }, { value: 'oak' }] });
    expect(model.schema.depth).toEqual({ name: 'depth', type: 'integer', max: 5 });
    // stored as the specification writes it, whichever shape the patch used
    const stored = (await stack.storage.get('Shelf')) as unknown as { schema: Record<string, unknown> };
    expect(stored.schema.depth).toEqual({ name: 'depth', type: 'integer', config: { max: 5 } });
    expect(stored.schema.color).toEqual({ name: 'color', type: 'enum', config: { values: [{ value: 'red' }, { value: 'oak' }] } });
    // a key both in config and beside it is refused, the patch with it
    const twice = await refusal(stack.patches.apply({ target: 'shelves', version: '1.1.0', changes: [{ kind: 'addAttribute', className: 'Shelf', name: 'w', type: 'integer', max: 1, config: { max: 2 } }] }));
    expect(twice).toMatchObject({ code: 'DS_PATCH_FAILED', details: { code: 'DS_ATTRIBUTE_CONFIG_INVALID' } });
    expect((await stack.requireClass('Shelf')).schema.w).toBeUndefined();
  });

  it('renameAttribute moves the value in every document, inactive ones included', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Person', 'class', '', { fullname: { type: 'string' } });
    const docs = await stack.createDocs(Array.from({ length: 1200 }, (_, i) => ({ '~class': 'Person', fullname: `p${i}` })));
    await stack.deleteDocument(docs[0]._id);
    await stack.patches.apply({ target: 'people', version: '2.0.0', changes: [{ kind: 'renameAttribute', className: 'Person', from: 'fullname', to: 'name' }] });
    const all = await stack.findDocuments('Person');
    expect(all).toHaveLength(1199);
    expect(all.every((d) => typeof d.name === 'string' && d.fullname === undefined)).toBe(true);
    expect(await stack.getDocument(docs[0]._id, { includeInactive: true })).toMatchObject({ name: 'p0', active: false });
    expect(Object.keys((await stack.requireClass('Person')).schema)).toEqual(['name']);
  });

  it('addDomain through the domains plugin, with the domain name as id (replicas converge)', async () => {
    const stack = await memoryStack();
    await stack.patches.apply({
      target: 'org', version: '1.0.0', changes: [
        { kind: 'addClass', name: 'Team' },
        { kind: 'addClass', name: 'Member' },
        { kind: 'addDomain', name: 'TeamMembers', relation: '1:N', sourceClass: 'Team', targetClass: 'Member' },
      ],
    });
    const domain = await stack.useDomain('TeamMembers');
    expect(domain).toBeDefined();
    expect(await stack.storage.get('domain-TeamMembers')).toMatchObject({ name: 'TeamMembers', relation: '1:N' });
  });

  it('migrate runs a registered handler over active documents through the pipeline (origin patch), with progress events', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Post', 'class', '', { title: { type: 'string' }, slug: { type: 'string' } });
    await stack.createDocs(Array.from({ length: 1100 }, (_, i) => ({ '~class': 'Post', title: `Hello World ${i}` })));
    registerPatchHandler(stack, 'posts.slug', (doc, { params }) =>
      doc.slug === undefined ? { slug: `${params.prefix}${String(doc.title).toLowerCase().replaceAll(' ', '-')}` } : undefined,
    );
    const origins = new Set<string>();
    stack.on('change', (e: { origin: string; className: string }) => e.className === 'Post' && origins.add(e.origin));
    const progress: PatchProgressEvent[] = [];
    stack.on('patch:progress', (e: PatchProgressEvent) => progress.push(e));
    await stack.patches.apply({ target: 'blog', version: '1.0.0', changes: [{ kind: 'migrate', className: 'Post', handler: 'posts.slug', params: { prefix: 'p/' } }] });
    const posts = await stack.findDocuments('Post');
    expect(posts.every((p) => p.slug === `p/${String(p.title).toLowerCase().replaceAll(' ', '-')}`)).toBe(true);
    expect([...origins]).toEqual(['patch']);
    expect(progress.map((p) => p.done)).toEqual([500, 1000, 1100]);
    expect(progress.every((p) => p.total === 1100 && p.kind === 'migrate')).toBe(true);
  });
});

describe('failures', () => {
  it('a failing change stops its target with DS_PATCH_FAILED and an event; other targets and writes go on; retry resumes', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Item', 'class', '', { n: { type: 'integer' } });
    await stack.createDocs([{ '~class': 'Item', n: 1 }, { '~class': 'Item', n: 2 }]);
    let broken = true;
    registerPatchHandler(stack, 'items.double', (doc) => {
      if (broken) throw new Error('not today');
      return { n: Number(doc.n) * 2 };
    });
    const failures: PatchFailedEvent[] = [];
    stack.on('patch:failed', (e: PatchFailedEvent) => failures.push(e));
    const err = await refusal(stack.patches.apply({ target: 'items', version: '1.0.0', changes: [{ kind: 'migrate', className: 'Item', handler: 'items.double' }] }));
    expect(err).toMatchObject({ code: 'DS_PATCH_FAILED' });
    expect(err.message).toMatch(/not today/);
    expect(failures).toMatchObject([{ target: 'items', version: '1.0.0', code: 'DS_PATCH_FAILED' }]);
    expect(await stack.patches.pending()).toMatchObject([{ version: '1.0.0', failed: { code: 'DS_PATCH_FAILED' } }]);
    // the target is stopped, nothing else is
    expect((await refusal(stack.patches.apply({ target: 'items', version: '1.1.0', changes: [{ kind: 'addClass', name: 'Other' }] }))).code).toBe('DS_PATCH_BLOCKED');
    await stack.patches.apply({ target: 'else', version: '0.1.0', changes: [{ kind: 'addClass', name: 'Elsewhere' }] });
    await stack.createDoc({ '~class': 'Item', n: 3 });
    broken = false;
    await stack.patches.retry('items');
    expect((await stack.findDocuments('Item')).map((d) => d.n).sort()).toEqual([2, 4, 6]);
    expect((await stack.patches.list()).map((r) => `${r.target}@${r.version}`)).toEqual(['else@0.1.0', 'items@1.0.0']);
  });

  it('invalid changes fail with their cause code in details', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'K', 'class', '', { id: { type: 'string', primaryKey: true }, secret: { type: 'string' } });
    const err = await refusal(stack.patches.apply({ target: 'k', version: '1.0.0', changes: [{ kind: 'removeAttribute', className: 'K', name: 'id' }] }));
    expect(err).toMatchObject({ code: 'DS_PATCH_FAILED', details: { code: 'DS_PATCH_INVALID', kind: 'removeAttribute', change: 0 } });
    const err2 = await refusal(stack.patches.apply({ target: 'other', version: '1.0.0', changes: [{ kind: 'updateAttribute', className: 'K', name: 'secret', config: { type: 'integer' } }] }));
    expect(err2).toMatchObject({ code: 'DS_PATCH_FAILED', details: { code: 'DS_PATCH_INVALID' } });
  });
});
