/**
 * The field-service schema of issue #25, built on the first client and synced to the others:
 *
 * - Customer { code (primary key), name, notes (encrypted), visits (a counter), primarySite → Site }
 * - Site     { code (primary key), city, customer → Customer (mandatory) }
 *   Customer.primarySite ↔ Site.customer: a class pair whose foreign keys point at each other.
 * - Technician { name (primary key) }
 * - Visit    { ref (primary key), note, site → Site (mandatory), technician (reference, domain) }
 * - domain `assignedTo`, N:1 Visit → Technician: a visit has at most one technician; the
 *   `technician` reference attribute lives on the source class (docs/domains.md placement table).
 */
import { Attribute, Class, type ClientStack } from '../../../index.js';
import { Domain } from '../../../plugins/domains/index.js';

export const DOMAIN = 'assignedTo';
export const APP_CLASSES = ['Customer', 'Site', 'Technician', 'Visit'] as const;
export type AppClass = (typeof APP_CLASSES)[number];

/** each class's primary-key attribute */
export const PRIMARY_KEY: Record<AppClass, string> = { Customer: 'code', Site: 'code', Technician: 'name', Visit: 'ref' };

/** foreign keys: class → attribute → target class */
export const FOREIGN_KEYS: Array<{ cls: AppClass; attribute: string; target: AppClass }> = [
  { cls: 'Customer', attribute: 'primarySite', target: 'Site' },
  { cls: 'Site', attribute: 'customer', target: 'Customer' },
  { cls: 'Visit', attribute: 'site', target: 'Site' },
];

/** The documents a convergence run compares across replicas: the app's classes, its domain and relations. */
export function isAppDocId(id: string): boolean {
  return APP_CLASSES.some((cls) => id === cls || id.startsWith(`${cls}-`)) || id.startsWith('domain-') || id.startsWith(`~rel-${DOMAIN}-`);
}

/** What a document id names, for the report: a class document, a document of a class, a domain, a relation. */
export function kindOf(id: string): string {
  if (id.startsWith('~rel-')) return 'relation';
  if (id.startsWith('domain-')) return 'domain';
  const dash = id.indexOf('-');
  return dash < 0 ? `class ${id}` : id.slice(0, dash);
}

export async function createSchema(stack: ClientStack): Promise<void> {
  const customer = await Class.create(stack, 'Customer', 'class', 'who the visits are for', {
    code: { type: 'string', primaryKey: true, maxLength: 32 },
    name: { type: 'string', mandatory: true, maxLength: 64 },
    notes: { type: 'string', encrypted: true },
    visits: { type: 'integer', min: 0, defaultValue: 0 },
  });
  await Class.create(stack, 'Site', 'class', 'a place of a customer', {
    code: { type: 'string', primaryKey: true, maxLength: 32 },
    city: { type: 'string', maxLength: 64 },
    customer: { type: 'foreign_key', targetClass: 'Customer', mandatory: true },
  });
  // the foreign key back closes the cycle Customer ↔ Site
  await Attribute.create(customer, 'primarySite', 'foreign_key', 'the main site', { targetClass: 'Site' });
  await Class.create(stack, 'Technician', 'class', '', { name: { type: 'string', primaryKey: true, maxLength: 32 } });
  const visit = await Class.create(stack, 'Visit', 'class', 'a technician at a site', {
    ref: { type: 'string', primaryKey: true, maxLength: 32 },
    note: { type: 'string', maxLength: 200 },
    site: { type: 'foreign_key', targetClass: 'Site', mandatory: true },
  });
  await Domain.create(stack, null, DOMAIN, 'domain', 'N:1', 'Visit', 'Technician', 'who does a visit');
  await Attribute.create(visit, 'technician', 'reference', 'the assigned technician', { domain: DOMAIN });
}
