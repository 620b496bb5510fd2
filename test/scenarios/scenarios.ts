/**
 * Scenarios shared by the Node suite (test/scenarios/scenarios.test.ts: memory and leveldb) and
 * the Chromium suite (test/browser: IndexedDB, the real bundle). They import the engine as an app
 * does, from `docstack/browser` — in Node that is the source, in the page the bundle — and assert
 * with ./check.ts, so one set of assertions runs in both places.
 */
import { addTrigger, Attribute, browser, Class, definePlugin, Domain, registerTriggerHandler, type BrowserStack, type Doc } from 'docstack/browser';
import { equal, has, ok, refused } from './check.js';

/** Trigger handlers the scenarios use, registered as a third-party plugin would. */
export const scenarioHandlers = definePlugin({
  name: 'scenario-handlers',
  requires: ['triggers'],
  setup(kernel) {
    /** the natural key is stored trimmed and in capitals */
    registerTriggerHandler(kernel, 'scenario.normalise', (doc) => ({ ...doc, code: String(doc.code ?? '').trim().toUpperCase() }));
    /** a ticket cannot be created closed */
    registerTriggerHandler(kernel, 'scenario.notClosed', (doc) => {
      if (doc.status === 'closed') throw new Error('A ticket cannot be created closed.');
    });
  },
});

/** The plugins every scenario stack is opened with: the browser preset and the handlers. */
export const scenarioPlugins = [...browser, scenarioHandlers] as const;

export const PASSPHRASE = 'scenario passphrase, not a real one';
export const SECRET = 'diagnosis-7c1e-only-in-ciphertext';

/** What `model` wrote, for `readBack` after a reload (plain JSON: it crosses into the page and back). */
export interface ModelFacts {
  hammer: Record<string, unknown>;
  sawId: string;
  ticketId: string;
  patientId: string;
  relations: number;
}

const PRODUCT_VALUES = {
  sku: 'H-1',
  name: 'Hammer',
  stock: 12,
  price: 12.5,
  available: true,
  released: '2024-02-29',
  size: 'M',
  dims: { w: 3, h: 30, unit: 'cm', notes: ['steel', null] },
  tags: ['tools', 'sale'],
};

/**
 * Classes and every attribute type (refusals and their codes), primary keys and addOrUpdateCard,
 * a domain with cardinality, before-triggers, an encrypted attribute. Leaves the stack unlocked.
 */
