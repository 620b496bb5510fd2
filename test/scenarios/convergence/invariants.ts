/**
 * The data rules that must hold on every replica once it is quiet, checked on PouchDB's winning
 * revisions: primary keys unique among active documents, foreign keys pointing at an active
 * document of their class, the N:1 domain's cardinality, relations and reference attributes
 * agreeing, and transactions shown whole (never a member hidden for good).
 */
import { APP_CLASSES, DOMAIN, FOREIGN_KEYS, PRIMARY_KEY, type AppClass } from './schema.js';
import type { Replica, StoredDoc } from './snapshot.js';

export const INVARIANTS = ['primaryKey', 'foreignKey', 'cardinality', 'relationEnds', 'reference', 'txHidden', 'txPartial'] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
  replica: string;
  rule: Invariant;
  detail: string;
}

export function checkInvariants(replica: Replica): { violations: Violation[]; txIncomplete: number } {
  const out: Violation[] = [];
  const add = (rule: Invariant, detail: string) => out.push({ replica: replica.name, rule, detail });
  const active = [...replica.docs.values()].filter((d) => d.body.active !== false);
  const byId = new Map(active.map((d) => [d.id, d]));
  const ofClass = (cls: AppClass) => active.filter((d) => d.body['~class'] === cls);

  for (const cls of APP_CLASSES) {
    const owners = new Map<string, string[]>();
    for (const doc of ofClass(cls)) {
      const key = JSON.stringify(doc.body[PRIMARY_KEY[cls]]);
      owners.set(key, [...(owners.get(key) ?? []), doc.id]);
    }
    for (const [key, ids] of owners) if (ids.length > 1) add('primaryKey', `${cls} ${PRIMARY_KEY[cls]}=${key} held by ${ids.join(', ')}`);
  }

  for (const { cls, attribute, target } of FOREIGN_KEYS) {
    for (const doc of ofClass(cls)) {
      const value = doc.body[attribute];
      if (value === undefined || value === null) continue;
      const to = byId.get(String(value));
      if (!to || to.body['~class'] !== target) add('foreignKey', `${doc.id}.${attribute} → ${String(value)} (${to ? 'not a ' + target : 'no active document'})`);
    }
  }

  // docs/domains.md: a relation's ends are active documents (a deleted document's relations are
  // deactivated), and a reference attribute's relation is the one its winning revision names, or
  // none when it is null — exact here because the workload makes relations only through the
  // `technician` reference (never addRelation, whose relations a null reference leaves alone)
  const relations = active.filter((d) => d.id.startsWith(`~rel-${DOMAIN}-`));
  const bySource = new Map<string, StoredDoc[]>();
  for (const rel of relations) {
    const source = String(rel.body.sourceId);
    bySource.set(source, [...(bySource.get(source) ?? []), rel]);
    if (!byId.has(source) || !byId.has(String(rel.body.targetId))) add('relationEnds', `${rel.id}: ${source} → ${String(rel.body.targetId)} has an end that is not an active document`);
  }
  for (const [source, rels] of bySource) if (rels.length > 1) add('cardinality', `${source} has ${rels.length} active ${DOMAIN} relations (N:1 allows one)`);
  for (const visit of ofClass('Visit')) {
    const technician = visit.body.technician ?? null;
    const targets = (bySource.get(visit.id) ?? []).map((r) => String(r.body.targetId));
    const agrees = technician === null ? targets.length === 0 : targets.includes(String(technician));
    if (!agrees) add('reference', `${visit.id}.technician = ${String(technician)} but its relations point at [${targets.join(', ')}]`);
  }

  const txs = new Map<string, { size: number; members: StoredDoc[] }>();
  for (const doc of replica.docs.values()) {
    const tx = doc.body['~tx'] as { id?: string; size?: number } | undefined;
    if (!tx?.id) continue;
    const entry = txs.get(tx.id) ?? { size: Number(tx.size ?? 0), members: [] };
    entry.members.push(doc);
    txs.set(tx.id, entry);
  }
  let txIncomplete = 0;
  for (const [id, { size, members }] of txs) {
    const hidden = members.filter((m) => replica.hiddenTxMembers.has(m.id));
    if (hidden.length === members.length) add('txHidden', `transaction ${id}: all ${members.length} stored members hidden (size ${size})`);
    else if (hidden.length > 0) add('txPartial', `transaction ${id}: ${hidden.length} of ${members.length} members hidden`);
    // a member rewritten by a later transaction carries that one's ~tx: fewer than size is information, not a violation
    if (members.length < size) txIncomplete++;
  }
  return { violations: out, txIncomplete };
}
