import type { Wrapped } from './crypto.js';
import type { ClientStack, Doc } from '../../index.js';

export const KEYRING_CLASS = '~Keyring';
/** Every keyring document's id starts with this; the rest is random (`newKeyringId`). */
export const KEYRING_ID_PREFIX = '~Keyring-';
/**
 * The one keyring id of databases made before keyrings travelled. It never leaves its store
 * (a node refuses it like any engine document): the first unlock copies it under a random id.
 */
export const LEGACY_KEYRING_ID = '~Keyring-main';

export interface ScopeEntry {
  /** the kid new values are sealed with */
  current: string;
  /** every key the scope ever had, by kid, wrapped by the stack key: old ones still open old values */
  keys: Record<string, Wrapped & { createdAt: string }>;
}

/** A keyring document. Only wrapped keys: nothing here opens anything without the passphrase. */
export interface KeyringDoc extends Doc {
  version: 1;
  kdf: { name: 'PBKDF2'; hash: 'SHA-256'; iterations: number; salt: string };
  /** the stack key, wrapped by the key derived from the passphrase */
  stackKey: Wrapped;
  scopes: Record<string, ScopeEntry>;
  /** when `kdf` and `stackKey` were last rewrapped (changePassphrase): the newest wrap wins a merge */
  passphraseChangedAt?: string;
  /**
   * Other keyrings of the same owner whose keys this one holds (rewrapped under its stack key),
   * by id, with the revisions merged (`leafSignature`): an unchanged one need not be opened again.
   */
  merged?: Record<string, string>;
}

/** One keyring document with every leaf revision (the winner first): conflicts are merged, never lost. */
export interface StoredKeyring {
  id: string;
  leaves: KeyringDoc[];
  /** the leaf revisions, sorted: what `merged` records */
  signature: string;
}

/** A fresh random keyring id: two devices creating one offline never collide, and no id names its owner. */
export function newKeyringId(kid: string): string {
  return `${KEYRING_ID_PREFIX}${kid}`;
}

/** Is this the id of a keyring that travels (a random one, not the legacy `~Keyring-main`)? */
export function isTravellingKeyringId(id: string): boolean {
  return id.startsWith(KEYRING_ID_PREFIX) && id !== LEGACY_KEYRING_ID && id.length > KEYRING_ID_PREFIX.length;
}

/**
 * Every keyring document of the store with all its leaf revisions. A device holds its own
 * keyrings and the ones it pulled from its node, which serves a user only theirs.
 */
export async function readKeyrings(stack: ClientStack): Promise<StoredKeyring[]> {
  const { rows } = (await stack.storage.replication.allDocs({ startkey: KEYRING_ID_PREFIX, endkey: `${KEYRING_ID_PREFIX}\uffff`, include_docs: true, conflicts: true })) as {
    rows: Array<{ id: string; doc?: KeyringDoc & { _conflicts?: string[] } }>;
  };
  const out: StoredKeyring[] = [];
  for (const row of rows) {
    const winner = row.doc;
    if (!winner || winner['~class'] !== KEYRING_CLASS) continue;
    const { _conflicts: conflicts = [], ...doc } = winner;
    const leaves: KeyringDoc[] = [doc as KeyringDoc];
    if (conflicts.length > 0) {
      for (const found of await stack.storage.replication.openRevs(row.id, conflicts)) {
        if ('ok' in found && !found.ok._deleted) leaves.push(found.ok as unknown as KeyringDoc);
      }
    }
    out.push({ id: row.id, leaves: leaves.filter(isKeyringShape), signature: leaves.map((l) => l._rev).sort().join(',') });
  }
  return out.filter((k) => k.leaves.length > 0);
}

/** The order keyrings are tried in: by id, the legacy one last — the first that opens is the primary. */
export function primaryOrder(keyrings: StoredKeyring[]): StoredKeyring[] {
  const rank = (k: StoredKeyring) => (k.id === LEGACY_KEYRING_ID ? 1 : 0);
  return [...keyrings].sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function isKeyringShape(doc: KeyringDoc): boolean {
  return !!doc && typeof doc.kdf?.salt === 'string' && typeof doc.stackKey?.wrapped === 'string' && typeof doc.scopes === 'object' && doc.scopes !== null;
}

/** The scope's current kid after a merge: the newest of the candidates' current keys (ties: the larger kid). */
export function newestCurrent(candidates: Array<{ kid: string; createdAt: string }>): string {
  let best = candidates[0];
  for (const c of candidates) if (c.createdAt > best.createdAt || (c.createdAt === best.createdAt && c.kid > best.kid)) best = c;
  return best.kid;
}

/** Is the scope map the same set of kids and currents (wraps may differ: IVs are random)? */
export function sameScopes(a: Record<string, ScopeEntry>, b: Record<string, ScopeEntry>): boolean {
  const names = Object.keys(a).sort();
  if (names.join('\n') !== Object.keys(b).sort().join('\n')) return false;
  return names.every((n) => a[n].current === b[n].current && Object.keys(a[n].keys).sort().join(',') === Object.keys(b[n].keys).sort().join(','));
}
