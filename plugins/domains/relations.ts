import { RelationCatchUp } from './catch-up.js';
import { EndIndex } from './end-index.js';
import { isSingleEnd, relationPrefix, type DomainModel, type End, type RelationDoc } from './model.js';
import { type ClientStack, type Doc, type Selector } from '../../index.js';
import { compileSelector, nowIso, projectFields } from '../../kit/index.js';
import { DOMAIN_ERRORS } from './errors.js';

export interface RelationEvent {
  op: 'add' | 'remove';
  domain: string;
  id: string;
  sourceId: string;
  targetId: string;
}

/**
 * Relation documents and their end index. Relations are written here, not through the
 * document pipeline: they have no class (`~domain` instead of `~class`) and are the engine's
 * own bookkeeping. Every add/remove emits `relation` on the stack.
 */
export class RelationStore {
  readonly ends: EndIndex;

  private readonly catchUp: RelationCatchUp;

  constructor(private readonly stack: ClientStack) {
    this.ends = new EndIndex(stack.storage, stack.clock);
    this.catchUp = new RelationCatchUp(stack, this.ends);
  }

  /** Brings the end index up to date with relations written elsewhere (replication). */
  ready(): Promise<void> {
    return this.catchUp.run();
  }

  /** Both ends must be active documents of the domain's classes. */
  async checkEnds(domain: DomainModel, sourceId: unknown, targetId: unknown): Promise<{ source: Doc; target: Doc }> {
    const source = await this.requireEnd(domain, 'source', sourceId);
    const target = await this.requireEnd(domain, 'target', targetId);
    return { source, target };
  }

  /** One end must be an active document of its class. */
  async requireEnd(domain: DomainModel, end: End, id: unknown): Promise<Doc> {
    const doc = typeof id === 'string' && id !== '' ? await this.stack.getDocument(id, { includeInactive: true }) : null;
    this.endProblem(domain, end, id, doc);
    return doc!;
  }

  /** Throws when `doc` (what `id` names here, or null) cannot be that end; a missing one may still arrive (`waitingFor`). */
  endProblem(domain: DomainModel, end: End, id: unknown, doc: Doc | null): void {
    const expected = end === 'source' ? domain.sourceClass : domain.targetClass;
    const problem = !doc ? 'does not exist' : doc.active === false ? 'is inactive' : doc['~class'] !== expected ? `is a ${doc['~class']}, not a ${expected}` : null;
    if (problem) {
      throw DOMAIN_ERRORS.relationInvalid(`The ${end} of a "${domain.name}" relation must be an active ${expected}; ${JSON.stringify(id)} ${problem}.`, {
        path: end === 'source' ? 'sourceId' : 'targetId',
        details: { domain: domain.name, end, id, ...(!doc && typeof id === 'string' && id !== '' ? { waitingFor: [id] } : {}) },
      });
    }
  }

  /** Checks what add would check, without writing (cardinality as it stands now). */
  async check(domain: DomainModel, sourceId: unknown, targetId: unknown): Promise<void> {
    await this.ready();
    await this.checkEnds(domain, sourceId, targetId);
    for (const [end, id, other] of [['source', sourceId, targetId], ['target', targetId, sourceId]] as [End, string, string][]) {
      const live = await this.ends.live(domain.name, end, id);
      if (live.some((e) => e.otherId === other)) {
        throw DOMAIN_ERRORS.relationExists(`${sourceId} and ${targetId} are already related in "${domain.name}".`, { details: { domain: domain.name } });
      }
      if (isSingleEnd(domain.relation, end) && live.length > 0) {
        throw DOMAIN_ERRORS.relationCardinality(`${id} already has its one relation in "${domain.name}" (as ${end}).`, {
          details: { domain: domain.name, end, docId: id, existing: live[0].relationId },
        });
      }
    }
  }

  /** Adds a relation: claims both ends (atomically per end), then writes the relation document; `reference`: the attribute it follows. */
  async add(domain: DomainModel, sourceId: string, targetId: string, options: { reference?: string } = {}): Promise<RelationDoc> {
    await this.ready();
    await this.checkEnds(domain, sourceId, targetId);
    const id = `${relationPrefix(domain.name)}${globalThis.crypto.randomUUID()}`;
    const at = this.stack.clock.now();
    await this.ends.add(domain.name, 'source', sourceId, { relationId: id, otherId: targetId, at }, isSingleEnd(domain.relation, 'source'));
    try {
      await this.ends.add(domain.name, 'target', targetId, { relationId: id, otherId: sourceId, at }, isSingleEnd(domain.relation, 'target'));
    } catch (err) {
      await this.ends.remove(domain.name, 'source', sourceId, id);
      throw err;
    }
    const relation: RelationDoc = {
      _id: id,
      '~domain': domain.name,
      sourceClass: domain.sourceClass,
      targetClass: domain.targetClass,
      sourceId,
      targetId,
      active: true,
      '~createTimestamp': nowIso(this.stack.clock),
      ...(options.reference ? { '~reference': options.reference } : {}),
    };
    try {
      relation._rev = await this.stack.storage.put(relation);
    } catch (err) {
      await this.ends.remove(domain.name, 'source', sourceId, id);
      await this.ends.remove(domain.name, 'target', targetId, id);
      throw err;
    }
    this.stack.emit('relation', { op: 'add', domain: domain.name, id, sourceId, targetId } satisfies RelationEvent);
    return relation;
  }

