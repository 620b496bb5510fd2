import type { DriveAdapter, DriveCursor, DriveFile } from './adapter.js';
import { DRIVE_ERRORS } from './errors.js';

/**
 * A drive in memory, for tests and examples: the reference behaviour of the adapter interface
 * (a version counter per file as ETag, a change counter as cursor, conditional writes). Two
 * stacks given the same drive object sync through it.
 */
export function memoryDrive(id = 'memory'): DriveAdapter {
  const files = new Map<string, DriveFile & { seq: number }>();
  let seq = 0;
  const check = (name: string, ifMatch: string | null) => {
    const current = files.get(name);
    if (ifMatch === null ? current !== undefined : current?.etag !== ifMatch) {
      throw DRIVE_ERRORS.precondition(`${name} changed on the drive since it was read.`, { details: { name } });
    }
  };
  return {
    id: `memory:${id}`,
    async changes(cursor: DriveCursor | null) {
      const since = typeof cursor === 'number' ? cursor : 0;
      const changed = [...files].filter(([, f]) => f.seq > since).map(([name, f]) => ({ name, etag: f.etag }));
      return { files: changed, cursor: seq };
    },
    async read(name) {
      const file = files.get(name);
      return file ? { text: file.text, etag: file.etag } : null;
    },
    async write(name, text, ifMatch) {
      check(name, ifMatch);
      seq += 1;
      files.set(name, { text, etag: `"${seq}"`, seq });
    },
    async delete(name, ifMatch) {
      check(name, ifMatch);
      files.delete(name);
    },
  };
}
