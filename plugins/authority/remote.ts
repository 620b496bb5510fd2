import { authenticatedFetch, type SyncAuth } from '../sync/index.js';
import type { NumberBlock } from './counters.js';
import { KERNEL_ERRORS } from '../../index.js';
import { AUTHORITY_ERRORS } from './errors.js';

export interface ConnectOptions {
  /** the node: its origin (`http://127.0.0.1:5000`) or its database URL (`…/db/docstack`) */
  remote: string;
  auth?: SyncAuth;
  /**
   * numbers fetched per request and kept for the next creates (default 1: each document asks
   * the node, numbers follow creation order across devices; more: fewer round trips, and the
   * numbers of a block not used before the stack closes are a gap)
   */
  blockSize?: number;
  /** how long a create waits for the node before it writes the document pending (default 3,000 ms) */
  timeoutMs?: number;
  /**
   * the tenant whose database the numbers and claims belong to (sent as `X-Docstack-Tenant`);
   * absent: the node's default database, which a tenant member may not reach (403)
   */
  tenant?: string;
}

export interface ClaimAnswer {
  claimed: boolean;
  /**
   * the document that holds the value (the claimant when claimed); absent on a refusal when the
   * holder is not a stored document the caller may read (the node names no one else's ids)
   */
  id?: string;
}

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** A client's line to its node's authority routes (`/api/private/sequences`, `/api/private/unique`). */
export class AuthorityRemote {
  private readonly origin: string;
  private readonly fetch: Fetch;
  private readonly blocks = new Map<string, NumberBlock>();
  private readonly drawing = new Map<string, Promise<unknown>>();

  constructor(private readonly options: ConnectOptions) {
    let url: URL;
    try {
      url = new URL(options.remote);
    } catch {
      throw KERNEL_ERRORS.stackOptionsInvalid('authority.connect needs { remote: "http(s)://host[:port]" }.', { path: 'remote' });
    }
    if (!/^https?:$/.test(url.protocol)) throw KERNEL_ERRORS.stackOptionsInvalid('authority.connect needs an http(s) remote.', { path: 'remote' });
    this.origin = url.origin;
    const base = (u: string | Request, init?: RequestInit) => globalThis.fetch(u, init);
    this.fetch = authenticatedFetch(options.remote, options.auth, base) as Fetch;
  }

  /** Numbers from the node: `count` of them in one block (DS_AUTHORITY_OFFLINE when it cannot be asked). */
  async next(name: string, count = 1): Promise<NumberBlock> {
    return (await this.post(`/api/private/sequences/${encodeURIComponent(name)}/next?count=${count}`, {})) as NumberBlock;
  }

  /** One number for a create: from the block kept for this sequence, else a new block. */
  draw(name: string): Promise<number> {
    // one draw at a time per sequence, so a block is never fetched twice
    const previous = this.drawing.get(name) ?? Promise.resolve();
    const result = previous.catch(() => undefined).then(async () => {
      let block = this.blocks.get(name);
      if (!block || block.first > block.last) {
        block = await this.next(name, this.options.blockSize ?? 1);
        this.blocks.set(name, block);
      }
      return block.first++;
    });
    this.drawing.set(name, result);
    return result;
  }

  claim(className: string, attribute: string, value: unknown, id?: string): Promise<ClaimAnswer> {
    return this.post(`/api/private/unique/${encodeURIComponent(className)}/${encodeURIComponent(attribute)}`, { value, ...(id ? { id } : {}) }) as Promise<ClaimAnswer>;
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? 3000);
    let res: Response;
    try {
      res = await this.fetch(`${this.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(this.options.tenant ? { 'x-docstack-tenant': this.options.tenant } : {}) }, body: JSON.stringify(body), signal, credentials: 'include' });
    } catch (err) {
      throw AUTHORITY_ERRORS.authorityOffline(`The node at ${this.origin} could not be reached.`, { cause: err });
    }
    const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      throw AUTHORITY_ERRORS.authorityOffline(`The node at ${this.origin} answered ${res.status}${typeof answer.code === 'string' ? ` (${answer.code})` : ''}.`, { details: { status: res.status, code: answer.code } });
    }
    return answer;
  }
}
