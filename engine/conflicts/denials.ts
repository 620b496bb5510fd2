import { KERNEL_ERRORS } from '../../contracts/errors.js';
import { CLASS_META } from '../../contracts/model.js';
import type { Denial, DenialRecord } from '../../contracts/denials.js';
import type { StackPort } from '../../contracts/stack-port.js';

/**
 * The class a denial names: the stored document's `~class` (a push refusal: the document is
 * here), else its id's prefix (a pull refusal: it was never stored). An id without `-` is a
 * class document's (its name).
 */
async function classOfDenied(stack: StackPort, id: string): Promise<string> {
  const stored = await stack.storage.get(id).catch(() => null);
  if (stored && typeof stored['~class'] === 'string') return stored['~class'];
  const dash = id.indexOf('-');
  return dash > 0 ? id.slice(0, dash) : CLASS_META;
}

/**
 * Every refusal the loaded plugins keep (the `denials` hook), one shape whatever the source,
 * of one class or of all, oldest first (then by id). No source loaded: [].
 */
export async function listDenials(stack: StackPort, className?: string): Promise<Denial[]> {
  if (className !== undefined && (typeof className !== 'string' || className === '')) {
    throw KERNEL_ERRORS.queryInvalid(`denials takes a class name, or nothing for every class (got ${JSON.stringify(className)}).`, { path: 'className' });
  }
  if (!stack.hooks.denials.isUsed()) return [];
  const records: DenialRecord[] = await stack.hooks.denials.promise([], stack);
  const out: Denial[] = [];
  for (const record of records) {
    const denial: Denial = { ...record, className: await classOfDenied(stack, record.id) };
    if (className === undefined || denial.className === className) out.push(denial);
  }
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Forgets a refusal in every source that holds it (the `resolveDenial` hook): true when one
 * did. An id no source holds (resolved already, never refused, not a string) answers false.
 */
export async function resolveDenial(stack: StackPort, id: string): Promise<boolean> {
  if (typeof id !== 'string' || id === '' || !stack.hooks.resolveDenial.isUsed()) return false;
  return stack.hooks.resolveDenial.promise(false, { id, stack });
}