  /** The active relation between two documents, or null. */
  async find(domain: DomainModel, sourceId: string, targetId: string): Promise<RelationDoc | null> {
    await this.ready();
    const entry = (await this.ends.live(domain.name, 'source', sourceId)).find((e) => e.otherId === targetId);
    if (!entry) return null;
    const doc = await this.stack.storage.get<RelationDoc>(entry.relationId);
    return doc && doc.active ? doc : null;
  }

  /** Deactivates a relation (kept, `active: false`) and frees both ends; `at`: its update time (./reconcile.ts gives a fixed one). */
  async remove(relation: RelationDoc, options: { at?: string } = {}): Promise<void> {
    const current = await this.stack.storage.get<RelationDoc>(relation._id);
    if (!current) throw DOMAIN_ERRORS.relationNotFound(`There is no relation ${JSON.stringify(relation._id)}.`, { details: { id: relation._id } });
    if (current.active) {
      await this.stack.storage.put({ ...current, active: false, '~updateTimestamp': options.at ?? nowIso(this.stack.clock) });
    }
    await this.ends.remove(current['~domain'], 'source', current.sourceId, current._id);
    await this.ends.remove(current['~domain'], 'target', current.targetId, current._id);
    const { sourceId, targetId } = current;
    this.stack.emit('relation', { op: 'remove', domain: current['~domain'], id: current._id, sourceId, targetId } satisfies RelationEvent);
  }

  /**
   * Makes an inactive relation active again (./reconcile.ts: the document's winning revision
   * names it again), with the same content on every replica: its update time is its creation time.
   */
  async reactivate(relation: RelationDoc): Promise<void> {
    const current = await this.stack.storage.get<RelationDoc>(relation._id);
    if (!current || current.active) return;
    await this.stack.storage.put({ ...current, active: true, '~updateTimestamp': current['~createTimestamp'] });
    const at = Date.parse(current['~createTimestamp']) || this.stack.clock.now();
    await this.ends.ensure(current['~domain'], 'source', current.sourceId, { relationId: current._id, otherId: current.targetId, at });
    await this.ends.ensure(current['~domain'], 'target', current.targetId, { relationId: current._id, otherId: current.sourceId, at });
    const { sourceId, targetId } = current;
    this.stack.emit('relation', { op: 'add', domain: current['~domain'], id: current._id, sourceId, targetId } satisfies RelationEvent);
  }

  /** The inactive relations between two documents (a scan of the domain's range: only asked when a winning revision names a pair with no active relation). */
  async inactiveBetween(domain: DomainModel, sourceId: string, targetId: string): Promise<RelationDoc[]> {
    const out: RelationDoc[] = [];
    for await (const page of this.stack.storage.pages(relationPrefix(domain.name))) {
      for (const doc of page as unknown as RelationDoc[]) if (doc.active === false && doc.sourceId === sourceId && doc.targetId === targetId) out.push(doc);
    }
    return out;
  }

  /** Every active relation of a document at one end of a domain. */
  async at(domain: DomainModel, end: End, docId: string): Promise<RelationDoc[]> {
    await this.ready();
    const out: RelationDoc[] = [];
    for (const entry of await this.ends.live(domain.name, end, docId)) {
      const doc = await this.stack.storage.get<RelationDoc>(entry.relationId);
      if (doc?.active) out.push(doc);
    }
    return out;
  }

  /** The domain's active relations matching a selector, in id order, page by page. */
  async list(domain: DomainModel, selector: Selector | undefined, fields?: string[], skip = 0, limit = Infinity): Promise<Doc[]> {
    const match = compileSelector(selector);
    const out: Doc[] = [];
    if (limit <= 0) return out;
    let toSkip = skip;
    for await (const page of this.stack.storage.pages(relationPrefix(domain.name))) {
      for (const doc of match(page.filter((d) => d.active !== false))) {
        if (toSkip > 0) {
          toSkip--;
          continue;
        }
        out.push(projectFields(doc, fields));
        if (out.length >= limit) return out;
      }
    }
    return out;
  }

  /** Deactivates every relation of a document in the domain (both ends where its class plays both). */
  async removeAllOf(domain: DomainModel, doc: Doc): Promise<number> {
    let removed = 0;
    for (const end of ['source', 'target'] as End[]) {
      const cls = end === 'source' ? domain.sourceClass : domain.targetClass;
      if (doc['~class'] !== cls) continue;
      for (const relation of await this.at(domain, end, doc._id)) {
        await this.remove(relation);
        removed++;
      }
    }
    return removed;
  }
}

