/**
 * What a client does offline: random creates, updates, soft deletes and transactions, chosen by
 * the client's own seeded stream from what the client holds at that moment.
 *
 * The workload has no legitimate refusal at sync time, by construction, so that any refusal a
 * sync reports is a defect to look at:
 * - primary keys are drawn from the client's own pool (`C<client>-<n>`): two clients never claim
 *   the same key (a duplicate inside one client is refused locally, at write time);
 * - only Visits are soft-deleted, and nothing holds a foreign key to a Visit;
 * - values are valid for the schema (a local refusal is still possible, e.g. a transaction the
 *   engine cannot commit: it is recorded as refused locally, never as acknowledged).
 * Ids are given (`<Class>-c<client>e<epoch>n<k>`) so that a seed replays the same choices.
 */
import { DocstackError, type Doc } from '../../../index.js';
import type { Client } from './clients.js';
import type { Prng } from './prng.js';

/** A write call that resolved: the revision it stored, per document it wrote. */
export interface AckedWrite {
  client: number;
  epoch: number;
  op: string;
  id: string;
  rev: string;
  /** the transaction (its index in the client) for a transaction's members */
  tx?: number;
}

export interface OperationLog {
  acked: AckedWrite[];
  /** write calls that threw: by operation and code (not acknowledged, so not expected anywhere) */
  refusedLocally: Array<{ client: number; op: string; code: string }>;
  /** calls that threw something other than a DocstackError (an engine or harness bug) */
  unexpected: Array<{ client: number; op: string; message: string }>;
  transactions: number;
}

export function emptyLog(): OperationLog {
  return { acked: [], refusedLocally: [], unexpected: [], transactions: 0 };
}

type View = Record<'Customer' | 'Site' | 'Technician' | 'Visit', Doc[]>;

/** A write: the ids it wrote (their revisions are read once it resolved) */
type Write = () => Promise<string[]>;

const WEIGHTS: Array<[string, number]> = [
  ['createCustomer', 8],
  ['createSite', 10],
  ['createTechnician', 4],
  ['createVisit', 16],
  ['update', 22],
  ['setPrimarySite', 6],
  ['assignTechnician', 10],
  ['softDelete', 6],
  ['transaction', 18],
];

export async function runOperations(client: Client, rng: Prng, epoch: number, count: number, log: OperationLog): Promise<void> {
  let serial = 0;
  const newId = (cls: string) => `${cls}-c${client.index}e${epoch}n${++serial}`;
  for (let i = 0; i < count; i++) {
    const view = await localView(client);
    const op = weighted(rng);
    const write = plan(op, client, rng, view, newId);
    if (!write) continue; // nothing to act on yet (e.g. no Site to put a Visit at)
    let ids: string[];
    try {
      ids = await write();
    } catch (err) {
      if (err instanceof DocstackError) log.refusedLocally.push({ client: client.index, op, code: err.code });
      else log.unexpected.push({ client: client.index, op, message: String((err as Error)?.message ?? err).slice(0, 200) });
      continue;
    }
    const tx = op === 'transaction' ? log.transactions++ : undefined;
    for (const id of ids) {
      const stored = await client.stack.storage.get(id);
      if (stored?._rev) log.acked.push({ client: client.index, epoch, op, id, rev: String(stored._rev), ...(tx !== undefined ? { tx } : {}) });
    }
  }
}

async function localView(client: Client): Promise<View> {
  const s = client.stack;
  const [Customer, Site, Technician, Visit] = await Promise.all(['Customer', 'Site', 'Technician', 'Visit'].map((c) => s.findDocuments(c).catch(() => [] as Doc[])));
  return { Customer, Site, Technician, Visit };
}

function weighted(rng: Prng): string {
  const total = WEIGHTS.reduce((n, [, w]) => n + w, 0);
  let at = rng.next() * total;
  for (const [op, w] of WEIGHTS) if ((at -= w) < 0) return op;
  return WEIGHTS[0][0];
}

const words = ['north', 'south', 'pump', 'valve', 'boiler', 'annual', 'urgent', 'check', 'repair'];
const text = (rng: Prng) => `${rng.pick(words)} ${rng.pick(words)} ${rng.int(1, 999)}`;

