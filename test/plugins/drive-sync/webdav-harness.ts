import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach } from 'vitest';
import { v2 as webdav } from 'webdav-server';

/**
 * A real WebDAV server (webdav-server, in memory) on 127.0.0.1, port 0, behind a thin HTTP layer
 * that does two things:
 *
 * - RFC 7232 preconditions, which webdav-server 2.6 leaves out and Nextcloud and Apache do:
 *   `ETag` on GET (a hash of the content: strong, changes with every different write) and
 *   `If-Match` / `If-None-Match: *` on PUT and DELETE, checked and applied under one lock per
 *   path — the compare-and-swap the adapter relies on;
 * - faults, injected at HTTP level on the requests a rule matches: an answer (412, 429 with
 *   Retry-After, 503) instead of the server's, or an upload cut short (the server gets half the
 *   body, then the connection drops — it is left with an empty new file or its old content).
 */
export interface Fault {
  method?: string;
  /** on request paths this matches (default any) */
  path?: RegExp;
  /** how many matching requests it hits (default 1) */
  times?: number;
  /** matching requests let through before it hits (default 0) */
  after?: number;
  action: { status: number; headers?: Record<string, string> } | 'cut';
}

export interface Drive {
  /** the folder URL to give webdavAdapter */
  url: string;
  inject(fault: Fault): void;
  /** every request the layer saw: "METHOD /path" (faulted ones too) */
  log: string[];
  /** a file's content and ETag as the server holds it (null: none) */
  file(name: string): { text: string; etag: string } | null;
  /** the file names in the folder */
  names(): string[];
  /** false: GET answers carry no ETag (some servers give it only through PROPFIND) */
  etagOnGet: boolean;
}

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

type Resource = { content: Uint8Array[]; type: { isDirectory: boolean } };

function etagOf(resource: Resource | undefined): string | null {
  if (!resource || resource.type.isDirectory) return null;
  return `"${createHash('sha256').update(Buffer.concat(resource.content).toString('base64')).digest('hex').slice(0, 32)}"`;
}

/** `user`: the server asks for HTTP Basic and knows this one user (an admin of the whole tree). */
export async function startDrive(options: { folder?: string; user?: { username: string; password: string } } = {}): Promise<Drive> {
  const folder = options.folder ?? 'docstack';
  const fs = new webdav.VirtualFileSystem();
  const users = new webdav.SimpleUserManager();
  const rights = new webdav.SimplePathPrivilegeManager();
  if (options.user) rights.setRights(users.addUser(options.user.username, options.user.password, false), '/', ['all']);
  const dav = new webdav.WebDAVServer({
    rootFileSystem: fs,
    ...(options.user ? { httpAuthentication: new webdav.HTTPBasicAuthentication(users, 'drive'), privilegeManager: rights } : {}),
  });
  const resources = () => (fs as unknown as { resources: Record<string, Resource> }).resources;
  // PROPFIND's getetag is the same content hash the precondition layer compares (webdav-server's
  // default, a hash of the modification date, can repeat within one millisecond)
  Object.assign(fs, {
    _etag: (path: { toString(): string }, _info: unknown, callback: (error: Error | null, etag?: string) => void) => callback(null, etagOf(resources()[path.toString()]) ?? '""'),
  });
  const faults: Array<Required<Pick<Fault, 'times' | 'after'>> & Fault> = [];
  const log: string[] = [];
  const locks = new Map<string, Promise<void>>();

  const take = (req: IncomingMessage, path: string) => {
    const fault = faults.find((f) => f.times > 0 && (!f.method || f.method === req.method) && (!f.path || f.path.test(path)));
    if (!fault) return undefined;
    if (fault.after > 0) {
      fault.after -= 1;
      return undefined;
    }
    fault.times -= 1;
    return fault;
  };

  /** Runs `work` alone on `path`: the precondition check and the write it allows are one step. */
  const exclusive = async (path: string, work: () => Promise<void>) => {
    const before = locks.get(path) ?? Promise.resolve();
    const mine = before.then(work, work);
    locks.set(path, mine.catch(() => undefined));
    await mine;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    log.push(`${req.method} ${path}`);
    const fault = take(req, path);
    if (fault && fault.action !== 'cut') {
      req.resume();
      res.writeHead(fault.action.status, fault.action.headers ?? {}).end();
      return;
    }
    const cut = fault?.action === 'cut';
    const run = () =>
      new Promise<void>((resolve) => {
        res.on('close', () => resolve());
        const etag = etagOf(resources()[path]);
        if (req.method === 'GET' && etag && drive.etagOnGet) res.setHeader('ETag', etag);
        if (req.method === 'PUT' || req.method === 'DELETE') {
          const ifMatch = req.headers['if-match'];
          const ifNoneMatch = req.headers['if-none-match'];
          if ((ifMatch !== undefined && ifMatch !== etag) || (ifNoneMatch === '*' && etag !== null)) {
            req.resume();
            res.writeHead(412).end();
            return;
          }
        }
        if (!cut) {
          dav.executeRequest(req, res);
          return;
        }
        // the upload is cut short: the server reads half of the body, then the connection drops
        const length = Number(req.headers['content-length'] ?? 0);
        const partial = Object.assign(new PassThrough(), { method: req.method, url: req.url, headers: req.headers, httpVersion: req.httpVersion, socket: req.socket });
        dav.executeRequest(partial, res);
        let received = 0;
        req.on('data', (chunk: Buffer) => {
          const room = Math.max(0, Math.floor(length / 2) - received);
          if (room > 0) partial.write(chunk.subarray(0, room));
          received += chunk.length;
          if (received >= length / 2) {
            partial.destroy();
            req.socket.destroy();
          }
        });
      });
    await exclusive(path, run);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => server.close() });
  server.unref();
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${folder}/`;
  const drive: Drive = {
    etagOnGet: true,
    url: base,
    inject: (fault) => faults.push({ ...fault, times: fault.times ?? 1, after: fault.after ?? 0 }),
    log,
    file(name) {
      const resource = resources()[`/${folder}/${name}`];
      const etag = etagOf(resource);
      return etag === null ? null : { text: Buffer.concat(resource.content).toString('utf8'), etag };
    },
    names: () =>
      Object.keys(resources())
        .filter((p) => p.startsWith(`/${folder}/`))
        .map((p) => p.slice(folder.length + 2)),
  };
  return drive;
}
