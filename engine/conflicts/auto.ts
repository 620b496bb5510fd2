import { DocstackError, KERNEL_ERRORS } from '../../contracts/errors.js';
import { isEngineClassName, type ClassModel, type Doc } from '../../contracts/model.js';
import type { StackPort } from '../../contracts/stack-port.js';
import { requireObject } from '../../kernel/drafts.js';
import { HandlerRegistry } from '../../kernel/handler-registry.js';
import { readerFor, readWithConflicts } from './list.js';
import { commonAncestor, readLeaves, readRevision } from './leaves.js';
import { bodyOf, chooseLatest, chooseMerged, latestStamp, sameAsWinner, storedFormOf, type Side } from './merge.js';
import { applyResolution, oneAtATime, type ResolveDeps } from './resolve.js';

/** What a conflict handler is given: the versions as reads answer them (decrypted where the key is here). */
export interface ConflictCase {
  id: string;
  className: string;
  /** the winning version (PouchDB's deterministic choice) */
  winner: Doc;
  /** the other versions */
  losers: Doc[];
  /** their common ancestor when the revision history still holds its body, else null */
  ancestor: Doc | null;
}

/**
 * A class's own merge (`conflicts: '<handler name>'`): answers the document's attributes (and
 * `active` if it decides it). It must be deterministic — the same versions give the same body on
 * every device — so that devices resolving one conflict at once write the same revision.
 */
export type ConflictHandler = (conflict: ConflictCase, ctx: { stack: StackPort }) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The `conflict` event: a document's versions met here (detected when they arrived). */
export interface ConflictEvent {
  id: string;
  className: string;
  /** the class's policy, which now resolves it ('manual': it stays listed for stack.resolveConflict) */
  policy: string;
  /** the winning revision and the losing ones */
  winner: string;
  losers: string[];
}

/** The `conflict:failed` event: the class's policy could not resolve it here; it stays listed. */
export interface ConflictFailedEvent {
  id: string;
  className: string;
  policy: string;
  code: string;
  message: string;
}

export interface AutoResolveDeps extends ResolveDeps {
  stack: StackPort;
}

/**
 * Resolves, by each class's policy, the conflicts arrivals made: where the conflict is first seen
 * (the node for pushes that meet, a device on pull), once, through the pipeline with origin
 * 'conflict'. Ingest notes the documents whose arrival did not extend the stored winner; `settle`
 * looks at each (one at a time with stack.resolveConflict on the same store).
 */
export class ConflictResolver {
  readonly handlers = new HandlerRegistry<ConflictHandler>('conflict handler');
  private readonly arrived = new Set<string>();

  constructor(private readonly deps: AutoResolveDeps) {}

  note(id: string): void {
    this.arrived.add(id);
  }

  /** Looks at every document noted since the last call; a policy's refusal leaves its conflict listed (`conflict:failed`). */
  async settle(): Promise<void> {
    const ids = [...this.arrived];
    this.arrived.clear();
    for (const id of ids) await oneAtATime(this.deps.db, () => this.settleOne(id));
  }

  private async settleOne(id: string): Promise<void> {
    const stored = await readWithConflicts(this.deps.db, id);
    const className = stored?.['~class'];
    // the engine's and plugins' own classes (a keyring…) merge their leaves themselves
    if (!stored || !stored._conflicts?.length || typeof className !== 'string' || isEngineClassName(className)) return;
    const model = await this.deps.requireClass(className).catch(() => null);
    if (!model) return;
    const { _conflicts: losingRevs, ...winner } = stored;
    const policy = model.conflicts ?? 'manual';
    this.deps.stack.emit('conflict', { id, className, policy, winner: String(winner._rev), losers: [...losingRevs] } satisfies ConflictEvent);
    if (policy === 'manual') return;
    try {
      const body = policy === 'winner' ? null : await this.bodyFor(policy, model, winner as Doc, losingRevs);
      await applyResolution(this.deps, { model, winner: winner as Doc, losingRevs, body, policy, origin: 'conflict', ...(body ? { timestamp: body['~updateTimestamp'] as string } : {}) });
    } catch (err) {
      const code = err instanceof DocstackError ? err.code : KERNEL_ERRORS.conflictPolicyFailed.code;
      this.deps.stack.emit('conflict:failed', { id, className, policy, code, message: err instanceof Error ? err.message : String(err) } satisfies ConflictFailedEvent);
    }
  }

  /** The resolving body a policy makes from the versions (null: the winner stays as it is), with its `~updateTimestamp`. */
  private async bodyFor(policy: string, model: ClassModel, winner: Doc, losingRevs: readonly string[]): Promise<Record<string, unknown> | null> {
    const { db, stack } = this.deps;
    const read = readerFor(stack, model);
    const leaves = await readLeaves(db, winner._id, [String(winner._rev), ...losingRevs]);
    // the winner first: where versions agree, its stored value is kept
    leaves.sort((a, b) => (a.rev === winner._rev ? -1 : b.rev === winner._rev ? 1 : 0));
    const sides: Side[] = await Promise.all(leaves.map(async (leaf) => ({ rev: leaf.rev, raw: leaf.doc, read: await read(leaf.doc) })));
    const ancestorRev = policy === 'latest' ? null : commonAncestor(leaves);
    const ancestorDoc = ancestorRev ? await readRevision(db, winner._id, ancestorRev) : null;
    const ancestor: Side | null = ancestorDoc ? { rev: ancestorRev!, raw: ancestorDoc, read: await read(ancestorDoc) } : null;

    let body: Record<string, unknown>;
    if (policy === 'latest') body = bodyOf(chooseLatest(sides));
    else if (policy === 'merge') body = bodyOf(chooseMerged(ancestor, sides));
    else {
      const handler = this.handlers.require(policy, { subject: `The conflict policy of "${model.name}"`, path: 'conflicts' });
      const chosen = await handler({ id: winner._id, className: model.name, winner: sides[0].read, losers: sides.slice(1).map((s) => s.read), ancestor: ancestor?.read ?? null }, { stack });
      body = storedFormOf(requireObject(chosen, `The conflict handler "${policy}"'s answer`), sides);
    }
    if (sameAsWinner(body, winner)) return null;
    return { ...body, '~updateTimestamp': latestStamp(sides) };
  }
}
