import type { ClassModel, Doc } from '../../kernel/model/types.js';
import { isSingleEnd, otherEnd, referenceEnd, type DomainModel, type End, type RelationDoc } from './model.js';
import { domainOf } from './reference-type.js';
import { referencesOf } from './references.js';
import type { DomainRegistry } from './registry.js';

/**
 * Concurrent owner changes (two devices point the same 1:N target at two sources while apart)
 * leave two active relations on an end that holds one. Every replica settles them by the same
 * rule, once a relation or a referring document arrives:
 * - the relation the documents' winning revisions name wins: the one whose other end is the
 *   value of this end's reference attribute of the domain (1:N: the target's; N:1: the
 *   source's), or whose other end's reference names this end (1:1 placed on the other class);
 * - when references name none of them (relations made with addRelation): the earliest
 *   `~createTimestamp`, then the smallest id;
 * - when this end's reference names a relation not here yet, nothing changes until it arrives.
 * The others are deactivated with a revision of the same content on every replica (their
 * `~updateTimestamp` is their creation time), so the replicas write the same revision id.
 */
export async function reconcileRelation(registry: DomainRegistry, domain: DomainModel, relation: Pick<RelationDoc, 'sourceId' | 'targetId'>): Promise<void> {
  try {
    for (const end of ['source', 'target'] as End[]) {
      if (isSingleEnd(domain.relation, end)) await reconcileEnd(registry, domain, end, end === 'source' ? relation.sourceId : relation.targetId);
    }
  } catch (err) {
    registry.stack.emit('relation:failed', { domain: domain.name, docId: relation.sourceId, code: (err as { code?: string }).code, error: err instanceof Error ? err.message : String(err) });
  }
}

/** A peer's document with reference attributes arrived: settle the single ends it plays. */
export async function reconcileDocument(registry: DomainRegistry, doc: Doc, model: ClassModel): Promise<void> {
  for (const attribute of referencesOf(model)) {
    const domain = await registry.find(domainOf(attribute));
    const end = domain ? referenceEnd(domain, model.name) : null;
    if (!domain || !end) continue;
    const value = doc[attribute.name];
    await reconcileRelation(registry, domain, end === 'source' ? { sourceId: doc._id, targetId: String(value ?? '') } : { sourceId: String(value ?? ''), targetId: doc._id });
  }
}

async function reconcileEnd(registry: DomainRegistry, domain: DomainModel, end: End, docId: string): Promise<void> {
  if (!docId) return;
  const { relations } = registry;
  const live = await relations.at(domain, end, docId);
  if (live.length < 2) return;
  const other = (r: RelationDoc) => (end === 'source' ? r.targetId : r.sourceId);
  const mine = await referenceValue(registry, domain, end, docId);
  const named: RelationDoc[] = [];
  for (const r of live) {
    if (mine !== undefined ? other(r) === mine : (await referenceValue(registry, domain, otherEnd(end), other(r))) === docId) named.push(r);
  }
  if (mine !== undefined && named.length === 0) return; // the relation this end names is still on its way
  const [winner] = (named.length > 0 ? named : live).sort((a, b) => a['~createTimestamp'].localeCompare(b['~createTimestamp']) || a._id.localeCompare(b._id));
  for (const r of live) if (r._id !== winner._id) await relations.remove(r, { at: r['~createTimestamp'] });
}

/** The value of the reference attribute of `domain` the document at `end` holds; undefined when its class has none or it is null. */
async function referenceValue(registry: DomainRegistry, domain: DomainModel, end: End, docId: string): Promise<string | undefined> {
  const doc = await registry.stack.storage.get<Doc>(docId);
  const className = doc?.['~class'];
  if (!doc || typeof className !== 'string' || referenceEnd(domain, className) !== end) return undefined;
  const model = await registry.stack.classCache.get(className);
  const attribute = model ? referencesOf(model).find((a) => domainOf(a) === domain.name) : undefined;
  const value = attribute ? doc[attribute.name] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
