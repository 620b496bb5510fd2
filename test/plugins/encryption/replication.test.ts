import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStack } from '../../../index.js';
import { browser, server, type BrowserStack } from '../../../plugins.config.js';
import { expectRefused, rawDb, tempDir, track, uniqueName } from '../../helpers/stack.js';
import { PASSPHRASE, replicate, secretClasses } from './setup.js';

async function filesContain(dir: string, needle: string): Promise<boolean> {
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const bytes = await readFile(join(entry.parentPath, entry.name));
    if (bytes.includes(Buffer.from(needle, 'utf8'))) return true;
  }
  return false;
}

async function leveldbStack(dataDir: string, plugins: typeof browser | typeof server): Promise<BrowserStack> {
  return track(await createStack({ name: uniqueName('enc'), adapter: 'leveldb', dataDir, plugins }));
}

describe('encryption across replication', () => {
  it('a server (no keys) stores only ciphertext; a second client with the passphrase reads the values', async () => {
    const client = await leveldbStack(await tempDir(), browser);
    await client.unlock(PASSPHRASE);
    await secretClasses(client);
    // long, distinctive values: leveldb's compression cannot hide a plaintext that is there
    const secret = 'TOP-SECRET-VALUE-' + 'q7'.repeat(20);
    const visible = 'VISIBLE-CONTROL-VALUE-' + 'k3'.repeat(20);
    const docs = await client.createDocs(Array.from({ length: 20 }, (_, i) => ({ '~class': 'Secret', label: `${visible}-${i}`, pin: String(i), tags: [`${secret}-${i}`] })));

    const serverDir = await tempDir();
    const node = await leveldbStack(serverDir, server);
    await replicate(client, node);
    expect(node.keyring.unlocked).toBe(false);
    const onServer = await node.getDocument(docs[0]._id);
    expect(onServer).toMatchObject({ label: `${visible}-0`, tags: { '~sealed': true, scope: 'default' } });
    await node.close(); // flush leveldb to its files
    expect(await filesContain(serverDir, visible)).toBe(true); // the search finds what is there…
    expect(await filesContain(serverDir, secret)).toBe(false); // …and the secret is not there

    const reopened = await createStack({ name: node.name, adapter: 'leveldb', dataDir: serverDir, plugins: server });
    const second = await leveldbStack(await tempDir(), browser);
    await replicate(reopened, second);
    await reopened.close();
    await expectRefused(second.unlock('wrong'), 'DS_ENCRYPTION_PASSPHRASE');
    await second.unlock(PASSPHRASE);
    expect(await second.getDocument(docs[5]._id)).toMatchObject({ pin: '5', tags: [`${secret}-5`] });
  });

  it('shares one scope with another stack without the keyring passphrase (passphrase and public key)', async () => {
    const alice = await leveldbStack(await tempDir(), browser);
    await alice.unlock(PASSPHRASE);
    await alice.keyring.createScope('team');
    await secretClasses(alice);
    const doc = await alice.createDoc({ '~class': 'Secret', pin: '4242', '~scope': 'team' });
    const hidden = await alice.createDoc({ '~class': 'Secret', pin: '7' }); // default scope: not shared

    const bob = await leveldbStack(await tempDir(), browser);
    await bob.unlock('bob has his own passphrase');
    const bundle = await alice.keyring.exportScope('team', { passphrase: 'agreed with bob' });
    // only wrapped keys travel: neither the keyring passphrase nor the agreed one is in the bundle
    expect(JSON.stringify(bundle)).not.toContain(PASSPHRASE);
    expect(JSON.stringify(bundle)).not.toContain('agreed with bob');
    await expectRefused(bob.keyring.importScope(bundle, { passphrase: 'guess' }), 'DS_ENCRYPTION_PASSPHRASE');
    await bob.keyring.importScope(bundle, { passphrase: 'agreed with bob' });
    // bob receives alice's documents (not her keyring: he keeps his own)
    await (rawDb(alice) as unknown as { replicate: { to(db: unknown, o: unknown): Promise<unknown> } }).replicate.to(rawDb(bob), {
      filter: (d: { _id: string }) => !d._id.startsWith('~Keyring-'),
    });
    expect((await bob.getDocument(doc._id))?.pin).toBe('4242');
    expect((await bob.getDocument(hidden._id))?.pin).toEqual({ '~sealed': true, scope: 'default' });

    const pair = (await globalThis.crypto.subtle.generateKey(
      { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      false,
      ['wrapKey', 'unwrapKey'],
    )) as CryptoKeyPair;
    const carol = await leveldbStack(await tempDir(), browser);
    await carol.unlock('carol');
    await carol.keyring.importScope(await alice.keyring.exportScope('team', { publicKey: pair.publicKey }), { privateKey: pair.privateKey });
    expect(await carol.keyring.scopes()).toEqual(['default', 'team']);
  });
});
