import type { ClientStack } from '../../index.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import type { ClassSource } from './types-gen.js';

/** The application classes (not the engine's `~…` ones nor the meta-classes) among class documents. */
const isAppClass = (doc: Record<string, unknown>): boolean =>
  typeof doc.name === 'string' && !doc.name.startsWith('~') && doc.name !== 'class' && doc.name !== 'domain' && doc.active !== false;

/** The class documents of an open stack. */
export async function classesOfStack(stack: ClientStack): Promise<ClassSource[]> {
  const docs = (await stack.findDocuments('class')) as unknown as Array<Record<string, unknown>>;
  return docs.filter(isAppClass) as unknown as ClassSource[];
}

async function getJson(url: string, authorization: string): Promise<unknown> {
  const res = await fetch(url, { headers: { authorization, accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as { code?: string; message?: string; reason?: string } | null;
  if (!res.ok) throw SERVER_ERRORS.requestInvalid(`${url} answered ${res.status}${body?.code ? ` ${body.code}` : ''}: ${body?.message ?? body?.reason ?? 'no message'}`);
  return body;
}

/**
 * The class documents a running node serves to this login: the class names from its OpenAPI
 * description (the classes the caller may read), each class document from the replication
 * endpoint `/db/<stackName>/<class>` (class documents are read by everyone who syncs).
 */
export async function classesOfNode(url: string, authorization: string, stackName: string): Promise<ClassSource[]> {
  const base = url.replace(/\/+$/, '');
  const openapi = (await getJson(`${base}/api/openapi.json`, authorization)) as { paths?: Record<string, unknown> };
  const names = Object.keys(openapi.paths ?? {}).flatMap((path) => /^\/api\/private\/docs\/([^/{}]+)$/.exec(path)?.[1] ?? []).filter((n) => n !== 'sql');
  const docs = await Promise.all(names.map((name) => getJson(`${base}/db/${encodeURIComponent(stackName)}/${encodeURIComponent(name)}`, authorization)));
  return (docs as Array<Record<string, unknown>>).filter(isAppClass) as unknown as ClassSource[];
}
