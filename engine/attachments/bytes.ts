/**
 * Attachment data in its three forms: what a caller hands in (a Blob in a browser, a Buffer or
 * Uint8Array in Node), what the write pipeline carries and PouchDB stores on every adapter
 * (base64 text: one form for validation, sealing and replication alike), and what a read hands
 * back (a Blob in a browser, a Buffer in Node). Node's Buffer is reached through globalThis: the
 * browser bundle has none and must not pull a polyfill in.
 */

interface NodeBufferStatic {
  from(data: ArrayBufferLike | string, offsetOrEncoding?: number | string, length?: number): Uint8Array & { toString(encoding: string): string };
}
const NodeBuffer = (globalThis as { Buffer?: NodeBufferStatic }).Buffer;

/** What putAttachment accepts as data. */
export type AttachmentInput = Blob | Uint8Array | ArrayBuffer;
/** What getAttachment gives back: a Blob in a browser, a Buffer (a Uint8Array) in Node. */
export type AttachmentData = Blob | Uint8Array;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Is this text base64 (the form PouchDB stores and replicas send)? Linear in its length. */
export function isBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64.test(text);
}

/** The byte length of base64 text, without decoding it. */
export function base64ByteLength(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

export function bytesToBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  const CHUNK = 0x8000; // String.fromCharCode takes its arguments on the stack
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  if (NodeBuffer) return NodeBuffer.from(text, 'base64');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const isBlob = (value: unknown): value is Blob => typeof Blob !== 'undefined' && value instanceof Blob;

/** The bytes of a caller's (or a replicator's) data, or null when it is none of the accepted forms. */
export async function bytesOf(data: unknown): Promise<Uint8Array | null> {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (isBlob(data)) return new Uint8Array(await data.arrayBuffer());
  if (typeof data === 'string' && isBase64(data)) return base64ToBytes(data);
  return null;
}

/** The byte length of attachment data in any accepted form (base64 text counted decoded), or null. */
export function byteLengthOf(data: unknown): number | null {
  if (data instanceof Uint8Array) return data.byteLength;
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (isBlob(data)) return data.size;
  if (typeof data === 'string' && isBase64(data)) return base64ByteLength(data);
  return null;
}

/** Bytes as this platform's attachment data: a Buffer in Node, a Blob of the content type elsewhere. */
export function platformData(bytes: Uint8Array, contentType: string): AttachmentData {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return new Blob([bytes as Uint8Array<ArrayBuffer>], { type: contentType });
}
