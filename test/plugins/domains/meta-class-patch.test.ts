import { describe, expect, it } from 'vitest';
import { createStack, definePlugin } from '../../../index.js';
import { domainsPlugin } from '../../../plugins/domains/index.js';
import { validationPlugin } from '../../../plugins/validation/index.js';
import { kernelStack, refusal, tempDir, track, uniqueName } from '../../helpers/stack.js';

describe('the domain meta-class is the domains plugin\'s own system patch', () => {
  it('a stack without the plugin has no domain meta-class; with it, the patch adds it and is recorded', async () => {
    const bare = await kernelStack();
    expect(bare.patchCount).toBe(2);
    expect(await bare.listClasses()).not.toContain('domain');

    const withDomains = track(await createStack({ name: uniqueName('domains'), adapter: 'memory', plugins: [validationPlugin, domainsPlugin] }));
    expect(withDomains.patchCount).toBe(4);
    const domain = await withDomains.requireClass('domain');
    expect(domain).toMatchObject({ name: 'domain', '~class': 'class' });
    expect(Object.keys(domain.schema)).toEqual(expect.arrayContaining(['name', 'relation', 'sourceClass', 'targetClass']));
  });

  it('adding the plugin to an existing store applies its patch once, on the next open', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('later');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [] });
    await first.close();
    const second = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [validationPlugin, domainsPlugin] });
    expect(second.patchCount).toBe(4);
    await second.close();
    const third = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: [validationPlugin, domainsPlugin] }));
    expect(third.patchCount).toBe(4);
    expect(await third.listClasses()).toContain('domain');
  });

  it('a plugin patch must carry its plugin\'s name as id prefix', async () => {
    const err = await refusal(
      (async () => definePlugin({ name: 'acme', patches: [{ id: '0001-x', description: '', apply: async () => undefined }], setup() {} }))(),
    );
    expect(err).toMatchObject({ code: 'DS_PLUGIN_INVALID' });
  });
});
