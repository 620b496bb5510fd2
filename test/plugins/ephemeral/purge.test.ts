import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { browser } from '../../../plugins.config.js';
import { tempDir, track, uniqueName } from '../../helpers/stack.js';

describe('ephemeral classes', () => {
  it('lose their documents when the stack next opens; other classes keep theirs', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('ephemeral');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser });
    await Class.create(first, 'Presence', 'class', 'who is online', { user: { type: 'string', primaryKey: true } }, { ephemeral: true });
    await Class.create(first, 'Message', 'class', 'kept', { text: { type: 'string' } });
    await first.createDocs(Array.from({ length: 700 }, (_, i) => ({ '~class': 'Presence', user: `u${i}` })));
    await first.createDoc({ '~class': 'Presence', user: 'chosen' }, { id: 'presence-chosen' }); // an id outside the class range goes too
    await first.createDoc({ '~class': 'Message', text: 'stays' });
    expect(await first.findDocuments('Presence')).toHaveLength(701);
    await first.close();

    const second = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser }));
    expect(await second.findDocuments('Presence', {}, { includeInactive: true })).toHaveLength(0);
    expect(await second.storage.get('presence-chosen')).toBeNull();
    expect(await second.findDocuments('Message')).toHaveLength(1);
    // the class itself stays, and its keys can be used again
    const presence = await second.getClass('Presence');
    await second.createDoc({ '~class': 'Presence', user: 'u1' });
    expect((await presence.getByPrimaryKeys({ user: 'u1' }))?.user).toBe('u1');
  });

  it('are kept while the stack stays open, and without the plugin nothing is purged', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('no-plugin');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser });
    await Class.create(first, 'Draft', 'class', '', { text: { type: 'string' } }, { ephemeral: true });
    await first.createDoc({ '~class': 'Draft', text: 'x' });
    expect(await first.findDocuments('Draft')).toHaveLength(1);
    await first.close();
    const withoutPlugin = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: browser.filter((p) => p && (p as { name: string }).name !== 'ephemeral') }));
    expect(await withoutPlugin.findDocuments('Draft')).toHaveLength(1);
  });
});