export async function model(stack: BrowserStack): Promise<ModelFacts> {
  // --- classes and every attribute type
  await Class.create(stack, 'Category', 'class', 'product families', { code: { type: 'string', primaryKey: true, maxLength: 8 } });
  await Class.create(stack, 'Maker', 'class', '', { name: { type: 'string', primaryKey: true } });
  const product = await Class.create(stack, 'Product', 'class', 'one attribute of every type', {
    sku: { type: 'string', primaryKey: true, maxLength: 12 },
    name: { type: 'string', mandatory: true, maxLength: 40 },
    stock: { type: 'integer', min: 0, max: 1000 },
    price: { type: 'decimal', precision: 2, min: 0 },
    available: { type: 'boolean' },
    released: { type: 'date', format: 'date' },
    size: { type: 'enum', values: ['S', 'M', 'L'] },
    dims: { type: 'object' },
    category: { type: 'foreign_key', targetClass: 'Category' },
    tags: { type: 'string', isArray: true, defaultValue: [] },
  });
  await Domain.create(stack, null, 'madeBy', 'domain', 'N:1', 'Product', 'Maker', 'who makes a product');
  await Attribute.create(product, 'maker', 'reference', 'the maker (N:1: on the source class)', { domain: 'madeBy' });
  await refused(Attribute.create(product, 'colour', 'colour', ''), 'DS_ATTRIBUTE_TYPE_UNKNOWN', 'an unknown attribute type', 'colour');
  await refused(Attribute.create(product, 'bad', 'integer', '', { maxLength: 3 }), 'DS_ATTRIBUTE_CONFIG_INVALID', 'a config key of another type');
  equal(Object.keys((await stack.requireClass('Product')).schema).sort(), ['available', 'category', 'dims', 'maker', 'name', 'price', 'released', 'size', 'sku', 'stock', 'tags'], 'the schema after refused attributes');

  const tools = await stack.createDoc({ '~class': 'Category', code: 'TOOLS' });
  const acme = await stack.createDoc({ '~class': 'Maker', name: 'Acme' });
  const other = await stack.createDoc({ '~class': 'Category', code: 'OTHER' });
  const hammer = await stack.createDoc({ '~class': 'Product', ...PRODUCT_VALUES, category: tools._id, maker: acme._id });
  has(await stack.getDocument(hammer._id), { ...PRODUCT_VALUES, category: tools._id, maker: acme._id, active: true }, 'the stored product');

  const base = { '~class': 'Product', name: 'Thing' };
  const refusals: [Record<string, unknown>, string, string][] = [
    [{ name: undefined, sku: 'N-1' }, 'DS_VALIDATION_MANDATORY', 'name'],
    [{ sku: 'S'.repeat(13) }, 'DS_VALIDATION_MAX_LENGTH', 'sku'],
    [{ stock: 1.5 }, 'DS_VALIDATION_INTEGER', 'stock'],
    [{ stock: 1001 }, 'DS_VALIDATION_RANGE', 'stock'],
    [{ price: 1.999 }, 'DS_VALIDATION_PRECISION', 'price'],
    [{ available: 'yes' }, 'DS_VALIDATION_TYPE', 'available'],
    [{ released: '2023-02-30' }, 'DS_VALIDATION_DATE_FORMAT', 'released'],
    [{ size: 'XL' }, 'DS_VALIDATION_ENUM', 'size'],
    [{ dims: 5 }, 'DS_VALIDATION_TYPE', 'dims'],
    [{ category: 'Category-nowhere' }, 'DS_VALIDATION_FOREIGN_KEY', 'category'],
    [{ category: acme._id }, 'DS_VALIDATION_FOREIGN_KEY', 'category'],
    [{ tags: 'tools' }, 'DS_VALIDATION_ARRAY', 'tags'],
    [{ tags: ['a', 7] }, 'DS_VALIDATION_TYPE', 'tags[1]'],
    [{ maker: other._id }, 'DS_RELATION_INVALID', 'maker'],
    [{ colour: 'red' }, 'DS_VALIDATION_UNKNOWN_ATTRIBUTE', 'colour'],
  ];
  let n = 0;
  for (const [values, code, path] of refusals) {
    n += 1;
    await refused(stack.createDoc({ ...base, sku: `R-${n}`, ...values }), code, `refusal ${code} of ${JSON.stringify(values)}`, path);
  }
  // a refused batch stores nothing, not even its valid documents
  await refused(stack.createDocs([{ ...base, sku: 'B-1' }, { ...base, sku: 'B-2', stock: -1 }]), 'DS_VALIDATION_RANGE', 'a batch with one bad document', 'stock');
  equal((await stack.findDocuments('Product')).length, 1, 'products stored after the refusals');

  // --- primary keys and addOrUpdateCard
  await refused(stack.createDoc({ ...base, sku: 'H-1' }), 'DS_UNIQUE_VIOLATION', 'a second product with the sku H-1');
  equal((await product.getByPrimaryKeys({ sku: 'H-1' }))?._id, hammer._id, 'the primary-key lookup');
  equal(await product.getByPrimaryKeys({ sku: 'nope' }), null, 'a lookup of a key nobody holds');
  const saw = await product.addOrUpdateCard({ sku: 'S-1', name: 'Saw', price: 9.99 });
  const sawAgain = await product.addOrUpdateCard({ sku: 'S-1', name: 'Saw', price: 8.5, stock: 3 });
  equal(sawAgain._id, saw._id, 'addOrUpdateCard updates the document holding the key');
  has(await stack.getDocument(saw._id), { price: 8.5, stock: 3 }, 'the updated card');
  // a key names its document (its id is derived from it), so an update cannot change it; a
  // re-key is a create under the new key and a delete of the old: the old key is free again
  await refused(stack.updateDoc(saw._id, { sku: 'S-2' }), 'DS_PRIMARY_KEY_IMMUTABLE', 'a re-key by an update', 'sku');
  const card = await stack.createDoc({ '~class': 'Product', sku: 'S-2', name: 'Saw', price: 8.5, stock: 3 });
  await stack.deleteDocument(saw._id);
  equal(await product.getByPrimaryKeys({ sku: 'S-1' }), null, 'the old key after a re-key');
  equal((await product.getByPrimaryKeys({ sku: 'S-2' }))?._id, card._id, 'the new key after a re-key');

  // --- a domain with cardinality (1:N: a car has one owner)
  await Class.create(stack, 'Person', 'class', '', { name: { type: 'string', primaryKey: true } });
  await Class.create(stack, 'Car', 'class', '', { plate: { type: 'string', primaryKey: true } });
  const owns = await Domain.create(stack, null, 'owns', 'domain', '1:N', 'Person', 'Car', 'who owns which car');
  const [ann, bob] = await stack.createDocs([{ '~class': 'Person', name: 'ann' }, { '~class': 'Person', name: 'bob' }]);
  const [c1, c2] = await stack.createDocs([{ '~class': 'Car', plate: 'C1' }, { '~class': 'Car', plate: 'C2' }]);
  await owns.addRelation(ann, c1._id);
  await owns.addRelation(ann, c2._id);
  await refused(owns.addRelation(bob, c1._id), 'DS_RELATION_CARDINALITY', 'a second owner of one car');
  await refused(owns.addRelation(ann, c1._id), 'DS_RELATION_EXISTS', 'the same relation twice');
  const relations = (await owns.getRelations()).length;
  equal(relations, 2, 'relations in "owns"');

  // --- before-triggers: one changes the draft (validated after), one refuses
  const tickets = await Class.create(stack, 'Ticket', 'class', '', {
    code: { type: 'string', primaryKey: true, maxLength: 10 },
    status: { type: 'enum', values: ['open', 'closed'], defaultValue: 'open' },
  });
  await addTrigger(tickets, { name: 'normalise', when: 'before', on: ['create', 'update'], handler: 'scenario.normalise' });
  await addTrigger(tickets, { name: 'notClosed', when: 'before', on: ['create'], handler: 'scenario.notClosed' });
  const ticket = await stack.createDoc({ '~class': 'Ticket', code: '  ab-1 ' });
  has(await stack.getDocument(ticket._id), { code: 'AB-1', status: 'open' }, 'the ticket as the trigger left it');
  equal((await tickets.getByPrimaryKeys({ code: 'AB-1' }))?._id, ticket._id, 'the key the trigger wrote');
  await refused(stack.createDoc({ '~class': 'Ticket', code: ' ab-1' }), 'DS_UNIQUE_VIOLATION', 'the same key after normalising');
  await refused(stack.createDoc({ '~class': 'Ticket', code: 'x-2', status: 'closed' }), 'DS_TRIGGER_REFUSED', 'a ticket created closed');
  await refused(stack.createDoc({ '~class': 'Ticket', code: 'much too long a code' }), 'DS_VALIDATION_MAX_LENGTH', 'what the trigger returned is validated', 'code');
  equal((await stack.findDocuments('Ticket')).length, 1, 'tickets stored');

  // --- an encrypted attribute, sealed and opened with WebCrypto
  await stack.unlock(PASSPHRASE);
  await Class.create(stack, 'Patient', 'class', '', { name: { type: 'string' }, diagnosis: { type: 'string', encrypted: true, maxLength: 100 } });
  const patient = await stack.createDoc({ '~class': 'Patient', name: 'Pat', diagnosis: SECRET });
  has(await stack.getDocument(patient._id), { name: 'Pat', diagnosis: SECRET }, 'the encrypted attribute read unlocked');
  equal((await stack.findDocuments('Patient', { diagnosis: SECRET })).length, 1, 'a selector on the decrypted value');
  stack.lock();
  has(await stack.getDocument(patient._id), { name: 'Pat', diagnosis: { '~sealed': true, scope: 'default' } }, 'the encrypted attribute read locked');
  await refused(stack.updateDoc(patient._id, { diagnosis: 'another' }), 'DS_ENCRYPTION_LOCKED', 'a new secret while locked');
  await refused(stack.unlock('not the passphrase'), 'DS_ENCRYPTION_PASSPHRASE', 'a wrong passphrase');
  await stack.unlock(PASSPHRASE);
  has(await stack.getDocument(patient._id), { diagnosis: SECRET }, 'the encrypted attribute after unlocking again');

  // --- a transaction: all or nothing, its own writes visible inside
  const moved = await stack.transaction(async (tx) => {
    const stocked = await tx.getDocument(card._id);
    await tx.updateDoc(card._id, { stock: Number(stocked?.stock) - 1 });
    const made = await tx.createDoc({ '~class': 'Ticket', code: 'tx-1' });
    equal((await tx.findDocuments('Ticket')).length, 2, 'the transaction sees its own ticket');
    return made._id;
  });
  has(await stack.getDocument(moved), { code: 'TX-1' }, 'the committed ticket (the before-trigger ran)');
  await refused(
    stack.transaction(async (tx) => {
      await tx.createDoc({ '~class': 'Ticket', code: 'tx-2' });
      await tx.createDoc({ '~class': 'Ticket', code: ' tx-1 ' }); // the key the first one holds
    }),
    'DS_UNIQUE_VIOLATION',
    'a transaction with a refused write',
  );
  equal((await stack.findDocuments('Ticket', { code: 'TX-2' })).length, 0, 'nothing of the aborted transaction');
  await stack.updateDoc(card._id, { stock: 3 }); // back to what readBack expects

  // --- a versioned patch: a class, then a rename that moves the values
  await stack.patches.apply({ target: 'scenario', version: '1.0.0', changes: [{ kind: 'addClass', name: 'Memo', schema: { title: { type: 'string' } } }] });
  const memo = await stack.createDoc({ '~class': 'Memo', title: 'before the patch' });
  await stack.patches.apply({ target: 'scenario', version: '1.1.0', changes: [{ kind: 'renameAttribute', className: 'Memo', from: 'title', to: 'subject' }] });
  has(await stack.getDocument(memo._id), { subject: 'before the patch' }, 'the value moved by renameAttribute');
  equal((await stack.patches.list()).map((p) => p.version), ['1.0.0', '1.1.0'], 'the patches applied here');

  const stored = await stack.getDocument(hammer._id);
  ok(stored, 'the hammer is stored');
  return { hammer: plain(stored), sawId: card._id, ticketId: ticket._id, patientId: patient._id, relations };
}

