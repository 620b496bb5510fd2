import { type AttributeModel, type Doc, DOMAIN_META, domainDocId } from '../../index.js';

export const RELATION_KINDS = ['1:1', '1:N', 'N:1', 'N:N'] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];
export type End = 'source' | 'target';

/**
 * A domain document (`~class: 'domain'`): a typed relation between two classes, in the SPEC's
 * shape (`id`, `name`, `type: 'domain'`, `relation`, `sourceClass`, `targetClass`). Its `_id` is
 * `domainDocId(name)`. Documents written before the SPEC shape have no `id` and `type` (see
 * domainIdOf; the domains/0002 patch adds them).
 */
export interface DomainModel extends Doc {
  /** the SPEC's id: the one Domain.create was given, or the name when it was given null */
  id?: string;
  type?: typeof DOMAIN_META;
  name: string;
  description?: string;
  relation: RelationKind;
  sourceClass: string;
  targetClass: string;
}

/** A relation document: `~domain` instead of `~class`. */
export interface RelationDoc {
  _id: string;
  _rev?: string;
  '~domain': string;
  sourceClass: string;
  targetClass: string;
  sourceId: string;
  targetId: string;
  active: boolean;
  '~createTimestamp': string;
  '~updateTimestamp'?: string;
  /** the reference attribute (of the document at its single end) whose value made it; absent for addRelation */
  '~reference'?: string;
}

export const DOMAIN_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** The longest domain id Domain.create takes (the meta-class's `id` attribute says the same). */
export const MAX_ID_LENGTH = 128;

/** Relation ids start with the domain, so one domain's relations are one allDocs key range. */
export const relationPrefix = (domain: string) => `~rel-${domain}-`;

export { domainDocId };

/**
 * The SPEC id of a domain document: its `id` field; for one stored before it had one, what its
 * `_id` was made from (`domain-<id>`, the name when it was created with a null id).
 */
export function domainIdOf(doc: Pick<DomainModel, '_id' | 'id' | 'name'>): string {
  if (typeof doc.id === 'string' && doc.id !== '') return doc.id;
  return doc._id.startsWith(`${DOMAIN_META}-`) ? doc._id.slice(DOMAIN_META.length + 1) : doc.name;
}

/**
 * Ends that hold at most one relation: in 1:N a target has one source, in N:1 a source has
 * one target, in 1:1 both ends have one, in N:N neither.
 */
export function isSingleEnd(kind: RelationKind, end: End): boolean {
  if (kind === '1:1') return true;
  if (kind === '1:N') return end === 'target';
  if (kind === 'N:1') return end === 'source';
  return false;
}

export const otherEnd = (end: End): End => (end === 'source' ? 'target' : 'source');

/**
 * The end a document plays when its class holds a reference attribute of the domain — the
 * spec's placement table: 1:N on the target class, N:1 on the source class, 1:1 on either
 * (the source when both ends are the same class), N:N nowhere. Null: not allowed here.
 */
export function referenceEnd(domain: Pick<DomainModel, 'relation' | 'sourceClass' | 'targetClass'>, className: string): End | null {
  switch (domain.relation) {
    case '1:N':
      return className === domain.targetClass ? 'target' : null;
    case 'N:1':
      return className === domain.sourceClass ? 'source' : null;
    case '1:1':
      return className === domain.sourceClass ? 'source' : className === domain.targetClass ? 'target' : null;
    default:
      return null;
  }
}

/** A reference attribute: the id of the document at the other end of a relation of `domain`. */
export type ReferenceAttribute = AttributeModel & { type: 'reference'; domain: string };

/** The domain a reference attribute names (its `domain` key, checked when it was defined). */
export const domainOf = (attribute: AttributeModel): string => (attribute as ReferenceAttribute).domain;
