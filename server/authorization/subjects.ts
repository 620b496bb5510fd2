import { CLASS_META, DOMAIN_META, SELF_META } from '../../index.js';
import { isClassDocId } from '../../kit/index.js';
import { isTravellingKeyringId, KEYRING_CLASS, PATCH_CLASS } from '../../plugins.config.js';

/**
 * What a written document is, for authorization. Decided from the id, the incoming `~class`
 * and the stored revision's `~class` (a tombstone carries no `~class`), never from one alone:
 * a peer chooses the incoming fields.
 */
export type WriteSubject =
  /** the meta-classes' own documents: `class`, `domain`, `~self` */
  | { kind: 'meta'; id: string }
  /** engine-internal: every `~` class (jobs, keyrings, users…), their class documents, `_local/~…` */
  | { kind: 'internal'; id: string; className: string }
  /** the schema: a class document (id = class name), a domain document or a versioned patch */
  | { kind: 'schema'; id: string; what: 'class' | 'domain' | 'patch' }
  /**
   * a keyring document `~Keyring-<random>` (wrapped keys of one user): written by its owner's
   * devices only. `owner` is what the node recorded (keyring-owners.ts): null for a keyring
   * nobody pushed yet, left out where nobody looked it up (then the write is refused).
   */
  | { kind: 'keyring'; id: string; owner?: string | null }
  /** a replication checkpoint `_local/<hash>` */
  | { kind: 'checkpoint'; id: string }
  /** a relation document (`~rel-<domain>-…`): data of its domain */
  | { kind: 'relation'; id: string }
  /** a document of an application class */
  | { kind: 'data'; id: string; className: string | null };

export const META_CLASS_IDS: ReadonlySet<string> = new Set([CLASS_META, DOMAIN_META, SELF_META]);
const RELATION_PREFIX = '~rel-';

const classOf = (doc: Record<string, unknown> | undefined | null): string | null =>
  doc && typeof doc['~class'] === 'string' ? doc['~class'] : null;

export function classifyWrite(id: string, incoming: Record<string, unknown>, previous?: Record<string, unknown> | null): WriteSubject {
  if (META_CLASS_IDS.has(id)) return { kind: 'meta', id };
  if (id.startsWith('_local/')) {
    return id.startsWith('_local/~') ? { kind: 'internal', id, className: '_local' } : { kind: 'checkpoint', id };
  }
  const classes = [classOf(incoming), classOf(previous)].filter((c): c is string => c !== null);
  // a class document is its name; one of a `~` class belongs to the engine like its documents
  if (isClassDocId(id) || classes.some((c) => c === CLASS_META || c === SELF_META)) {
    if (!isClassDocId(id)) return { kind: 'meta', id }; // a "class document" whose id is not a class name
    return id.startsWith('~') ? { kind: 'internal', id, className: id } : { kind: 'schema', id, what: 'class' };
  }
  if (id.startsWith(`${DOMAIN_META}-`) || classes.includes(DOMAIN_META)) return { kind: 'schema', id, what: 'domain' };
  // a versioned patch changes the schema of every replica it reaches: admins only, like a class
  if (id.startsWith(`${PATCH_CLASS}-`) || classes.includes(PATCH_CLASS)) return { kind: 'schema', id, what: 'patch' };
  if (isTravellingKeyringId(id) && classes.every((c) => c === KEYRING_CLASS)) return { kind: 'keyring', id };
  const internalClass = classes.find((c) => c.startsWith('~'));
  if (internalClass) return { kind: 'internal', id, className: internalClass };
  if (id.startsWith(RELATION_PREFIX)) return { kind: 'relation', id };
  if (id.startsWith('~')) return { kind: 'internal', id, className: id.split('-')[0] };
  return { kind: 'data', id, className: classes[0] ?? null };
}
