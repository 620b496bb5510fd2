import { DOMAIN_ERRORS } from './errors.js';
import { domainDocId, relationPrefix, type RelationDoc } from './model.js';
import { reconcileDocument, reconcileRelation } from './reconcile.js';
import type { DomainRegistry } from './registry.js';
import type { ClientStack, IngestItem } from '../../index.js';

/**
 * The `admit` tap for relation documents a peer sends (they have a `~domain`, no `~class`):
 * this plugin takes charge of them — accepted when the domain (found by name, whatever its
 * document's id) and both ends are here, and the id is in the domain's range. A missing domain
 * or end may still arrive: the refusal names it (`details.waitingFor`) and stack.ingest holds
 * the relation until it does, so a relation is never stored without its ends (no orphan when
 * the document it belongs to is refused). Once stored, two active relations on an end that
 * holds one are settled by the rule of ./reconcile.ts. A peer's tombstone of a document is
 * settled by the same rules once stored (the winning revision it leaves, or none).
 */
export async function admitRelation(stack: ClientStack, registry: DomainRegistry, item: IngestItem): Promise<void> {
  const { doc } = item;
  const deletedClass = item.previous?.['~class'];
  if (doc._deleted && typeof deletedClass === 'string') {
    // a tombstone may delete the winning leaf (a resolved conflict: another leaf wins) or the document
    item.onStored = () => reconcileDocument(registry, doc._id, deletedClass);
    return;
  }
  if (typeof doc['~domain'] !== 'string' || doc['~class'] !== undefined || doc._deleted) return;
  const name = doc['~domain'];
  if (!doc._id.startsWith(relationPrefix(name))) {
    throw DOMAIN_ERRORS.relationInvalid(`A relation of "${name}" must have an id starting with "${relationPrefix(name)}".`, { path: '_id', details: { domain: name } });
  }
  const domain = await registry.find(name);
  if (!domain) {
    throw DOMAIN_ERRORS.domainNotFound(`There is no domain named ${JSON.stringify(name)} here.`, { details: { domain: name, waitingFor: [domainDocId(name)] } });
  }
  const ends = [doc.sourceId, doc.targetId].filter((id): id is string => typeof id === 'string' && id !== '');
  if (ends.length < 2) throw DOMAIN_ERRORS.relationInvalid(`A relation of "${name}" needs a sourceId and a targetId.`, { details: { domain: name } });
  const found = await stack.storage.getMany(ends);
  const missing = ends.filter((_, i) => !found[i]);
  if (missing.length > 0) {
    throw DOMAIN_ERRORS.relationInvalid(`The relation ${doc._id} names ${missing.map((id) => JSON.stringify(id)).join(' and ')}, not here yet.`, {
      details: { domain: name, waitingFor: missing },
    });
  }
  item.handled = true;
  item.onStored = () => reconcileRelation(registry, domain, doc as unknown as RelationDoc);
}
