import { Webhook } from 'standardwebhooks';
import { type ClientStack } from '../../index.js';
import { isPlainObject } from '../../kit/index.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { SecretStore } from '../secrets/store.js';

export const ENDPOINT_CLASS = '~WebhookEndpoint';
export const OPERATIONS = ['create', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A registered endpoint as stored (server-private). Its signing secret is in the secret store. */
export interface EndpointDoc {
  _id: string;
  _rev?: string;
  '~class': typeof ENDPOINT_CLASS;
  url: string;
  /** class names, or ["*"] for every application class */
  classes: string[];
  operations: Operation[];
  /** extra headers whose values are secrets of the store, by name: { "Authorization": "crm-token" } */
  secretHeaders: Record<string, string>;
  /** set by a 410 answer (or an admin); a disabled endpoint gets no new deliveries */
  disabled: boolean;
  disabledReason?: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
}

/** What the admin API shows of an endpoint: never its secret. */
export function publicEndpoint(doc: EndpointDoc) {
  const { _rev: _r, '~class': _c, _id, ...rest } = doc;
  return { id: _id, ...rest };
}

export const signingSecretName = (endpointId: string) => `~webhook.${endpointId.slice(ENDPOINT_CLASS.length + 1)}`;

const invalid = (message: string, path: string) => SERVER_ERRORS.webhookInvalid(message, { path });
const CLASS_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const HEADER = /^[A-Za-z0-9-]{1,100}$/;
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);

/** Checks a signing secret the way the receiver's verifier will read it (base64, optional whsec_). */
function checkSigningSecret(secret: unknown): string {
  if (typeof secret !== 'string' || secret.length > 200) throw invalid('secret must be a base64 key such as "whsec_…" (24 to 64 bytes).', 'secret');
  const raw = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  if (bytes.length < 24 || bytes.length > 64) throw invalid('secret must be a base64 key such as "whsec_…" (24 to 64 bytes).', 'secret');
  new Webhook(secret); // the package accepts it
  return secret;
}

export interface EndpointInput {
  url?: unknown;
  classes?: unknown;
  operations?: unknown;
  secret?: unknown;
  secretHeaders?: unknown;
  disabled?: unknown;
  description?: unknown;
}

/** The fields an admin sent, checked; `partial` for a PATCH. */
export function checkEndpointInput(input: unknown, partial: boolean): { fields: Partial<EndpointDoc>; secret?: string } {
  if (!isPlainObject(input)) throw invalid('The body must be a JSON object { url, classes, operations?, secret }.', '');
  const body = input as EndpointInput;
  const fields: Partial<EndpointDoc> = {};
  if (body.url !== undefined || !partial) {
    let url: URL | null = null;
    try {
      url = typeof body.url === 'string' && body.url.length <= 2000 ? new URL(body.url) : null;
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password) throw invalid('url must be an http(s) URL without credentials in it (put them in a secret header).', 'url');
    fields.url = url.href;
  }
  if (body.classes !== undefined || !partial) {
    const classes = body.classes;
    if (!Array.isArray(classes) || classes.length === 0 || classes.length > 200 || !classes.every((c) => c === '*' || (typeof c === 'string' && CLASS_NAME.test(c)))) {
      throw invalid('classes must be a list of application class names, or ["*"] for all of them.', 'classes');
    }
    fields.classes = [...new Set(classes as string[])];
  }
  if (body.operations !== undefined || !partial) {
    const ops = body.operations ?? [...OPERATIONS];
    if (!Array.isArray(ops) || ops.length === 0 || !ops.every((o) => (OPERATIONS as readonly unknown[]).includes(o))) throw invalid('operations must be a list of create, update, delete.', 'operations');
    fields.operations = [...new Set(ops as Operation[])];
  }
  if (body.secretHeaders !== undefined || !partial) {
    const headers = body.secretHeaders ?? {};
    if (!isPlainObject(headers) || Object.keys(headers).length > 20) throw invalid('secretHeaders must be an object { "Header-Name": "secret name" }.', 'secretHeaders');
    for (const [name, secret] of Object.entries(headers)) {
      if (!HEADER.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) throw invalid(`"${name}" cannot be a secret header.`, `secretHeaders.${name}`);
      SecretStore.checkName(secret);
    }
    fields.secretHeaders = headers as Record<string, string>;
  }
  if (body.disabled !== undefined) {
    if (typeof body.disabled !== 'boolean') throw invalid('disabled must be true or false.', 'disabled');
    fields.disabled = body.disabled;
  }
  if (body.description !== undefined) {
    if (typeof body.description !== 'string' || body.description.length > 500) throw invalid('description must be text (500 characters at most).', 'description');
    fields.description = body.description;
  }
  if (body.secret === undefined && !partial) throw invalid('secret is required: the key deliveries are signed with (Standard Webhooks, "whsec_…").', 'secret');
  return { fields, ...(body.secret !== undefined ? { secret: checkSigningSecret(body.secret) } : {}) };
}

/** The endpoints of a stack, read through the storage facade (engine-owned documents). */
export class EndpointStore {
  constructor(private readonly stack: ClientStack) {}

  async list(): Promise<EndpointDoc[]> {
    const rows = await this.stack.storage.range({ prefix: `${ENDPOINT_CLASS}-`, includeDocs: true });
    return rows.map((r) => r.doc as unknown as EndpointDoc);
  }

  get(id: string): Promise<EndpointDoc | null> {
    return id.startsWith(`${ENDPOINT_CLASS}-`) ? this.stack.storage.get<EndpointDoc>(id) : Promise.resolve(null);
  }

  async put(doc: EndpointDoc): Promise<EndpointDoc> {
    const rev = await this.stack.storage.put(doc);
    return { ...doc, _rev: rev };
  }

  async remove(doc: EndpointDoc): Promise<void> {
    if (doc._rev) await this.stack.storage.remove(doc._id, doc._rev);
  }
}
