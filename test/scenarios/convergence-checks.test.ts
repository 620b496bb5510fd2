/**
 * The convergence harness's own checks can fail: forged replicas with each kind of divergence,
 * lost write and broken rule are reported as such (and a clean pair is not). Runs always; the
 * convergence run itself is test/scenarios/convergence.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { compareReplicas, fatesOf } from './convergence/compare.js';
import { checkInvariants } from './convergence/invariants.js';
import type { AckedWrite } from './convergence/operations.js';
import { readReplica, type Replica, type StoredDoc } from './convergence/snapshot.js';
import { memoryStack, rawDb } from '../helpers/stack.js';
import { Class } from '../../index.js';

const doc = (id: string, body: Record<string, unknown>, rev = '1-a', conflicts: string[] = []): StoredDoc => ({ id, rev, conflicts, body: { _id: id, active: true, ...body } });
const replica = (name: string, docs: StoredDoc[], hidden: string[] = []): Replica =>
  ({ name, stack: null as never, docs: new Map(docs.map((d) => [d.id, d])), held: null, hiddenTxMembers: new Set(hidden), sealedNotes: 0, listed: new Map(), unlistedConflicts: [] }) as Replica;
const rules = (r: Replica) => checkInvariants(r).violations.map((v) => v.rule).sort();

describe('convergence checks', () => {
  it('compareReplicas reports a document missing on one replica and a different winner, not agreeing ones', () => {
    const a = replica('a', [doc('Visit-1', {}, '1-a'), doc('Visit-2', {}, '2-b'), doc('Visit-3', {}, '1-c')]);
    const b = replica('b', [doc('Visit-1', {}, '1-a'), doc('Visit-2', {}, '2-x')]);
    expect(compareReplicas([a, b])).toEqual([
      { id: 'Visit-2', winners: { a: '2-b', b: '2-x' } },
      { id: 'Visit-3', winners: { a: '1-c', b: 'missing' } },
    ]);
    expect(compareReplicas([a, a])).toEqual([]);
  });

  it('checkInvariants finds duplicate keys, dangling foreign keys, cardinality, reference and hidden transactions', () => {
    const clean = replica('clean', [
      doc('Customer-1', { '~class': 'Customer', code: 'C1' }),
      doc('Site-1', { '~class': 'Site', code: 'S1', customer: 'Customer-1' }),
      doc('Technician-1', { '~class': 'Technician', name: 'T1' }),
      doc('Visit-1', { '~class': 'Visit', ref: 'V1', site: 'Site-1', technician: 'Technician-1' }),
      doc('~rel-assignedTo-1', { '~domain': 'assignedTo', sourceId: 'Visit-1', targetId: 'Technician-1' }),
    ]);
    expect(rules(clean)).toEqual([]);
    const broken = replica(
      'broken',
      [
        ...clean.docs.values(),
        doc('Customer-2', { '~class': 'Customer', code: 'C1' }),
        doc('Site-2', { '~class': 'Site', code: 'S2', customer: 'Customer-gone' }),
        doc('Technician-2', { '~class': 'Technician', name: 'T2' }),
        doc('~rel-assignedTo-2', { '~domain': 'assignedTo', sourceId: 'Visit-1', targetId: 'Technician-2' }),
        doc('Visit-2', { '~class': 'Visit', ref: 'V2', site: 'Site-1', technician: 'Technician-2', '~tx': { id: 't1', size: 2 } }),
        doc('Visit-3', { '~class': 'Visit', ref: 'V3', site: 'Site-1', '~tx': { id: 't1', size: 2 } }),
      ],
      ['Visit-2', 'Visit-3'],
    );
    expect(rules(broken)).toEqual(['cardinality', 'foreignKey', 'primaryKey', 'reference', 'txHidden']);
    const partly = replica('partly', [...broken.docs.values()].filter((d) => d.id !== 'Customer-2'), ['Visit-2']);
    expect(rules(partly)).toContain('txPartial');
  });

  it('fatesOf tells a winner, a listed conflict, an unlisted one, a write built upon and a lost write apart', async () => {
    const stack = await memoryStack();
    await Class.create(stack, 'Note', 'class', '', {});
    const base = { '~class': 'Note', active: true };
    await rawDb(stack).bulkDocs(
      [
        { _id: 'Note-1', _rev: '2-b', _revisions: { start: 2, ids: ['b', 'a'] }, ...base },
        { _id: 'Note-1', _rev: '2-c', _revisions: { start: 2, ids: ['c', 'a'] }, ...base },
      ] as never[],
      { new_edits: false },
    );
    const read = await readReplica('r', stack, { decrypts: false });
    // Note is not a class of the run's schema: give the replica the document by hand
    const stored = (await stack.storage.replication.get('Note-1', { conflicts: true })) as { _rev: string; _conflicts?: string[] };
    read.docs.set('Note-1', { id: 'Note-1', rev: stored._rev, conflicts: stored._conflicts ?? [], body: {} });
    const write = (rev: string): AckedWrite => ({ client: 0, epoch: 1, op: 'update', id: 'Note-1', rev });
    const fates = await fatesOf([write(stored._rev), write(stored._conflicts![0]), write('1-a'), write('2-z')], [read]);
    expect(fates.map((f) => f.outcomes.r)).toEqual(['winner', 'conflict', 'superseded', 'lost']);
    expect(read.listed.get('Note-1')?.size).toBe(2); // read through stack.conflicts()
    expect(read.unlistedConflicts).toEqual([]);
    // a losing leaf the conflicts API would not show is a failure of its own
    read.listed.clear();
    const unlisted = await fatesOf([write(stored._conflicts![0])], [read]);
    expect(unlisted[0].outcomes.r).toBe('unlisted');
  });
});
