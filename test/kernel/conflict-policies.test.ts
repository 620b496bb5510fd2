/**
 * Conflict policies (issue #28): a class says how concurrent edits merge ('winner', 'latest',
 * 'merge', a handler's name); the conflict is resolved where it is first seen — in the ingest
 * that brings the second version — once, through the pipeline (origin 'conflict'), and two
 * devices resolving it at once write the same revision: after they meet there is nothing left.
 */
import { describe, expect, it } from 'vitest';
import { browser } from '../../plugins.config.js';
import {
  Class,
  definePlugin,
  type ClientStack,
  type ConflictEvent,
  type ConflictFailedEvent,
  type ConflictPolicy,
  type ConflictResolvedEvent,
  type Doc,
  type PluginEntry,
  type WriteOrigin,
} from '../../index.js';
import { expectRefused, memoryStack } from '../helpers/stack.js';
import { replicateIngest as replicate } from '../helpers/replicate.js';


/** Every leaf of one document, with its history, as a replicator sends it. */
async function leavesOf(stack: ClientStack, id: string): Promise<Doc[]> {
  const found = await stack.storage.replication.openRevs(id, 'all', { revs: true });
  return found.flatMap((leaf) => ('ok' in leaf ? [leaf.ok as Doc] : []));
}

/** The document's leaves that are not deleted: one once resolved. */
async function liveLeaves(stack: ClientStack, id: string): Promise<string[]> {
  return (await leavesOf(stack, id)).filter((d) => !(d as { _deleted?: boolean })._deleted).map((d) => String(d._rev));
}

/** A clock each test moves by hand: which edit is later is the test's choice, not the scheduler's. */
function manualClock(start = Date.parse('2026-11-26T10:00:00Z')) {
  let at = start;
  return { now: () => at, tick: (ms = 1000) => (at += ms) };
}

const events = (stack: ClientStack) => {
  const seen = { conflict: [] as ConflictEvent[], resolved: [] as ConflictResolvedEvent[], failed: [] as ConflictFailedEvent[] };
  stack.on('conflict', (e: ConflictEvent) => seen.conflict.push(e));
  stack.on('conflict:resolved', (e: ConflictResolvedEvent) => seen.resolved.push(e));
  stack.on('conflict:failed', (e: ConflictFailedEvent) => seen.failed.push(e));
  return seen;
};

const SCHEMA = { title: { type: 'string', mandatory: true }, body: { type: 'string' }, stars: { type: 'integer', max: 5 } };
const attrs = (doc: Doc | null) => doc && { title: doc.title, body: doc.body, stars: doc.stars, active: doc.active };

/** Devices sharing one clock and one Note of a class with the policy given. */
async function devices(count: number, policy: ConflictPolicy | undefined, plugins: PluginEntry[] = [...browser]) {
  const clock = manualClock();
  const stacks: ClientStack[] = [];
  for (let i = 0; i < count; i++) stacks.push(await memoryStack({ clock, plugins }));
  const [first] = stacks;
  await Class.create(first, 'Note', 'class', '', SCHEMA, policy === undefined ? {} : { conflicts: policy });
  const note = await first.createDoc({ '~class': 'Note', title: 'first', body: 'text', stars: 1 });
  for (const other of stacks.slice(1)) await replicate(first, other);
  return { stacks, clock, id: note._id };
}

/** Each device's leaves reach every other at once (nobody has seen another's resolution yet). */
async function crossIngest(stacks: ClientStack[], id: string): Promise<void> {
  const leaves = await Promise.all(stacks.map((s) => leavesOf(s, id)));
  await Promise.all(stacks.map((s, i) => s.ingest(leaves.filter((_, j) => j !== i).flat())));
}

/** Every device replicates with every other until nothing moves. */
async function meshSync(stacks: ClientStack[]): Promise<void> {
  for (let round = 0; round < 2; round++) for (const a of stacks) for (const b of stacks) if (a !== b) await replicate(a, b);
}

