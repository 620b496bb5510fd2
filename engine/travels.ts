import { isEngineClassName } from '../contracts/model.js';
import type { StackPort } from '../contracts/stack-port.js';

/**
 * Whether a document leaves the stack when it replicates somewhere other than a docstack node
 * (a cloud drive, a cloud queue): not `_design`/`_local` ones, not the engine's own class
 * documents (`class`, `domain`, `~Job`…: each store's system patches write its own), and not
 * documents of ephemeral classes. A class's flag is read once per checker.
 */
export function travelCheck(stack: StackPort): (id: string) => Promise<boolean> {
  const ephemeral = new Map<string, boolean>();
  return async (id) => {
    if (id.startsWith('_')) return false;
    const dash = id.indexOf('-');
    if (dash < 0) return !isEngineClassName(id);
    let className = id.slice(0, dash);
    if (!ephemeral.has(className)) {
      let model = await stack.requireClass(className).catch(() => null);
      if (!model) {
        // not a class's range: an id its creator chose (docs/data-model.md, "Ids"), of the class the document names
        const named = (await stack.storage.get(id))?.['~class'];
        if (typeof named !== 'string') return true;
        className = named;
        if (ephemeral.has(className)) return ephemeral.get(className) !== true;
        model = await stack.requireClass(className).catch(() => null);
      }
      ephemeral.set(className, model?.ephemeral === true);
    }
    return ephemeral.get(className) !== true;
  };
}
