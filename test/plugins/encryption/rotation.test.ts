import { describe, expect, it } from 'vitest';
import { expectRefused, memoryStack } from '../../helpers/stack.js';
import { PASSPHRASE, secretClasses } from './setup.js';

describe('scope key rotation', () => {
  it('re-encrypts in batches with progress while writers and readers keep working, every document readable', async () => {
    const stack = await memoryStack();
    await stack.unlock(PASSPHRASE);
    await secretClasses(stack);
    const docs = await stack.createDocs(Array.from({ length: 240 }, (_, i) => ({ '~class': 'Secret', label: `d${i}`, pin: `p${i}`, scores: [i] })));
    const oldKid = ((await stack.storage.get(docs[0]._id)) as Record<string, { kid: string }>).pin.kid;
    const progress: { done: number; total: number }[] = [];
    stack.on('keyring:rotation', (p: { done: number; total: number }) => progress.push(p));

    let stop = false;
    let reads = 0;
    let writes = 0;
    const load = (async () => {
      for (let i = 0; !stop; i++) {
        const target = docs[(i * 7) % docs.length];
        const read = await stack.getDocument(target._id); // readable at every moment
        expect(read?.pin).toMatch(/^p\d+$/);
        reads++;
        if (i % 3 === 0) {
          await stack.updateDoc(target._id, { label: `touched ${i}` }).catch((err) => {
            if (err.code !== 'DS_DOC_CONFLICT') throw err; // the rotation wrote it at that moment
          });
          writes++;
        }
        if (i % 5 === 0) await stack.createDoc({ '~class': 'Secret', label: `new ${i}`, pin: `p${i}` });
      }
    })();
    const result = await stack.keyring.rotateScope('default', { batchSize: 25 });
    stop = true;
    await load;

    expect(reads).toBeGreaterThan(0);
    expect(writes).toBeGreaterThan(0);
    expect(result.kid).not.toBe(oldKid);
    expect(progress[0]).toMatchObject({ done: 0, total: result.total });
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.at(-1)?.done).toBe(result.total);
    const all = await stack.storage.range({ prefix: 'Secret-', includeDocs: true });
    for (const row of all) {
      const raw = row.doc as unknown as Record<string, { kid?: string }>;
      if (raw.pin) expect(raw.pin.kid).toBe(result.kid);
    }
    for (const doc of docs) expect((await stack.getDocument(doc._id))?.pin).toBe(doc.pin);
    // a fresh unlock (another device) still opens everything: old keys stay in the keyring
    stack.lock();
    await stack.unlock(PASSPHRASE);
    expect((await stack.getDocument(docs[3]._id))?.scores).toEqual([3]);
  });

  it('refuses while locked and for unknown scopes', async () => {
    const stack = await memoryStack();
    await stack.unlock(PASSPHRASE);
    await expectRefused(stack.keyring.rotateScope('nope'), 'DS_ENCRYPTION_SCOPE_UNKNOWN');
    stack.lock();
    await expectRefused(stack.keyring.rotateScope('default'), 'DS_ENCRYPTION_LOCKED');
  });
});
