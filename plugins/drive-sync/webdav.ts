import type { DriveAdapter, DriveCursor, DriveFile, DriveFileRef, DriveRetry } from './adapter.js';
import { DRIVE_ERRORS } from './errors.js';
import { sendWithRetry, type RetryPolicy } from './http-retry.js';

export interface WebdavOptions extends RetryPolicy {
  /** the folder on the WebDAV server that holds this database's files, e.g. `https://cloud.example/remote.php/dav/files/ana/docstack/` (made when missing) */
  url: string;
  /** HTTP Basic (Nextcloud: an app password) or a bearer token; never logged */
  auth?: { username: string; password: string } | { token: string };
  /** a fetch of your own (a proxy, a test); default the global fetch */
  fetch?: typeof fetch;
}

/** The WebDAV adapter's cursor: the ETag of every file seen, by name (WebDAV has no changes feed). */
interface EtagCursor {
  etags: Record<string, string>;
}

const PROPFIND_BODY = '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>';

function basic(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

const decodeXml = (text: string) =>
  text.replace(/&(quot|amp|lt|gt|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };
    if (e[0] !== '#') return named[e.toLowerCase()];
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });

/** The `<response>` entries of a PROPFIND multistatus: href, ETag, and whether it is a folder. */
export function parseMultistatus(xml: string): Array<{ href: string; etag: string | null; collection: boolean }> {
  const entries: Array<{ href: string; etag: string | null; collection: boolean }> = [];
  // any namespace prefix (d:, D:, lp1:) or none; a server's XML is data, read with patterns, never evaluated
  for (const [block] of xml.matchAll(/<(?:[\w-]+:)?response\b[\s\S]*?<\/(?:[\w-]+:)?response>/g)) {
    const href = /<(?:[\w-]+:)?href\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?href>/.exec(block)?.[1];
    if (href === undefined) continue;
    const etag = /<(?:[\w-]+:)?getetag\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?getetag>/.exec(block)?.[1];
    const collection = /<(?:[\w-]+:)?resourcetype\b[^>]*>[\s\S]*?<(?:[\w-]+:)?collection\b/.test(block);
    entries.push({ href: decodeXml(href.trim()), etag: etag === undefined ? null : decodeXml(etag.trim()), collection });
  }
  return entries;
}

/**
 * A WebDAV folder as a drive (Nextcloud, ownCloud, Apache mod_dav, rclone serve…): PROPFIND lists
 * the files with their ETags, GET reads, PUT writes with `If-Match` (or `If-None-Match: *` for a
 * new file), DELETE deletes with `If-Match`. 429 and 503 answers wait (Retry-After, else
 * exponential back-off). The server must give strong ETags that change with every write.
 */
