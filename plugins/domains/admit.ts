import type { IngestItem } from '../../kernel/hooks.js';
import type { ClientStack } from '../../kernel/stack.js';
import { DOMAIN_ERRORS } from './errors.js';
import { domainDocId, relationPrefix } from './model.js';

/**
 * The `admit` tap for relation documents a peer sends (they have a `~domain`, no `~class`):
 * this plugin takes charge of them — accepted when the domain exists here and the id is in the
 * domain's range. Their ends are not checked: a relation and its ends arrive in any order under
 * replication (the end index catches up when read, catch-up.ts).
 */
export async function admitRelation(stack: ClientStack, item: IngestItem): Promise<void> {
  const { doc } = item;
  if (typeof doc['~domain'] !== 'string' || doc['~class'] !== undefined || doc._deleted) return;
  const domain = doc['~domain'];
  if (!doc._id.startsWith(relationPrefix(domain))) {
    throw DOMAIN_ERRORS.relationInvalid(`A relation of "${domain}" must have an id starting with "${relationPrefix(domain)}".`, { path: '_id', details: { domain } });
  }
  const found = await stack.storage.get(domainDocId(domain));
  if (!found || found.active === false) {
    throw DOMAIN_ERRORS.domainNotFound(`There is no domain named ${JSON.stringify(domain)} here.`, { details: { domain } });
  }
  item.handled = true;
}