function plan(op: string, client: Client, rng: Prng, view: View, newId: (cls: string) => string): Write | null {
  const s = client.stack;
  const c = client.index;
  const one = (docs: Doc[]) => (docs.length > 0 ? rng.pick(docs) : null);
  const created = async (doc: Promise<Doc>) => [(await doc)._id];
  switch (op) {
    case 'createCustomer': {
      const id = newId('Customer');
      return () => created(s.createDoc({ '~class': 'Customer', code: `C${c}-${rng.int(1, 40)}`, name: text(rng), notes: `secret ${text(rng)}` }, { id }));
    }
    case 'createSite': {
      const customer = one(view.Customer);
      if (!customer) return null;
      const id = newId('Site');
      return () => created(s.createDoc({ '~class': 'Site', code: `S${c}-${rng.int(1, 80)}`, city: text(rng), customer: customer._id }, { id }));
    }
    case 'createTechnician': {
      const id = newId('Technician');
      return () => created(s.createDoc({ '~class': 'Technician', name: `T${c}-${rng.int(1, 8)}` }, { id }));
    }
    case 'createVisit': {
      const site = one(view.Site);
      if (!site) return null;
      const technician = rng.chance(0.6) ? one(view.Technician) : null;
      const id = newId('Visit');
      return () => created(s.createDoc({ '~class': 'Visit', ref: `V${c}-${rng.int(1, 200)}`, note: text(rng), site: site._id, ...(technician ? { technician: technician._id } : {}) }, { id }));
    }
    case 'update': {
      const cls = rng.pick(['Customer', 'Site', 'Visit'] as const);
      const doc = one(view[cls]);
      if (!doc) return null;
      const changes = cls === 'Customer' ? (rng.chance(0.5) ? { name: text(rng) } : { notes: `secret ${text(rng)}` }) : cls === 'Site' ? { city: text(rng) } : { note: text(rng) };
      return () => created(s.updateDoc(doc._id, changes));
    }
    case 'setPrimarySite': {
      const customer = one(view.Customer);
      const site = one(view.Site);
      if (!customer || !site) return null;
      return () => created(s.updateDoc(customer._id, { primarySite: site._id }));
    }
    case 'assignTechnician': {
      const visit = one(view.Visit);
      if (!visit) return null;
      const technician = rng.chance(0.8) ? one(view.Technician) : null;
      return () => created(s.updateDoc(visit._id, { technician: technician ? technician._id : null }));
    }
    case 'softDelete': {
      const visit = one(view.Visit);
      if (!visit) return null;
      return () => created(s.deleteDocument(visit._id));
    }
    case 'transaction':
      return planTransaction(client, rng, view, newId, one);
    default:
      return null;
  }
}

/**
 * Three shapes: a parent and its child in one transaction (a Site and its Customer's primary
 * site), an update of a shared document with a create (a Customer's visit counter and the
 * Visit), and two updates.
 */
function planTransaction(client: Client, rng: Prng, view: View, newId: (cls: string) => string, one: (docs: Doc[]) => Doc | null): Write | null {
  const s = client.stack;
  const c = client.index;
  const shape = rng.int(0, 2);
  if (shape === 0) {
    const customer = one(view.Customer);
    if (!customer) return null;
    const siteId = newId('Site');
    const code = `S${c}-${rng.int(1, 80)}`;
    const city = text(rng);
    return async () => {
      await s.transaction(async (tx) => {
        await tx.createDoc({ '~class': 'Site', code, city, customer: customer._id }, { id: siteId });
        await tx.updateDoc(customer._id, { primarySite: siteId });
      });
      return [siteId, customer._id];
    };
  }
  if (shape === 1) {
    const customers = new Set(view.Customer.map((d) => d._id));
    const site = one(view.Site.filter((d) => customers.has(String(d.customer))));
    if (!site) return null;
    const visitId = newId('Visit');
    const ref = `V${c}-${rng.int(1, 200)}`;
    const note = text(rng);
    const customerId = String(site.customer);
    return async () => {
      await s.transaction(async (tx) => {
        const customer = await tx.getDocument(customerId);
        await tx.updateDoc(customerId, { visits: Number(customer?.visits ?? 0) + 1 });
        await tx.createDoc({ '~class': 'Visit', ref, note, site: site._id }, { id: visitId });
      });
      return [customerId, visitId];
    };
  }
  if (view.Visit.length < 2) return null;
  const [a, b] = rng.shuffle(view.Visit).slice(0, 2);
  const notes = [text(rng), text(rng)];
  return async () => {
    await s.transaction(async (tx) => {
      await tx.updateDoc(a._id, { note: notes[0] });
      await tx.updateDoc(b._id, { note: notes[1] });
    });
    return [a._id, b._id];
  };
}