/** What `model` stored, read back from a store opened again (a page reload, a process restart). */
export async function readBack(stack: BrowserStack, facts: ModelFacts): Promise<void> {
  const classes = await stack.listClasses();
  for (const name of ['Category', 'Maker', 'Product', 'Person', 'Car', 'Ticket', 'Patient']) ok(classes.includes(name), `class ${name} after reopening (have ${classes.join(', ')})`);
  const product = await stack.getClass('Product');
  has(await product.getByPrimaryKeys({ sku: 'H-1' }), facts.hammer, 'the product by its key after reopening');
  has(await stack.getDocument(facts.sawId), { sku: 'S-2', price: 8.5, stock: 3 }, 'the updated card after reopening');
  await refused(stack.createDoc({ '~class': 'Product', sku: 'H-1', name: 'again' }), 'DS_UNIQUE_VIOLATION', 'the key index after reopening');
  await refused(stack.createDoc({ '~class': 'Product', sku: 'Z-1', name: 'bad', price: 0.001 }), 'DS_VALIDATION_PRECISION', 'validation after reopening', 'price');
  equal((await (await stack.useDomain('owns')).getRelations()).length, facts.relations, 'relations after reopening');
  const bob = await (await stack.getClass('Person')).getByPrimaryKeys({ name: 'bob' });
  const c1 = await (await stack.getClass('Car')).getByPrimaryKeys({ plate: 'C1' });
  ok(bob && c1, 'bob and C1 after reopening');
  await refused((await stack.useDomain('owns')).addRelation(bob, c1._id), 'DS_RELATION_CARDINALITY', 'cardinality after reopening');
  has(await stack.getDocument(facts.ticketId), { code: 'AB-1' }, 'the ticket after reopening');
  // the trigger is part of the stored class: it still runs
  has(await stack.createDoc({ '~class': 'Ticket', code: ' cd-2 ' }), { code: 'CD-2' }, 'the before-trigger after reopening');
  has(await stack.getDocument(facts.patientId), { diagnosis: { '~sealed': true, scope: 'default' } }, 'the secret before unlocking');
  await stack.unlock(PASSPHRASE);
  has(await stack.getDocument(facts.patientId), { diagnosis: SECRET }, 'the secret after reopening and unlocking');
  // patches are applied once: a reopen applies nothing again
  equal((await stack.patches.list()).map((p) => p.version), ['1.0.0', '1.1.0'], 'the applied patches after reopening');
  equal((await stack.patches.pending()).length, 0, 'nothing pending after reopening');
  has((await stack.findDocuments('Memo'))[0], { subject: 'before the patch' }, 'the patched document after reopening');
}