export function webdavAdapter(options: WebdavOptions): DriveAdapter & { observe(listener: (retry: DriveRetry) => void): () => void } {
  if (!options || typeof options.url !== 'string' || !/^https?:\/\//.test(options.url)) {
    throw DRIVE_ERRORS.options('webdavAdapter needs { url: "http(s)://host/folder/" }.', { path: 'url' });
  }
  const folder = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
  // fetch refuses a URL with credentials in it: `https://ana:secret@host/…` becomes Basic auth
  const inUrl = folder.username ? { username: decodeURIComponent(folder.username), password: decodeURIComponent(folder.password) } : undefined;
  folder.username = '';
  folder.password = '';
  const auth = options.auth ?? inUrl;
  const authorization = auth === undefined ? undefined : 'token' in auth ? `Bearer ${auth.token}` : basic(auth.username, auth.password);
  const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const listeners = new Set<(retry: DriveRetry) => void>();
  const report = (name?: string) => (retry: DriveRetry) => {
    for (const listener of listeners) listener(name !== undefined ? { ...retry, name } : retry);
  };

  const request = (method: string, url: URL, headers: Record<string, string> = {}, body?: string, name?: string) =>
    sendWithRetry(
      () => baseFetch(url, { method, headers: { ...(authorization ? { authorization } : {}), ...headers }, ...(body !== undefined ? { body } : {}) }),
      options,
      report(name),
      `${method} ${name ?? 'folder'}`,
    );
  const fail = async (res: Response, what: string) => {
    await res.body?.cancel().catch(() => undefined);
    return DRIVE_ERRORS.http(`${what}: the drive answered HTTP ${res.status}.`, { details: { status: res.status } });
  };
  const fileUrl = (name: string) => new URL(encodeURIComponent(name), folder);

  const propfind = async (url: URL, depth: '0' | '1') => {
    const res = await request('PROPFIND', url, { depth, 'content-type': 'application/xml; charset=utf-8' }, PROPFIND_BODY);
    if (res.status === 404) {
      await res.body?.cancel().catch(() => undefined);
      return null;
    }
    if (res.status !== 207) throw await fail(res, `PROPFIND ${url.pathname}`);
    return parseMultistatus(await res.text());
  };

  let ready: Promise<void> | null = null;
  /** The folder, made on first use (MKCOL); a parallel first use waits for the same one. */
  const ensureFolder = () =>
    (ready ??= (async () => {
      if ((await propfind(folder, '0')) !== null) return;
      const res = await request('MKCOL', folder);
      await res.body?.cancel().catch(() => undefined);
      if (!res.ok && res.status !== 405) throw await fail(res, `MKCOL ${folder.pathname}`);
    })().catch((err) => {
      ready = null;
      throw err;
    }));

  return {
    id: `webdav:${folder.href}`,
    observe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async changes(cursor: DriveCursor | null) {
      await ensureFolder();
      const seen = (cursor as EtagCursor | null)?.etags ?? {};
      const listed = (await propfind(folder, '1')) ?? [];
      const etags: Record<string, string> = {};
      const files: DriveFileRef[] = [];
      for (const entry of listed) {
        if (entry.collection || entry.etag === null) continue;
        const path = new URL(entry.href, folder).pathname;
        if (!path.startsWith(folder.pathname) || path === folder.pathname) continue;
        const name = decodeURIComponent(path.slice(folder.pathname.length));
        if (name.includes('/')) continue;
        etags[name] = entry.etag;
        if (seen[name] !== entry.etag) files.push({ name, etag: entry.etag });
      }
      return { files, cursor: { etags } satisfies EtagCursor };
    },

    async read(name: string): Promise<DriveFile | null> {
      const get = async () => {
        const res = await request('GET', fileUrl(name), {}, undefined, name);
        if (res.status === 404) {
          await res.body?.cancel().catch(() => undefined);
          return null;
        }
        if (res.status !== 200) throw await fail(res, `GET ${name}`);
        return { text: await res.text(), etag: res.headers.get('etag') };
      };
      const first = await get();
      if (first === null || first.etag !== null) return first as DriveFile | null;
      // no ETag on GET: ask for it first, then read again — the text is then at least as new as
      // the ETag, so a write conditional on it cannot overwrite a version this device never read
      const listed = await propfind(fileUrl(name), '0');
      const etag = listed?.[0]?.etag;
      if (!etag) throw DRIVE_ERRORS.http(`The drive gives no ETag for ${name}: conditional writes are impossible.`, { details: { name } });
      const second = await get();
      return second === null ? null : { text: second.text, etag };
    },

    async write(name: string, text: string, ifMatch: string | null) {
      await ensureFolder();
      const condition: Record<string, string> = ifMatch === null ? { 'if-none-match': '*' } : { 'if-match': ifMatch };
      const res = await request('PUT', fileUrl(name), { 'content-type': 'application/json', ...condition }, text, name);
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 412) throw DRIVE_ERRORS.precondition(`${name} changed on the drive since it was read.`, { details: { name } });
      if (!res.ok) throw await fail(res, `PUT ${name}`);
    },

    async delete(name: string, ifMatch: string) {
      const res = await request('DELETE', fileUrl(name), { 'if-match': ifMatch }, undefined, name);
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 412) throw DRIVE_ERRORS.precondition(`${name} changed on the drive since it was read.`, { details: { name } });
      if (!res.ok && res.status !== 404) throw await fail(res, `DELETE ${name}`);
    },
  };
}
