import { SERVER_ERRORS } from '../errors-codes.js';

/**
 * A tenant name is part of a URL (`/db/<tenant>`) and of a folder name on disk, so it is
 * strict: lowercase letters, digits, `_` and `-`, starting with a letter or digit, at most 64
 * characters. Lowercase only, because a case-insensitive file system would store `Acme` and
 * `acme` in one folder.
 */
/** The header that names the tenant a request of the document API, SQL, OpenAPI or the authority routes works on. */
export const TENANT_HEADER = 'x-docstack-tenant';

export const TENANT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function isTenantName(value: unknown): value is string {
  return typeof value === 'string' && TENANT_NAME.test(value);
}

/** The tenant name, or DS_TENANT_INVALID naming `path`. */
export function requireTenantName(value: unknown, path = 'tenant'): string {
  if (!isTenantName(value)) {
    throw SERVER_ERRORS.tenantInvalid(`${JSON.stringify(String(value).slice(0, 80))} is not a tenant name: 1 to 64 lowercase letters, digits, "_" or "-", starting with a letter or digit.`, { path });
  }
  return value;
}

/** A list of tenant names (a user's tenants): deduplicated, each one checked. */
export function requireTenantList(value: unknown, path = 'tenants'): string[] {
  if (!Array.isArray(value) || value.length > 1000) throw SERVER_ERRORS.tenantInvalid(`"${path}" must be a list of at most 1000 tenant names.`, { path });
  return [...new Set(value.map((name, i) => requireTenantName(name, `${path}.${i}`)))];
}

/**
 * The store of a tenant: named `<stackName>.tenant.<tenant>`, and with leveldb kept in the
 * folder `<dataDir>/<stackName>.tenants/`, beside the default stack's folder and never inside
 * it. The tenant part is a checked tenant name, so it cannot climb out of that folder.
 */
export function tenantDataDir(dataDir: string, stackName: string): string {
  return `${dataDir.replace(/[\\/]+$/, '')}/${stackName}.tenants`;
}

export function tenantStoreName(stackName: string, tenant: string): string {
  return `${stackName}.tenant.${requireTenantName(tenant)}`;
}
