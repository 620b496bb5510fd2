import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';

/**
 * Constant keys of the per-stack awilix container. Plugins register their own services under
 * keys they export as constants too; nothing is reached through module-level singletons.
 */
export const KEYS = {
  stack: 'stack',
  /** the storage facade (storage/facade.ts); the PouchDB store itself is the kernel's */
  storage: 'storage',
  hooks: 'hooks',
  changeFeed: 'changeFeed',
  classCache: 'classCache',
  primaryKeys: 'primaryKeys',
  options: 'stackOptions',
  /** the stack's Clock: read lifetimes, grace periods and due times here, never Date.now() */
  clock: 'clock',
} as const;

export function createStackContainer(values: Record<string, unknown>): AwilixContainer {
  const container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
  for (const [key, value] of Object.entries(values)) container.register(key, asValue(value));
  return container;
}
