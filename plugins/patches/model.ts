import { PATCH_ERRORS } from './errors.js';
import { isPlainObject } from '../../kit/index.js';

/** The system class whose documents are the patches (one per target and version). */
export const PATCH_CLASS = '~Patch';

const TARGET = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
// semver 2.0: MAJOR.MINOR.PATCH, an optional pre-release; build metadata is refused (it would
// give one version two ids)
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?$/;

export type PatchChange =
  | { kind: 'addClass'; name: string; description?: string; schema?: Record<string, Record<string, unknown>>; options?: Record<string, unknown> }
  // an attribute model as the specification writes it, `{ name, type, config, description? }`; config
  // keys beside name and type (the flat form) are accepted too
  | { kind: 'addAttribute'; className: string; name: string; type: string; description?: string; config?: Record<string, unknown>; [key: string]: unknown }
  | { kind: 'updateAttribute'; className: string; name: string; config?: Record<string, unknown>; [key: string]: unknown }
  | { kind: 'renameAttribute'; className: string; from: string; to: string }
  | { kind: 'removeAttribute'; className: string; name: string }
  | { kind: 'addDomain'; name: string; relation: '1:1' | '1:N' | 'N:1' | 'N:N'; sourceClass: string; targetClass: string; description?: string }
  | { kind: 'migrate'; className: string; handler: string; params?: Record<string, unknown> };

export type ChangeKind = PatchChange['kind'];

/** A patch as authored: data only, so every replica computes the same result. */
export interface Patch {
  /** the application or package the patch belongs to (`system` is the engine's) */
  target: string;
  /** semver: patches of one target apply in this order */
  version: string;
  description?: string;
  changes: PatchChange[];
}

/** The stored patch document. */
export interface PatchDoc extends Patch {
  _id: string;
  _rev?: string;
  '~class': typeof PATCH_CLASS;
  /** the replica that authored it */
  author?: string;
  /**
   * The newest version of the target applied where it was authored: a receiver applies the
   * patch only once it has applied that one too, so patches arriving out of order wait.
   */
  after?: string;
}

/** The fixed id: every replica that authors or receives the patch holds the same document. */
export function patchId(target: string, version: string): string {
  return `${PATCH_CLASS}-${target}@${version}`;
}

/** The fields of a change kind that must be non-empty strings. */
const REQUIRED: Record<ChangeKind, string[]> = {
  addClass: ['name'],
  addAttribute: ['className', 'name', 'type'],
  updateAttribute: ['className', 'name'],
  renameAttribute: ['className', 'from', 'to'],
  removeAttribute: ['className', 'name'],
  addDomain: ['name', 'relation', 'sourceClass', 'targetClass'],
  migrate: ['className', 'handler'],
};

const invalid = (message: string, path: string) => PATCH_ERRORS.patchInvalid(message, { path });

/** Checks a patch's shape and returns a clean copy (JSON only: what is stored is what runs). */
export function checkPatch(input: unknown): Patch {
  if (!isPlainObject(input)) throw invalid('A patch is an object { target, version, changes }.', '');
  const { target, version, description, changes } = input;
  if (typeof target !== 'string' || !TARGET.test(target)) throw invalid(`A patch target is letters, digits and "._-", at most 64 (got ${JSON.stringify(target)}).`, 'target');
  if (typeof version !== 'string' || !SEMVER.test(version)) throw invalid(`A patch version is semver, e.g. 1.2.0 (got ${JSON.stringify(version)}).`, 'version');
  if (description !== undefined && typeof description !== 'string') throw invalid('A patch description is a string.', 'description');
  if (!Array.isArray(changes) || changes.length === 0) throw invalid('A patch has a non-empty list of changes.', 'changes');
  changes.forEach((change, i) => {
    const kind = isPlainObject(change) ? change.kind : undefined;
    if (typeof kind !== 'string' || !Object.hasOwn(REQUIRED, kind)) throw invalid(`changes[${i}].kind must be one of ${Object.keys(REQUIRED).join(', ')}.`, `changes[${i}].kind`);
    for (const field of REQUIRED[kind as ChangeKind]) {
      const value = (change as Record<string, unknown>)[field];
      if (typeof value !== 'string' || value === '') throw invalid(`changes[${i}] (${kind}) needs "${field}" as a non-empty string.`, `changes[${i}].${field}`);
    }
    if (kind === 'updateAttribute') {
      const { config, kind: _k, className: _c, name: _n, ...flat } = change as Record<string, unknown>;
      const configOk = config === undefined ? Object.keys(flat).length > 0 : isPlainObject(config);
      if (!configOk) throw invalid(`changes[${i}] (updateAttribute) needs "config" (the keys it changes).`, `changes[${i}].config`);
    }
  });
  return JSON.parse(JSON.stringify({ target, version, ...(description !== undefined ? { description } : {}), changes })) as Patch;
}

/** The authored content of a patch document, for comparing two authors' patches. */
export function contentOf(patch: Patch): string {
  return JSON.stringify({ target: patch.target, version: patch.version, description: patch.description ?? '', changes: patch.changes });
}

/** Semver precedence: < 0 when a is older than b. */
export function compareVersions(a: string, b: string): number {
  const pa = SEMVER.exec(a);
  const pb = SEMVER.exec(b);
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  // a version without a pre-release ranks above its pre-releases
  if (pa[4] === undefined || pb[4] === undefined) return (pa[4] === undefined ? 1 : 0) - (pb[4] === undefined ? 1 : 0);
  const xa = pa[4].split('.');
  const xb = pb[4].split('.');
  for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
    if (xa[i] === undefined) return -1;
    if (xb[i] === undefined) return 1;
    const na = /^\d+$/.test(xa[i]);
    const nb = /^\d+$/.test(xb[i]);
    if (na && nb && Number(xa[i]) !== Number(xb[i])) return Number(xa[i]) - Number(xb[i]);
    if (na !== nb) return na ? -1 : 1;
    if (!na && xa[i] !== xb[i]) return xa[i] < xb[i] ? -1 : 1;
  }
  return 0;
}