/** After they met: one live leaf, the same revision and body on every device, nothing listed. */
async function expectConverged(stacks: ClientStack[], id: string): Promise<Doc> {
  const revs = await Promise.all(stacks.map((s) => liveLeaves(s, id)));
  for (const r of revs) expect(r).toEqual(revs[0]);
  expect(revs[0]).toHaveLength(1);
  for (const s of stacks) expect(await s.conflicts()).toEqual([]);
  const docs = await Promise.all(stacks.map((s) => s.getDocument(id, { includeInactive: true })));
  for (const d of docs) expect(attrs(d)).toEqual(attrs(docs[0]));
  return docs[0]!;
}

describe('a class conflict policy', () => {
  it('is set by Class.create and setConflictPolicy, checked, stored in the class document and replicated with it', async () => {
    const { stacks: [a, b] } = await devices(2, 'merge');
    expect((await b.requireClass('Note')).conflicts).toBe('merge');
    await expectRefused(Class.create(a, 'Bad', 'class', '', {}, { conflicts: 'no way' as ConflictPolicy }), 'DS_CLASS_INVALID');
    await expectRefused(Class.create(a, 'Bad', 'class', '', {}, { conflicts: 7 as unknown as ConflictPolicy }), 'DS_CLASS_INVALID');
    const note = await a.getClass('Note');
    await note.setConflictPolicy('latest');
    await expectRefused(note.setConflictPolicy('' as ConflictPolicy), 'DS_CLASS_INVALID');
    await replicate(a, b);
    expect((await b.requireClass('Note')).conflicts).toBe('latest');
  });

  it("leaves a class without one 'manual': the conflict event fires and the conflict stays listed", async () => {
    const { stacks: [a, b], clock, id } = await devices(2, undefined);
    const seen = events(b);
    await a.updateDoc(id, { title: 'from a' });
    clock.tick();
    await b.updateDoc(id, { title: 'from b' });
    await replicate(a, b);
    expect(seen.conflict).toEqual([expect.objectContaining({ id, className: 'Note', policy: 'manual', losers: [expect.any(String)] })]);
    expect(seen.resolved).toEqual([]);
    expect(await b.conflicts()).toHaveLength(1);
  });

  it("'winner' keeps PouchDB's winner, removes the other leaf where first seen, and says which leaf went", async () => {
    const { stacks: [a, b], clock, id } = await devices(2, 'winner');
    const seen = events(b);
    await a.updateDoc(id, { title: 'from a' });
    clock.tick();
    await b.updateDoc(id, { title: 'from b' });
    const [fromA] = await liveLeaves(a, id);
    const [fromB] = await liveLeaves(b, id);
    await replicate(a, b);
    const winnerRev = fromA > fromB ? fromA : fromB; // same generation: the greater hash wins
    expect(seen.conflict).toHaveLength(1);
    expect(seen.resolved).toEqual([{ id, className: 'Note', policy: 'winner', rev: winnerRev, removed: [winnerRev === fromA ? fromB : fromA] }]);
    expect(await liveLeaves(b, id)).toEqual([winnerRev]); // no new revision: the winner as it was
    await replicate(b, a);
    await expectConverged([a, b], id);
  });

  it("'latest' takes the later edit even when PouchDB's winner is the other, ties by revision", async () => {
    for (const laterOn of ['a', 'b'] as const) {
      const { stacks: [a, b], clock, id } = await devices(2, 'latest');
      const first = laterOn === 'a' ? b : a;
      const later = laterOn === 'a' ? a : b;
      await first.updateDoc(id, { title: 'earlier', stars: 2 });
      clock.tick();
      await later.updateDoc(id, { body: 'later' });
      await replicate(a, b);
      await replicate(b, a);
      const doc = await expectConverged([a, b], id);
      expect(attrs(doc)).toEqual({ title: 'first', body: 'later', stars: 1, active: true }); // the whole later version
    }
  });

  it("'latest' decides an edit/delete conflict by time: a later soft delete wins, a later edit revives", async () => {
    for (const deleteLast of [true, false]) {
      const { stacks: [a, b], clock, id } = await devices(2, 'latest');
      if (deleteLast) {
        await a.updateDoc(id, { title: 'edited' });
        clock.tick();
        await b.deleteDocument(id);
      } else {
        await b.deleteDocument(id);
        clock.tick();
        await a.updateDoc(id, { title: 'edited' });
      }
      await replicate(a, b);
      await replicate(b, a);
      const doc = await expectConverged([a, b], id);
      expect(doc.active).toBe(!deleteLast);
      expect(await a.countDocuments('Note')).toBe(deleteLast ? 0 : 1);
      expect(await b.countDocuments('Note')).toBe(deleteLast ? 0 : 1);
    }
  });

  it("'merge' takes each side's own change (disjoint fields), validated, one revision on top of the winner", async () => {
    const { stacks: [a, b], clock, id } = await devices(2, 'merge');
    const seen = events(a);
    await a.updateDoc(id, { title: 'title from a' });
    clock.tick();
    await b.updateDoc(id, { body: 'body from b', stars: 4 });
    await replicate(b, a);
    expect(seen.resolved).toEqual([expect.objectContaining({ id, policy: 'merge', removed: [expect.any(String)] })]);
    expect(attrs(await a.getDocument(id))).toEqual({ title: 'title from a', body: 'body from b', stars: 4, active: true });
    await replicate(a, b);
    const doc = await expectConverged([a, b], id);
    expect(doc['~updateTimestamp']).toBe(new Date(clock.now()).toISOString()); // the later edit's time, on every device
  });

  it("'merge' falls back to 'latest' for a field both sides changed, and keeps the rest of each side", async () => {
    const { stacks: [a, b], clock, id } = await devices(2, 'merge');
    await b.updateDoc(id, { title: 'b, earlier', stars: 5 });
    clock.tick();
    await a.updateDoc(id, { title: 'a, later', body: 'a body' });
    await replicate(a, b);
    await replicate(b, a);
    const doc = await expectConverged([a, b], id);
    expect(attrs(doc)).toEqual({ title: 'a, later', body: 'a body', stars: 5, active: true });
  });

  it('merges three devices, each resolving what reaches it, into one revision everywhere', async () => {
    const { stacks, clock, id } = await devices(3, 'merge');
    const [a, b, c] = stacks;
    await a.updateDoc(id, { title: 'a' });
    clock.tick();
    await b.updateDoc(id, { body: 'b' });
    clock.tick();
    await c.updateDoc(id, { stars: 3, title: 'c' });
    await meshSync(stacks);
    const doc = await expectConverged(stacks, id);
    expect(attrs(doc)).toEqual({ title: 'c', body: 'b', stars: 3, active: true });
  });

  for (const policy of ['winner', 'latest', 'merge', 'notes.longest'] as const) {
    it(`two devices resolving one conflict at once by '${policy}' write the same revision: no new conflict, no ping-pong`, async () => {
      const { stacks, clock, id } = await devices(2, policy, [...browser, longestBody]);
      const [a, b] = stacks;
      const seen = [events(a), events(b)];
      await a.updateDoc(id, { title: 'from a', body: 'a longer body' });
      clock.tick();
      await b.updateDoc(id, { stars: 2, body: 'b body' });
      await crossIngest(stacks, id); // each resolves on its own
      expect(seen.map((s) => s.resolved.length)).toEqual([1, 1]);
      expect(await liveLeaves(a, id)).toEqual(await liveLeaves(b, id));
      await meshSync(stacks);
      await expectConverged(stacks, id);
      expect(seen.map((s) => s.conflict.length)).toEqual([1, 1]); // meeting again found nothing new
    });
  }

  it("a third-party plugin's handler resolves its class's conflicts, through the pipeline with origin 'conflict'", async () => {
    const origins: WriteOrigin[] = [];
    const watcher = definePlugin({
      name: 'origin-watcher',
      setup({ hooks }) {
        hooks.beforeWrite.tap('origin-watcher', (doc, ctx) => {
          if (ctx.classModel.name === 'Note') origins.push(ctx.origin);
          return doc;
        });
      },
    });
    const joinBodies = definePlugin({
      name: 'notes-join',
      setup({ stack }) {
        // every version's body, in a fixed order: the same answer on every device
        stack.registerConflictHandler('notes.join', ({ winner, losers }) => ({
          ...Object.fromEntries(Object.entries(winner).filter(([k]) => !k.startsWith('_') && !k.startsWith('~'))),
          body: [winner, ...losers].map((d) => String(d.body)).sort().join(' + '),
        }));
      },
    });
    const { stacks: [a, b], clock, id } = await devices(2, 'notes.join', [...browser, joinBodies, watcher]);
    await a.updateDoc(id, { body: 'from a' });
    clock.tick();
    await b.updateDoc(id, { body: 'from b' });
    origins.length = 0;
    await replicate(a, b);
    expect((await b.getDocument(id))?.body).toBe('from a + from b');
    expect(origins).toEqual(['conflict']);
    await replicate(b, a);
    expect((await expectConverged([a, b], id)).body).toBe('from a + from b');
  });

  it('leaves the conflict listed with conflict:failed when the policy cannot resolve it (unknown handler, a body validation refuses, a handler that throws)', async () => {
    const overflow = definePlugin({
      name: 'overflow',
      setup({ stack }) {
        stack.registerConflictHandler('notes.overflow', ({ winner }) => ({ ...winner, stars: 99 }));
        stack.registerConflictHandler('notes.throws', () => {
          throw new TypeError('a bug in the handler');
        });
      },
    });
    for (const [policy, code] of [['notes.unknown', 'DS_HANDLER_UNKNOWN'], ['notes.overflow', 'DS_VALIDATION_RANGE'], ['notes.throws', 'DS_CONFLICT_POLICY_FAILED']] as const) {
      const { stacks: [a, b], clock, id } = await devices(2, policy, [...browser, overflow]);
      const seen = events(b);
      await a.updateDoc(id, { title: 'from a' });
      clock.tick();
      await b.updateDoc(id, { title: 'from b' });
      await replicate(a, b);
      expect(seen.failed).toEqual([expect.objectContaining({ id, className: 'Note', policy, code })]);
      expect(await b.conflicts()).toHaveLength(1);
    }
  });

  it('two devices creating one natural key offline make one document, resolved by the policy (no ancestor: merge is latest)', async () => {
    for (const policy of ['latest', 'merge'] as const) {
      const clock = manualClock();
      const [a, b] = [await memoryStack({ clock }), await memoryStack({ clock })];
      await Class.create(a, 'Tag', 'class', '', { code: { type: 'string', primaryKey: true }, label: { type: 'string' }, color: { type: 'string' } }, { conflicts: policy });
      await replicate(a, b);
      const fromA = await a.createDoc({ '~class': 'Tag', code: 'red', label: 'Red', color: '#f00' });
      clock.tick();
      const fromB = await b.createDoc({ '~class': 'Tag', code: 'red', label: 'Urgent' });
      expect(fromB._id).toBe(fromA._id); // the key names the document on every device
      await replicate(a, b);
      await replicate(b, a);
      const doc = await expectConverged([a, b], fromA._id);
      expect({ label: doc.label, color: doc.color }).toEqual({ label: 'Urgent', color: undefined }); // b's later create, whole
      for (const s of [a, b]) {
        expect(await s.countDocuments('Tag')).toBe(1);
        expect((await (await s.getClass('Tag')).getByPrimaryKeys({ code: 'red' }))?._id).toBe(fromA._id);
      }
    }
  });

  it('refuses a second handler under a taken name', async () => {
    const stack = await memoryStack({ plugins: [...browser, longestBody] });
    expect(() => stack.registerConflictHandler('notes.longest', () => ({}))).toThrow(expect.objectContaining({ code: 'DS_HANDLER_DUPLICATE' }));
  });
});

/** A third-party plugin's conflict handler: the version with the longest body wins (ties: the winner). */
const longestBody = definePlugin({
  name: 'notes-longest',
  setup({ stack }) {
    stack.registerConflictHandler('notes.longest', ({ winner, losers }) => {
      const length = (d: Doc) => String(d.body ?? '').length;
      const best = [winner, ...losers].reduce((x, y) => (length(y) > length(x) ? y : x));
      return Object.fromEntries(Object.entries(best).filter(([k]) => !k.startsWith('_') && !k.startsWith('~')));
    });
  },
});
