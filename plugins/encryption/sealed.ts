/** The stored and the read forms of an encrypted attribute (this plugin's own shapes). */

/** An encrypted attribute as stored: `{ "~enc": 1, scope, kid, iv, ct }` (plugins/encryption). */
export interface SealedValue {
  '~enc': 1;
  scope: string;
  kid: string;
  iv: string;
  ct: string;
}

export function isSealed(value: unknown): value is SealedValue {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '~enc' in value;
}

/** What an encrypted attribute reads as when its scope's key is not held. */
export interface SealedMarker {
  '~sealed': true;
  scope: string;
}

export function isSealedMarker(value: unknown): value is SealedMarker {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as Record<string, unknown>)['~sealed'] === true;
}
