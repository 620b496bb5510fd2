import { type ClientStack } from '../../index.js';
import { isClassDocId } from '../../kit/index.js';
import { PeerPush } from '../replication/admission.js';
import { SERVER_ERRORS } from '../errors-codes.js';

const admitted = new WeakSet<ClientStack>();

/**
 * A tenant's endpoint accepts only documents of the tenant's classes: an `admit` tap on the
 * tenant stack, after the node's authorization (stage -100). The class model of the default
 * stack decides (a class belongs to the tenant when its `tenants` names it), so a class that
 * does not belong here cannot be smuggled in by pushing its class document first either: a
 * pushed class document must itself name the tenant. Refused documents get their own
 * `forbidden` line (DS_TENANT_CLASS); the rest of the batch goes on.
 */
export function admitTenantPushes(stack: ClientStack, tenant: string, source: ClientStack): void {
  if (admitted.has(stack)) return;
  admitted.add(stack);
  stack.hooks.admit.tapPromise({ name: 'tenant-classes', stage: -90 }, async (item, ctx) => {
    if (!(ctx.session instanceof PeerPush)) return;
    const { doc, previous } = item;
    if (typeof doc._id !== 'string' || doc._id.startsWith('_local/') || doc._id.startsWith('~rel-')) return;
    if (isClassDocId(doc._id)) {
      const tenants = doc._deleted ? (previous as { tenants?: unknown } | null | undefined)?.tenants : doc.tenants;
      if (!Array.isArray(tenants) || !tenants.includes(tenant)) refuse(doc._id, `The class ${JSON.stringify(doc._id)} does not belong to the tenant ${JSON.stringify(tenant)} (its "tenants" must name it).`);
      return;
    }
    const className = typeof doc['~class'] === 'string' ? doc['~class'] : typeof previous?.['~class'] === 'string' ? previous['~class'] : null;
    // domains, patches and relations are judged by their own rules; a document without a class by the kernel
    if (className === null || className === 'domain' || className.startsWith('~')) return;
    const model = await source.classCache.get(className);
    if (!model || model.active === false || !model.tenants.includes(tenant)) {
      refuse(doc._id, `Documents of the class ${JSON.stringify(className)} do not belong to the tenant ${JSON.stringify(tenant)}.`);
    }
  });
}

function refuse(id: string, message: string): never {
  throw SERVER_ERRORS.tenantClass(message, { details: { id } });
}
