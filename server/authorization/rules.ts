import { type ClassModel, type DocstackError, type ErrorFactory } from '../../index.js';
import { SERVER_ERRORS } from '../errors-codes.js';
import { isSealed } from '../../plugins.config.js';
import type { Caller } from './caller.js';
import { META_CLASS_IDS, type WriteSubject } from './subjects.js';

/**
 * The one authorization check of the node. Every write that reaches it from outside — a
 * replicated document, a PUT, a private route — is put to `authorize` before it is validated.
 * The rules (docs/server-auth.md#who-may-write-what):
 * - the meta-classes' documents are never changed over HTTP, not even by an admin;
 * - engine-internal documents (`~` classes, `_local/~…`) are written by the engine itself and
 *   its own routes only, never by a peer's push;
 * - the schema (class and domain documents) is changed by admins only;
 * - documents of application classes and their relations by any authenticated user;
 * - a keyring document (`~Keyring-<random>`) by its owner only (server/authorization/keyring-owners.ts).
 */
export type Action =
  | { type: 'write'; subject: WriteSubject }
  /** a schema route: create-class, create-attribute */
  | { type: 'schema'; className: string }
  /** an admin route: reset, clear, user management */
  | { type: 'admin'; what: string }
  /** acting on what belongs to one user (a session, a password): that user or an admin */
  | { type: 'own'; ownerId: string; what: string }
  /** reaching a tenant's stack (`/db/<tenant>`, a route scoped to a tenant): its members and admins */
  | { type: 'tenant'; tenant: string }
  /**
   * reaching the node's default stack (`/db/<STACK_NAME>`, routes over its documents): everyone
   * but a member of tenants, who reaches only their tenants (an admin reaches everything)
   */
  | { type: 'default-stack' };

export function authorize(caller: Caller, action: Action): void {
  switch (action.type) {
    case 'admin':
      if (!caller.admin) throw forbidden(SERVER_ERRORS.authzAdmin, `Only an admin may ${action.what}.`);
      return;
    case 'own':
      if (!caller.admin && caller.userId !== action.ownerId) throw forbidden(SERVER_ERRORS.authzSession, `Only its owner or an admin may ${action.what}.`);
      return;
    case 'schema':
      return authorizeSchemaName(caller, action.className);
    case 'default-stack':
      if (!caller.admin && caller.tenants.length > 0) throw forbidden(SERVER_ERRORS.authzTenant, 'A member of tenants reaches only the databases of their tenants (/db/<tenant>), not the default one.', 'tenant');
      return;
    case 'tenant':
      if (!caller.admin && !caller.tenants.includes(action.tenant)) throw forbidden(SERVER_ERRORS.authzTenant, `You are not a member of the tenant ${JSON.stringify(action.tenant)}.`, 'tenant');
      return;
    case 'write':
      return authorizeSubject(caller, action.subject);
  }
}

function authorizeSchemaName(caller: Caller, className: string): void {
  if (META_CLASS_IDS.has(className)) {
    throw forbidden(SERVER_ERRORS.authzMetaClass, `"${className}" is a meta-class; it cannot be changed over HTTP.`, className);
  }
  if (className.startsWith('~')) {
    throw forbidden(SERVER_ERRORS.authzInternal, `"${className}" is an engine-internal class; it is managed by the engine.`, className);
  }
  if (!caller.admin) throw forbidden(SERVER_ERRORS.authzSchema, `Only an admin may change the schema (class "${className}").`, className);
}

function authorizeSubject(caller: Caller, subject: WriteSubject): void {
  switch (subject.kind) {
    case 'meta':
      throw forbidden(SERVER_ERRORS.authzMetaClass, `"${subject.id}" is a meta-class document; the engine writes it, never a peer.`, subject.id);
    case 'internal':
      throw forbidden(SERVER_ERRORS.authzInternal, `"${subject.id}" belongs to the engine-internal class ${subject.className}; a peer cannot write it.`, subject.id);
    case 'schema':
      if (!caller.admin) throw forbidden(SERVER_ERRORS.authzSchema, `Only an admin may change the schema (${subject.what} document "${subject.id}").`, subject.id);
      return;
    case 'keyring':
      // only over replication, where the admission looked the owner up; never by another user, admins included
      if (subject.owner === undefined || caller.userId === '' || (subject.owner !== null && subject.owner !== caller.userId)) {
        throw forbidden(SERVER_ERRORS.authzKeyring, `"${subject.id}" is a keyring: only its owner's devices write it, by replication.`, subject.id);
      }
      return;
    case 'checkpoint':
    case 'relation':
    case 'data':
      return;
  }
}

/**
 * Encrypted attributes travel sealed: a peer that sends plaintext for one (or anything that
 * is not exactly a sealed payload) is refused, so the node never stores a secret in clear and
 * never stores a value no key-holder could open.
 */
export function refusePlaintext(model: ClassModel, doc: Record<string, unknown>): void {
  for (const attribute of Object.values(model.schema)) {
    if (attribute.encrypted !== true) continue; // the encryption plugin's config key
    const value = doc[attribute.name];
    if (value === undefined || value === null) continue;
    if (!isSealedPayload(value)) {
      throw forbidden(SERVER_ERRORS.authzPlaintext, `"${attribute.name}" of ${model.name} is encrypted: a peer must send it sealed, never in clear.`, attribute.name);
    }
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Exactly `{ "~enc": 1, scope, kid, iv, ct }`, strings where strings belong, nothing else. */
function isSealedPayload(value: unknown): boolean {
  if (!isSealed(value)) return false;
  const v = value as unknown as Record<string, unknown>;
  const keys = Object.keys(v).sort().join(',');
  if (keys !== 'ct,iv,kid,scope,~enc' || v['~enc'] !== 1) return false;
  return (['scope', 'kid'] as const).every((k) => typeof v[k] === 'string' && v[k] !== '') && (['iv', 'ct'] as const).every((k) => typeof v[k] === 'string' && BASE64.test(v[k] as string));
}

function forbidden(error: ErrorFactory, message: string, path?: string): DocstackError {
  return error(message, path === undefined ? {} : { path });
}
