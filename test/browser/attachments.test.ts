/**
 * Attachments in Chromium (IndexedDB, the real bundle) with a real server node: a 5 MB photo made
 * on one device round-trips to another through the node, as a Blob both ways; the class's rules
 * refuse a wrong type; a sealed file is unreadable on the node and opens on a key holder.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADMIN, testNode } from '../server/node-helpers.js';
import { seededBytes } from './seeded-bytes.js';
import { useHarness } from './use-harness.js';

const harness = useHarness();

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const PHOTO = 5 * 1024 * 1024;

describe('attachments in Chromium through a server node', () => {
  it('a 5 MB photo round-trips two devices; a wrong type is refused; a sealed file stays sealed on the node', async () => {
    const { node } = await testNode({ config: { port: 0, corsOrigins: [harness().origin] } });
    const { url } = await node.start();
    const remote = `${url}/db/docstack`;
    const { Class } = await import('docstack/browser');
    await Class.create(node.stack(), 'Visit', 'class', '', {
      title: { type: 'string' },
      photo: { type: 'attachment', maxBytes: 6 * 1024 * 1024, types: ['image/jpeg'] },
      sealed: { type: 'attachment', encrypted: true },
    } as never);
    const [visit] = await node.stack().createDocs([{ '~class': 'Visit', title: 'boiler' }]);

    const a = await harness().page(await harness().context());
    await a.run('syncOnce', { name: 'device-a', remote, auth: ADMIN });
    await a.run('unlock', { name: 'device-a', passphrase: 'the devices passphrase' });
    const stubs = await a.run<Record<string, { length: number }>>('putFile', { name: 'device-a', id: visit._id, attachment: 'photo', bytes: PHOTO, seed: 7, type: 'image/jpeg' });
    expect(stubs.photo.length).toBe(PHOTO);
    expect(await a.run('fileRefusal', { name: 'device-a', id: visit._id, attachment: 'photo', type: 'image/png' })).toMatchObject({ code: 'DS_ATTACHMENT_TYPE', docstack: true });
    await a.run('putFile', { name: 'device-a', id: visit._id, attachment: 'sealed', bytes: 10_000, seed: 9, type: 'application/octet-stream' });
    expect(await a.run('fileDigest', { name: 'device-a', id: visit._id, attachment: 'photo' })).toEqual({ blob: true, type: 'image/jpeg', length: PHOTO, sha256: sha256(seededBytes(PHOTO, 7)) });
    const pushed = await a.run<{ pushed: number; denied: string[] }>('syncOnce', { name: 'device-a', remote, auth: ADMIN });
    expect(pushed.denied).toEqual([]);

    const onNode = await node.stack().getAttachment(visit._id, 'photo');
    expect(sha256(onNode.data as Uint8Array)).toBe(sha256(seededBytes(PHOTO, 7)));
    await expect(node.stack().getAttachment(visit._id, 'sealed')).rejects.toMatchObject({ code: 'DS_ENCRYPTION_LOCKED' });

    // another device (its own browser context: its own IndexedDB)
    const b = await harness().page(await harness().context());
    await b.run('syncOnce', { name: 'device-b', remote, auth: ADMIN });
    expect(await b.run('fileDigest', { name: 'device-b', id: visit._id, attachment: 'photo' })).toEqual({ blob: true, type: 'image/jpeg', length: PHOTO, sha256: sha256(seededBytes(PHOTO, 7)) });
    await b.run('unlock', { name: 'device-b', passphrase: 'the devices passphrase' });
    expect(await b.run('fileDigest', { name: 'device-b', id: visit._id, attachment: 'sealed' })).toMatchObject({ length: 10_000, sha256: sha256(seededBytes(10_000, 9)) });
    await a.run('close', { name: 'device-a' });
    await b.run('close', { name: 'device-b' });
  }, 120_000);
});
