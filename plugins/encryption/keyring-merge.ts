import { wrapKey } from './crypto.js';
import { newestCurrent, sameScopes, type KeyringDoc, type ScopeEntry, type StoredKeyring } from './keyring-docs.js';

/** What the GCM tags of the wraps bind: a wrap moved to another slot fails to open. */
export const STACK_KEY_LABEL = 'docstack:stack-key';
export const scopeKeyLabel = (scope: string, kid: string) => `docstack:scope-key|${scope}|${kid}`;

/** The merged scopes, and the fields to write on the primary's winning revision (null: nothing new). */
export interface Merge {
  scopes: Record<string, ScopeEntry>;
  changes: Pick<KeyringDoc, 'scopes' | 'merged' | 'kdf' | 'stackKey'> & { passphraseChangedAt?: string } | null;
}

/**
 * The union of every key the primary's revisions and the other opened keyrings hold, under the
 * primary's stack key: a key of another keyring is rewrapped (by kid — the same key keeps one
 * entry whatever wrapped it), a key of a losing revision of the primary is taken as it is (same
 * stack key). A scope's current key is the newest of the candidates' current keys, so two
 * devices merging the same keyrings pick the same one. The passphrase wrap is the newest one
 * (changePassphrase stamps it). Merging is monotone: nothing is ever taken out, so merges in any
 * order, on any device, converge.
 */
export async function mergeIntoPrimary(
  primary: StoredKeyring,
  stackKey: CryptoKey,
  others: StoredKeyring[],
  extractable: (scope: string, kid: string) => Promise<CryptoKey>,
): Promise<Merge> {
  const [winner, ...losers] = primary.leaves;
  const scopes = structuredClone(winner.scopes);
  const currents = new Map<string, Array<{ kid: string; createdAt: string }>>();
  const candidate = (scope: string, entry: ScopeEntry) => {
    const key = entry.keys[entry.current];
    if (!key) return;
    currents.set(scope, [...(currents.get(scope) ?? []), { kid: entry.current, createdAt: key.createdAt ?? '' }]);
  };
  for (const [scope, entry] of Object.entries(scopes)) candidate(scope, entry);
  const sources = [...losers.map((leaf) => ({ leaf, same: true })), ...others.flatMap((k) => k.leaves.map((leaf) => ({ leaf, same: false })))];
  for (const { leaf, same } of sources) {
    for (const [scope, entry] of Object.entries(leaf.scopes)) {
      const target = (scopes[scope] ??= { current: entry.current, keys: {} });
      for (const [kid, wrapped] of Object.entries(entry.keys)) {
        if (target.keys[kid]) continue;
        target.keys[kid] = same ? wrapped : { ...(await wrapKey(await extractable(scope, kid), stackKey, scopeKeyLabel(scope, kid))), createdAt: wrapped.createdAt };
      }
      candidate(scope, entry);
    }
  }
  for (const [scope, list] of currents) scopes[scope].current = newestCurrent(list);

  const merged: Record<string, string> = {};
  for (const leaf of primary.leaves) Object.assign(merged, leaf.merged ?? {});
  for (const k of others) merged[k.id] = k.signature;
  let wrap = winner;
  for (const leaf of losers) if ((leaf.passphraseChangedAt ?? '') > (wrap.passphraseChangedAt ?? '')) wrap = leaf;

  const changed = !sameScopes(scopes, winner.scopes) || !sameRecord(merged, winner.merged ?? {}) || wrap !== winner;
  if (!changed) return { scopes, changes: null };
  return {
    scopes,
    changes: { scopes, merged, kdf: wrap.kdf, stackKey: wrap.stackKey, ...(wrap.passphraseChangedAt ? { passphraseChangedAt: wrap.passphraseChangedAt } : {}) },
  };
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
