/**
 * What a drive must offer for `stack.driveSync`: a flat folder of named files with an ETag per
 * version, conditional writes, and a way to list what changed since a cursor. WebDAV
 * (webdavAdapter), Google Drive (files in the app folder: `changes.list` and its page token,
 * `If-Match` on `files.update`) and a memory drive for tests all fit.
 */
export interface DriveAdapter {
  /**
   * Names this drive (and folder): the `_local` cursor of a stack is kept per id, so one stack can
   * sync with several drives. Stable across runs; no secret in it.
   */
  readonly id: string;
  /**
   * The files changed since `cursor` (null: every file) and the cursor after them. A cursor is
   * plain JSON, kept in the stack's `_local` document; only its adapter reads it.
   */
  changes(cursor: DriveCursor | null): Promise<{ files: DriveFileRef[]; cursor: DriveCursor }>;
  /** The file's text and the ETag of exactly that text, or null when there is no such file. */
  read(name: string): Promise<DriveFile | null>;
  /**
   * Writes the file if it is still at `ifMatch` (null: only if it does not exist). A file that
   * changed throws DS_DRIVE_PRECONDITION (HTTP 412): read, merge, write again.
   */
  write(name: string, text: string, ifMatch: string | null): Promise<void>;
  /** Deletes the file if it is still at `ifMatch`; DS_DRIVE_PRECONDITION when it changed. */
  delete(name: string, ifMatch: string): Promise<void>;
}

/** An adapter's cursor: whatever JSON it needs (a page token, a map of ETags). */
export type DriveCursor = string | number | boolean | null | DriveCursor[] | { [key: string]: DriveCursor };

export interface DriveFileRef {
  name: string;
  /** the version listed (the file may have changed again since: `read` tells the current one) */
  etag: string;
}

export interface DriveFile {
  text: string;
  etag: string;
}

/** Retry events an adapter reports (`onRetry` of its options): the plugin turns them into `drive:retry`. */
export interface DriveRetry {
  /** what is retried: a 429/503 back-off, a network error, a 412 merge */
  reason: 'rate-limit' | 'unavailable' | 'network' | 'precondition';
  status?: number;
  attempt: number;
  delayMs: number;
  name?: string;
}
