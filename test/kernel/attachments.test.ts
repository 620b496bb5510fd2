import { describe, expect, it } from 'vitest';
import { Class, createStack, type ClientStack } from '../../index.js';
import { slim } from '../../plugins.config.js';
import { memoryStack, track, uniqueName } from '../helpers/stack.js';

const PHOTO_SCHEMA = {
  title: { type: 'string' },
  photo: { type: 'attachment', maxBytes: 6 * 1024 * 1024, types: ['image/jpeg', 'image/png'] },
  notes: { type: 'attachment', types: ['text/*'] },
} as const;

async function photoClass(stack: ClientStack) {
  return Class.create(stack, 'Visit', 'class', 'a visit with photos', PHOTO_SCHEMA as never);
}

/** Random bytes, as a photo would be (not compressible, every byte value). */
function photo(bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 65_536) globalThis.crypto.getRandomValues(out.subarray(i, Math.min(bytes, i + 65_536)));
  return out;
}

/** Byte for byte (a 5 MB toEqual would print megabytes on failure). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((v, i) => v === b[i]);
}

describe('attachments through the write pipeline', () => {
  for (const [preset, open] of [
    ['slim', async () => track(await createStack({ name: uniqueName('att'), adapter: 'memory', plugins: slim }))],
    ['browser', () => memoryStack()],
  ] as const) {
    it(`puts, lists, reads and removes a 5 MB photo as writes of the document (${preset} preset)`, async () => {
      const stack: ClientStack = await open();
      await photoClass(stack);
      const visit = await stack.createDoc({ '~class': 'Visit', title: 'boiler' });
      const changes: string[] = [];
      stack.on('change', (e: { op: string; id: string }) => changes.push(`${e.op}:${e.id}`));
      const bytes = photo(5 * 1024 * 1024);
      const stored = await stack.putAttachment(visit._id, 'photo', bytes, 'image/jpeg');
      expect(stored._rev).not.toBe(visit._rev);
      expect(stored._attachments).toMatchObject({ photo: { content_type: 'image/jpeg', length: bytes.byteLength, stub: true } });
      expect(changes).toEqual([`update:${visit._id}`]);
      const read = await stack.getAttachment(visit._id, 'photo');
      expect(read).toMatchObject({ name: 'photo', contentType: 'image/jpeg', length: bytes.byteLength });
      expect(sameBytes(read.data as Uint8Array, bytes)).toBe(true);
      // an update of the body keeps the file; a soft delete too
      await stack.updateDoc(visit._id, { title: 'boiler, again' });
      expect((await stack.getAttachment(visit._id, 'photo')).length).toBe(bytes.byteLength);
      const removed = await stack.removeAttachment(visit._id, 'photo');
      expect(removed._attachments ?? {}).toEqual({});
      await expect(stack.getAttachment(visit._id, 'photo')).rejects.toMatchObject({ code: 'DS_ATTACHMENT_NOT_FOUND', status: 404 });
      await expect(stack.removeAttachment(visit._id, 'photo')).rejects.toMatchObject({ code: 'DS_ATTACHMENT_NOT_FOUND' });
    });
  }

  it('refuses bad attachments with stable codes, writing nothing', async () => {
    const stack = await memoryStack();
    await photoClass(stack);
    const visit = await stack.createDoc({ '~class': 'Visit', title: 't' });
    const small = new Uint8Array([1, 2, 3]);
    const cases: Array<[string, () => Promise<unknown>, string]> = [
      ['a name that is no attachment attribute', () => stack.putAttachment(visit._id, 'title', small, 'image/png'), 'DS_ATTACHMENT_INVALID'],
      ['an unknown name', () => stack.putAttachment(visit._id, 'scan', small, 'image/png'), 'DS_ATTACHMENT_INVALID'],
      ['a type outside the allowlist', () => stack.putAttachment(visit._id, 'photo', small, 'application/pdf'), 'DS_ATTACHMENT_TYPE'],
      ['a family outside the allowlist', () => stack.putAttachment(visit._id, 'notes', small, 'image/png'), 'DS_ATTACHMENT_TYPE'],
      ['a malformed type', () => stack.putAttachment(visit._id, 'photo', small, 'jpeg'), 'DS_ATTACHMENT_INVALID'],
      ['data that is not bytes', () => stack.putAttachment(visit._id, 'photo', 'aGVsbG8=' as never, 'image/png'), 'DS_ATTACHMENT_INVALID'],
      ['a photo above maxBytes', () => stack.putAttachment(visit._id, 'photo', photo(6 * 1024 * 1024 + 1), 'image/png'), 'DS_ATTACHMENT_TOO_LARGE'],
      ['raw _attachments through updateDoc, past the allowlist', () => stack.updateDoc(visit._id, { _attachments: { photo: { content_type: 'text/html', data: 'aGk=' } } }), 'DS_ATTACHMENT_TYPE'],
      ['raw _attachments on create, not base64', () => stack.createDoc({ '~class': 'Visit', _attachments: { photo: { content_type: 'image/png', data: 'not base64!' } } }), 'DS_ATTACHMENT_INVALID'],
      ['a value in the body of an attachment attribute', () => stack.updateDoc(visit._id, { photo: 'x' }), 'DS_VALIDATION_TYPE'],
    ];
    for (const [what, call, code] of cases) await expect(call(), what).rejects.toMatchObject({ code });
    const after = await stack.getDocument(visit._id);
    expect(after!._rev).toBe(visit._rev);
    expect(after!._attachments).toBeUndefined();
    expect(await stack.countDocuments('Visit')).toBe(1);
    await expect(stack.putAttachment('Visit-nope', 'photo', small, 'image/png')).rejects.toMatchObject({ code: 'DS_DOC_NOT_FOUND' });
  });

  it('refuses attachment attributes that cannot hold a file', async () => {
    const stack = await memoryStack();
    for (const [config, what] of [
      [{ maxBytes: 0 }, 'maxBytes 0'],
      [{ maxBytes: 1.5 }, 'fractional maxBytes'],
      [{ types: [] }, 'empty types'],
      [{ types: ['jpeg'] }, 'a type without subtype'],
      [{ mandatory: true }, 'mandatory'],
      [{ isArray: true }, 'an array'],
    ] as const) {
      await expect(Class.create(stack, `Bad${Math.random().toString(36).slice(2, 8)}`, 'class', '', { f: { type: 'attachment', ...config } } as never), what).rejects.toMatchObject({ code: 'DS_ATTRIBUTE_CONFIG_INVALID' });
    }
  });

  it('a before-write trigger and the class rules see the write of the owning document', async () => {
    const stack = await memoryStack();
    await photoClass(stack);
    const seen: unknown[] = [];
    stack.hooks.validate.tap('spy', (draft) => void seen.push((draft._attachments as Record<string, { content_type: string }> | undefined)?.photo?.content_type));
    const visit = await stack.createDoc({ '~class': 'Visit', title: 't' });
    await stack.putAttachment(visit._id, 'photo', new Uint8Array([9, 9]), 'image/png');
    expect(seen).toEqual([undefined, 'image/png']);
  });
});
