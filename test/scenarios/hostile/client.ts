/**
 * The HTTP client of the hostile-load scenario (test/server/attack/load.test.ts) and its bench
 * (bench/hostile-load.ts). No vitest import: the bench runs it outside the test runner.
 *
 * Built on node:http rather than fetch for one reason: `from`, the local address a request leaves
 * from. The whole 127.0.0.0/8 block is loopback on Linux, so an attacker at 127.0.0.66 and a
 * normal client at 127.0.0.1 reach the same node on 127.0.0.1 and the node sees two addresses —
 * what lets a per-address login limiter tell them apart, as it would on a network.
 *
 * A call never rejects and never hangs: every request has a deadline (AbortSignal.timeout), and
 * a timeout or a network error is an Answer with status 0 and `failure` set.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Answer {
  /** the HTTP status, or 0 when no answer came (see `failure`) */
  status: number;
  /** from the request's start to its body's last byte (or the failure) */
  ms: number;
  text: string;
  /** the body parsed as JSON, or undefined when it is not JSON */
  json: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** 'timeout' or the network error's message, when status is 0 */
  failure?: string;
}

export interface CallOptions {
  method?: string;
  /** a Bearer token */
  token?: string;
  /** the X-Docstack-Tenant header: the REST and SQL routes then serve that tenant's stack */
  tenant?: string;
  body?: unknown;
  /** the local address the request leaves from (default 127.0.0.1) */
  from?: string;
  /** the request's deadline (default 30 s) */
  timeoutMs?: number;
  /**
   * A connection of its own instead of a kept-alive one. A prober wants it: when the node's
   * event loop is held, a kept-alive socket can be closed by the node's idle timer just as a
   * request is sent on it (ECONNRESET), which measures the socket race rather than the answer.
   */
  fresh?: boolean;
}

/** One keep-alive agent per source address, as a browser keeps its connections. */
const agents = new Map<string, Agent>();
function agentFor(from: string): Agent {
  let agent = agents.get(from);
  if (!agent) {
    agent = new Agent({ keepAlive: true });
    agents.set(from, agent);
  }
  return agent;
}

/** Closes the idle connections of every agent (the end of a run). */
export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

export function call(origin: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const { method = 'GET', token, tenant, body, from = '127.0.0.1', timeoutMs = 30_000, fresh = false } = options;
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (tenant) headers['x-docstack-tenant'] = tenant;
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  const start = performance.now();
  const answer = (fields: Omit<Answer, 'ms'>): Answer => ({ ...fields, ms: performance.now() - start });
  return new Promise<Answer>((resolve) => {
    const req = request(`${origin}${path}`, { method, headers, localAddress: from, agent: fresh ? false : agentFor(from), signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (err) => resolve(answer({ status: 0, text: '', json: undefined, headers: {}, failure: failureOf(err) })));
      res.on('end', () => {
        resolve(answer({ status: res.statusCode ?? 0, text, json: parseJson(text), headers: res.headers }));
      });
    });
    req.on('error', (err) => resolve(answer({ status: 0, text: '', json: undefined, headers: {}, failure: failureOf(err) })));
    req.end(payload);
  });
}

function failureOf(err: Error): string {
  return err.name === 'TimeoutError' || err.name === 'AbortError' ? 'timeout' : err.message;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What is wrong with an answer by the node's contract (docs/errors.md), or null when nothing is:
 * a 2xx, or a refusal — a 4xx, 429 or 503 whose body is JSON `{ error, reason, code }`.
 */
export function contractBreach(answer: Answer): string | null {
  if (answer.status === 0) return `no answer (${answer.failure})`;
  if (answer.status >= 200 && answer.status < 300) return null;
  if (!(answer.status >= 400 && answer.status < 500) && answer.status !== 503) return `status ${answer.status}: ${answer.text.slice(0, 200)}`;
  const body = answer.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return `status ${answer.status} without a JSON body: ${JSON.stringify(answer.text.slice(0, 200))}`;
  const missing = ['error', 'reason', 'code'].filter((key) => typeof body[key] !== 'string' || body[key] === '');
  return missing.length === 0 ? null : `status ${answer.status} without ${missing.join(', ')}: ${answer.text.slice(0, 200)}`;
}

/** The code of a coded refusal, or null. */
export function refusalCode(answer: Answer): string | null {
  const body = answer.json as { code?: unknown } | undefined;
  return answer.status >= 400 && typeof body?.code === 'string' ? body.code : null;
}
