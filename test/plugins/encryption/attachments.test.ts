import { describe, expect, it } from 'vitest';
import { Class, type ClientStack } from '../../../index.js';
import { memoryStack } from '../../helpers/stack.js';
import { PASSPHRASE, replicate } from './setup.js';

async function sealedPhotos(stack: ClientStack) {
  return Class.create(stack, 'Case', 'class', 'a case with a sealed scan', {
    title: { type: 'string' },
    scan: { type: 'attachment', encrypted: true, types: ['image/*'], maxBytes: 2 * 1024 * 1024 },
    cover: { type: 'attachment' },
  } as never);
}

const contains = (haystack: Uint8Array, needle: Uint8Array) => Buffer.from(haystack).includes(Buffer.from(needle));
/** Byte for byte (a megabyte toEqual would print it all on failure). */
const same = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);

describe('encrypted attachments', () => {
  it('are sealed before storage, unreadable where the key is not held, readable by a key holder', async () => {
    const device = await memoryStack();
    await device.unlock(PASSPHRASE);
    await sealedPhotos(device);
    const doc = await device.createDoc({ '~class': 'Case', title: 'c' });
    // a recognisable plaintext of the full allowed size
    const plain = new Uint8Array(2 * 1024 * 1024).fill(0x41);
    plain.set(new TextEncoder().encode('PLAINTEXT-MARKER'), 1000);
    await device.putAttachment(doc._id, 'scan', plain, 'image/png');
    await device.putAttachment(doc._id, 'cover', new TextEncoder().encode('clear'), 'text/plain');

    const stored = (await device.storage.attachment(doc._id, 'scan'))!;
    expect(contains(stored, new TextEncoder().encode('PLAINTEXT-MARKER'))).toBe(false);
    expect(new TextDecoder().decode(stored.subarray(0, 4))).toBe('DSA1');
    expect(new TextDecoder().decode((await device.storage.attachment(doc._id, 'cover'))!)).toBe('clear'); // not encrypted: stored as given

    const read = await device.getAttachment(doc._id, 'scan');
    expect(read.length).toBe(plain.length);
    expect(same(read.data as Uint8Array, plain)).toBe(true);

    // a replica without the key (as the node): the same ciphertext, refused on read
    const node = await memoryStack();
    await replicate(device, node);
    expect(same((await node.storage.attachment(doc._id, 'scan'))!, stored)).toBe(true);
    await expect(node.getAttachment(doc._id, 'scan')).rejects.toMatchObject({ code: 'DS_ENCRYPTION_LOCKED' });
    expect(new TextDecoder().decode((await node.getAttachment(doc._id, 'cover')).data as Uint8Array)).toBe('clear');

    // another device of the same keyring opens it
    const other = await memoryStack();
    await replicate(device, other);
    await other.unlock(PASSPHRASE);
    expect(same((await other.getAttachment(doc._id, 'scan')).data as Uint8Array, plain)).toBe(true);

    // locked, the writer itself cannot read it, nor put a new one in clear
    device.lock();
    await expect(device.getAttachment(doc._id, 'scan')).rejects.toMatchObject({ code: 'DS_ENCRYPTION_LOCKED' });
    await expect(device.putAttachment(doc._id, 'scan', new Uint8Array([1]), 'image/png')).rejects.toMatchObject({ code: 'DS_ENCRYPTION_LOCKED' });
  });

  it('a sealed file moved to another document does not open', async () => {
    const device = await memoryStack();
    await device.unlock(PASSPHRASE);
    await sealedPhotos(device);
    const a = await device.createDoc({ '~class': 'Case', title: 'a' });
    const b = await device.createDoc({ '~class': 'Case', title: 'b' });
    await device.putAttachment(a._id, 'scan', new Uint8Array([1, 2, 3]), 'image/png');
    const sealed = (await device.storage.attachment(a._id, 'scan'))!;
    await device.updateDoc(b._id, { _attachments: { scan: { content_type: 'image/png', data: Buffer.from(sealed).toString('base64') } } });
    await expect(device.getAttachment(b._id, 'scan')).rejects.toMatchObject({ code: 'DS_ENCRYPTION_INTEGRITY' });
  });
});
