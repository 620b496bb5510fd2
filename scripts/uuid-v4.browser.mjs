// What the browser bundles give PouchDB for the `uuid` package (scripts/build-browser.mjs): PouchDB
// imports only its v4 (document and instance ids, random revisions). uuid 8's build carries its
// validation, parsing and option handling (≈ 0.5 kB gzipped); this is the same random v4 from
// crypto.getRandomValues, which (unlike crypto.randomUUID) needs no secure context, as uuid's own.

/** A random (version 4, RFC 4122) UUID, lowercase hex in 8-4-4-4-12 groups. */
export function v4() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10
  const hex = Array.from(bytes, (b) => (b + 0x100).toString(16).slice(1)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
