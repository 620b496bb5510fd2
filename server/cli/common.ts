/**
 * What every `docstack` command shares: the settings (.env and the environment, as `npm start`
 * reads them), the node's store opened beside no running node, or the running node reached
 * through its HTTP API with an admin login when it holds the store (DS_STORAGE_LOCKED).
 */
import { createStack, type ClientStack, DocstackError } from '../../index.js';
import { server as serverPreset } from '../../plugins.config.js';
import { appPlugins, loadAppConfig } from '../app-config.js';
import { loadConfig } from '../config.js';
import type { ServerConfig } from '../context.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { tenantDataDir, tenantStoreName } from '../tenants/names.js';

export type Values = Record<string, string | boolean | undefined>;

/** A command's output: lines to print (stdout) — tests read them. */
export type Out = (line: string) => void;

/** An error the node answered (its code and reason), or a CLI refusal: printed as `CODE: message`. */
export function describeError(err: unknown): string {
  if (err instanceof DocstackError) return `${err.code}: ${err.message}`;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('DS_') ? `${code}: ${(err as Error).message}` : String((err as Error)?.message ?? err);
}

/** The first line of standard input when it is piped (a password), else null. */
export async function readStdinLine(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const line = text.split(/\r?\n/)[0] ?? '';
  return line === '' ? null : line;
}

/** The node's settings; `--data-dir` and `--stack` win over DATA_DIR and STACK_NAME. */
export function cliConfig(values: Values): ServerConfig {
  const env = { ...process.env };
  if (typeof values['data-dir'] === 'string') env.DATA_DIR = values['data-dir'];
  if (typeof values.stack === 'string') env.STACK_NAME = values.stack;
  return loadConfig(env);
}

/** The store of the node (or of one of its tenants) opened here, with the app's plugins (DOCSTACK_CONFIG). */
export async function openStore(config: ServerConfig, tenant?: string): Promise<ClientStack> {
  const app = process.env.DOCSTACK_CONFIG ? await loadAppConfig(process.env.DOCSTACK_CONFIG) : {};
  const plugins = appPlugins(serverPreset, app);
  if (tenant) return createStack({ name: tenantStoreName(config.stackName, tenant), adapter: 'leveldb', dataDir: tenantDataDir(config.dataDir, config.stackName), plugins });
  return createStack({ name: config.stackName, adapter: 'leveldb', dataDir: config.dataDir, plugins });
}

/** A running node reached over HTTP with an admin's Basic credentials. */
export interface NodeClient {
  url: string;
  stackName: string;
  authorization: string;
  /** a JSON request; a refusal is thrown with the node's code and reason */
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

/** The URL the node listens on, as its settings say (a wildcard host is reached on loopback). */
export function configuredUrl(config: ServerConfig): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

export function nodeClient(config: ServerConfig, values: Values): NodeClient {
  const url = String(values.url ?? process.env.DOCSTACK_URL ?? configuredUrl(config)).replace(/\/+$/, '');
  const admin = String(values.admin ?? process.env.DOCSTACK_ADMIN ?? config.adminUsername ?? 'admin');
  const password = process.env.DOCSTACK_ADMIN_PASSWORD;
  if (!password) {
    throw SERVER_ERRORS.authRequired(`Reaching the node at ${url} needs an admin's password in DOCSTACK_ADMIN_PASSWORD (the admin is --admin, DOCSTACK_ADMIN or ADMIN_USERNAME: ${JSON.stringify(admin)}).`);
  }
  const authorization = `Basic ${Buffer.from(`${admin}:${password}`).toString('base64')}`;
  return {
    url,
    stackName: config.stackName,
    authorization,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await fetch(`${url}${path}`, {
          method,
          headers: { authorization, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (err) {
        throw SERVER_ERRORS.nodeUnreachable(`No node answers at ${url} (${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}); pass its URL with --url or DOCSTACK_URL.`);
      }
      const answer = (await res.json().catch(() => null)) as { code?: string; reason?: string } | null;
      if (!res.ok) throw Object.assign(new Error(answer?.reason ?? `${method} ${path} answered ${res.status}`), { code: answer?.code ?? `HTTP ${res.status}` });
      return answer as T;
    },
  };
}

/** Where a command acts: the store opened here, or the node that holds it. */
export type Target = { kind: 'store'; stack: ClientStack } | { kind: 'node'; node: NodeClient };

const isLocked = (err: unknown): boolean => err instanceof DocstackError && err.code === 'DS_STORAGE_LOCKED';

/**
 * `--url` given: the node. Otherwise the store — and when a running node holds it, that node
 * through its API (an admin login in DOCSTACK_ADMIN_PASSWORD), or a refusal that says so.
 */
export async function openTarget(config: ServerConfig, values: Values, options: { tenant?: string } = {}): Promise<Target> {
  if (values.url !== undefined || process.env.DOCSTACK_URL) return { kind: 'node', node: nodeClient(config, values) };
  try {
    return { kind: 'store', stack: await openStore(config, options.tenant) };
  } catch (err) {
    if (!isLocked(err)) throw err;
    if (process.env.DOCSTACK_ADMIN_PASSWORD) return { kind: 'node', node: nodeClient(config, values) };
    throw Object.assign(err as DocstackError, {
      message: `${(err as Error).message} A running node holds the store: set DOCSTACK_ADMIN_PASSWORD (an admin's password) so the command goes through the node's API (--url when it does not listen on ${configuredUrl(config)}), or stop the node.`,
    });
  }
}

export async function closeTarget(target: Target): Promise<void> {
  if (target.kind === 'store') await target.stack.close();
}
