import { domainOf, isSingleEnd, otherEnd, referenceEnd, type DomainModel, type End, type RelationDoc } from './model.js';
import { referencesOf } from './references.js';
import type { DomainRegistry } from './registry.js';
import type { ClassModel, Doc } from '../../index.js';

/**
 * What replicas settle, each time a peer's relation or a peer's revision of a document arrives,
 * so that every replica ends with the same active relations whatever the order (docs/domains.md,
 * "Under replication"). A document's relations follow its WINNING revision (CouchDB's rule makes
 * it the same on every replica), not the revision that happened to arrive:
 * - a document whose winning revision is inactive has no active relation (a relation a peer
 *   made concurrently with the soft delete is deactivated);
 * - a relation made by a reference attribute (`~reference`) stays active only while the
 *   winning revision of the document holding that attribute names its other end: one made on a
 *   losing branch is deactivated; one deactivated on a losing branch (a soft delete, a move)
 *   that the winning revision names again is made active again;
 * - two active relations on an end that holds one: the one the winning revisions name wins (the
 *   value of this end's reference, or, 1:1 placed on the other class, the other end's reference
 *   naming this one); when none names any (addRelation), the earliest `~createTimestamp`, then
 *   the smallest id; when this end's reference names a relation not here yet, nothing changes
 *   until it arrives.
 * Every such write has the same content on every replica (its `~updateTimestamp` is the
 * relation's creation time), so replicas writing it from the same revision agree on its id.
 */
export async function reconcileRelation(registry: DomainRegistry, domain: DomainModel, relation: Pick<RelationDoc, 'sourceId' | 'targetId'>): Promise<void> {
  try {
    for (const id of [relation.sourceId, relation.targetId]) await followWinner(registry, domain, id);
    for (const end of ['source', 'target'] as End[]) {
      if (isSingleEnd(domain.relation, end)) await reconcileEnd(registry, domain, end, end === 'source' ? relation.sourceId : relation.targetId);
    }
  } catch (err) {
    reportFailure(registry, domain.name, relation.sourceId, err);
  }
}

/** A peer's revision of a document arrived (it may not be the winner): settle its relations in every domain its class takes part in. */
export async function reconcileDocument(registry: DomainRegistry, docId: string, className: string): Promise<void> {
  for (const domain of await registry.involving(className)) {
    try {
      await followWinner(registry, domain, docId, className);
      for (const end of ['source', 'target'] as End[]) {
        if (isSingleEnd(domain.relation, end) && classAt(domain, end) === className) await reconcileEnd(registry, domain, end, docId);
      }
    } catch (err) {
      reportFailure(registry, domain.name, docId, err);
    }
  }
}

const classAt = (domain: DomainModel, end: End) => (end === 'source' ? domain.sourceClass : domain.targetClass);

/**
 * The document's relations in `domain` as its winning revision says: none when inactive (or
 * deleted: `knownClass` given by a tombstone's arrival); its reference's relation only.
 */
async function followWinner(registry: DomainRegistry, domain: DomainModel, docId: string, knownClass?: string): Promise<void> {
  const { relations, stack } = registry;
  const doc = docId ? await stack.storage.get<Doc>(docId) : null;
  const className = doc?.['~class'] ?? knownClass;
  if (typeof className !== 'string') return;
  for (const end of ['source', 'target'] as End[]) {
    if (classAt(domain, end) !== className) continue;
    const live = await relations.at(domain, end, docId);
    if (!doc || doc.active === false) {
      for (const r of live) await relations.remove(r, { at: r['~createTimestamp'] });
      continue;
    }
    const attribute = await referenceAttribute(registry, domain, end, className);
    if (!attribute) continue;
    const value = stringValue(doc[attribute]);
    const other = (r: RelationDoc) => (end === 'source' ? r.targetId : r.sourceId);
    for (const r of live) if (r['~reference'] === attribute && other(r) !== value) await relations.remove(r, { at: r['~createTimestamp'] });
    if (value === undefined || live.some((r) => other(r) === value)) continue;
    // named, but no active relation: one deactivated on a losing branch comes back (one not here yet is waited for)
    const otherDoc = await stack.storage.get<Doc>(value);
    if (!otherDoc || otherDoc.active === false || otherDoc['~class'] !== classAt(domain, otherEnd(end))) continue;
    const [sourceId, targetId] = end === 'source' ? [docId, value] : [value, docId];
    const [back] = (await relations.inactiveBetween(domain, sourceId, targetId)).filter((r) => r['~reference'] === attribute).sort(byAge);
    if (back) await relations.reactivate(back);
  }
}

const byAge = (a: RelationDoc, b: RelationDoc) => a['~createTimestamp'].localeCompare(b['~createTimestamp']) || a._id.localeCompare(b._id);

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
  const [winner] = (named.length > 0 ? named : live).sort(byAge);
  for (const r of live) if (r._id !== winner._id) await relations.remove(r, { at: r['~createTimestamp'] });
}

/** The name of the reference attribute of `domain` that documents of `className` hold at `end`, if any. */
async function referenceAttribute(registry: DomainRegistry, domain: DomainModel, end: End, className: string): Promise<string | undefined> {
  if (referenceEnd(domain, className) !== end) return undefined;
  const model: ClassModel | null | undefined = await registry.stack.classCache.get(className);
  return model ? referencesOf(model).find((a) => domainOf(a) === domain.name)?.name : undefined;
}

const stringValue = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The value of the reference attribute of `domain` the document at `end` holds; undefined when its class has none or it is null. */
async function referenceValue(registry: DomainRegistry, domain: DomainModel, end: End, docId: string): Promise<string | undefined> {
  const doc = await registry.stack.storage.get<Doc>(docId);
  const className = doc?.['~class'];
  if (!doc || typeof className !== 'string') return undefined;
  const attribute = await referenceAttribute(registry, domain, end, className);
  return attribute ? stringValue(doc[attribute]) : undefined;
}

function reportFailure(registry: DomainRegistry, domain: string, docId: string, err: unknown): void {
  registry.stack.emit('relation:failed', { domain, docId, code: (err as { code?: string }).code, error: err instanceof Error ? err.message : String(err) });
}