/** The shared class of the two-writer race: a natural key only. */
export async function raceClass(stack: BrowserStack): Promise<void> {
  await Class.create(stack, 'Seat', 'class', 'one document per seat code', { code: { type: 'string', primaryKey: true }, by: { type: 'string' } });
}

/**
 * One writer of the race: creates a Seat per code (one at a time, as users would), yielding
 * between writes so the other writer interleaves. Returns the codes it won (with the ids) and
 * the ones refused because the other writer had them.
 */
export async function raceWrites(stack: BrowserStack, writer: string, codes: string[]): Promise<{ won: Record<string, string>; lost: string[] }> {
  const won: Record<string, string> = {};
  const lost: string[] = [];
  for (const code of codes) {
    try {
      const doc = await stack.createDoc({ '~class': 'Seat', code, by: writer });
      won[code] = doc._id;
    } catch (err) {
      if ((err as { code?: string }).code !== 'DS_UNIQUE_VIOLATION') throw err;
      lost.push(code);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return { won, lost };
}

/** After the race: exactly one Seat per code, and every key lookup names it. */
export async function raceCheck(stack: BrowserStack, codes: string[]): Promise<Record<string, string>> {
  const seats = await stack.findDocuments('Seat');
  const byCode: Record<string, string> = {};
  for (const seat of seats) {
    const code = String(seat.code);
    ok(!(code in byCode), `two Seats hold the code ${code}: ${byCode[code]} and ${seat._id}`);
    byCode[code] = seat._id;
  }
  equal(Object.keys(byCode).sort(), [...new Set(codes)].sort(), 'the seat codes stored');
  const seatClass = await stack.getClass('Seat');
  for (const code of Object.keys(byCode)) equal((await seatClass.getByPrimaryKeys({ code }))?._id, byCode[code], `the key lookup of ${code}`);
  return byCode;
}

function plain(doc: Doc): Record<string, unknown> {
  return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
}
