import { isSealed } from './sealed.js';
import { generateDataKey } from './crypto.js';
import type { Keyring } from './keyring.js';
import { encryptedAttributes } from './sealing.js';
import { type ClassModel, type ClientStack, type Doc, DocstackError, type WriteRequest } from '../../index.js';
import { ENCRYPTION_ERRORS } from './errors.js';

export interface RotationProgress {
  scope: string;
  kid: string;
  done: number;
  total: number;
}

/**
 * Rotates a scope's key: a new key becomes current at once (new writes use it), then every
 * document holding a value sealed under an older key of the scope is rewritten, batch by batch,
 * through the pipeline — which opens the value with the old key and seals it with the new one.
 * Old keys stay in the keyring, so every document reads the same before, during and after. A
 * batch that meets a concurrent writer is read again and retried. Progress: `keyring:rotation`.
 */
export async function rotateScope(stack: ClientStack, keyring: Keyring, scope: string, batchSize = 100): Promise<RotationProgress> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw ENCRYPTION_ERRORS.encryptionKeyring('batchSize must be a whole number ≥ 1.', { path: 'batchSize' });
  if (!(await keyring.knowsScope(scope))) throw ENCRYPTION_ERRORS.encryptionScopeUnknown(`The keyring has no scope "${scope}".`, { path: 'scope' });
  let kid = '';
  await keyring.update(async (doc) => {
    kid = await keyring.addScopeKey(doc, scope, await generateDataKey());
  });
  // only values under a key this keyring holds: another user's keyring may name a scope the
  // same (their documents replicate here too), and what no held key opens cannot be rewritten
  const held = new Set((await keyring.scopeEntry(scope))?.kids ?? []);
  const classes = await classesWithEncryption(stack);
  const stale = (doc: Doc, model: ClassModel) =>
    encryptedAttributes(model).some((a) => {
      const v = doc[a.name];
      return isSealed(v) && v.scope === scope && v.kid !== kid && held.has(v.kid);
    });
  const total = (await Promise.all(classes.map((m) => countWhere(stack, m, stale)))).reduce((a, b) => a + b, 0);
  const progress: RotationProgress = { scope, kid, done: 0, total };
  stack.emit('keyring:rotation', { ...progress });
  for (const model of classes) {
    for (;;) {
      const batch = await findWhere(stack, model, stale, batchSize);
      if (batch.length === 0) break;
      const requests: WriteRequest[] = batch.map((previous) => ({ op: 'update', previous, draft: { ...previous }, classModel: model }));
      try {
        await stack.writeRequests(requests, 'system');
      } catch (err) {
        if ((err as DocstackError).code !== 'DS_DOC_CONFLICT') throw err;
        continue; // someone wrote meanwhile (with the new key already): read the batch again
      }
      progress.done = Math.min(progress.total, progress.done + batch.length);
      stack.emit('keyring:rotation', { ...progress });
    }
  }
  if (progress.done < progress.total) {
    // the rest was rewritten meanwhile by other writers, already under the new key
    progress.done = progress.total;
    stack.emit('keyring:rotation', { ...progress });
  }
  return progress;
}

async function classesWithEncryption(stack: ClientStack): Promise<ClassModel[]> {
  const out: ClassModel[] = [];
  for (const name of await stack.listClasses()) {
    const model = await stack.classCache.get(name);
    if (model && model.active !== false && !model.simple && encryptedAttributes(model).length > 0) out.push(model);
  }
  return out;
}

/** Raw active documents of a class (stored form, ciphertext included) that match, up to `limit`. */
async function findWhere(stack: ClientStack, model: ClassModel, match: (d: Doc, m: ClassModel) => boolean, limit: number): Promise<Doc[]> {
  const out: Doc[] = [];
  for await (const page of stack.storage.classPages(model.name)) {
    for (const doc of page) {
      if (doc.active !== false && doc['~class'] === model.name && match(doc, model)) out.push(doc);
      if (out.length >= limit) return out;
    }
  }
  return out;
}

async function countWhere(stack: ClientStack, model: ClassModel, match: (d: Doc, m: ClassModel) => boolean): Promise<number> {
  return (await findWhere(stack, model, match, Infinity)).length;
}
