import type { StackPort } from './stack-port.js';

/**
 * A write of this stack another side refused with a code (docs/conflicts.md#denials): a unique
 * value another device claimed first, a schema this user may not change, a document this
 * stack's validation refused when it was pulled. It does not go away by syncing again: the
 * application changes or removes the document, then `stack.resolveDenial(id)`.
 */
export interface Denial {
  /** the refused document's id */
  id: string;
  /** its stored `~class`; the id's prefix (before the first `-`) when it is not stored here */
  className: string;
  /** the refused revision, when the source knows it */
  rev?: string;
  /** the refusing side's code (`DS_UNIQUE_VIOLATION`, `DS_AUTHZ_SCHEMA`…); null from a peer that gives none */
  code: string | null;
  reason: string;
  /** push: the other side refused what this stack sent; pull: this stack refused what it received */
  direction: 'push' | 'pull';
  /** when it was refused (ISO time) */
  at: string;
  /** the plugin that keeps it (`sync`), which `resolveDenial` forwards to */
  source: string;
}

/** What a source contributes to `stack.denials()` (the `denials` hook): the engine adds `className`. */
export type DenialRecord = Omit<Denial, 'className'>;

/** The `resolveDenial` hook's context: the id to forget, on which stack. */
export interface DenialResolution {
  readonly id: string;
  readonly stack: StackPort;
}
