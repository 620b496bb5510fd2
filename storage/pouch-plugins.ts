import PouchDB from 'pouchdb-core';
import type { PouchPlugin } from './options.js';

// Kept apart from storage/database.ts (the store itself, kernel-private): the sync plugin needs
// the replicator and the http adapter on the PouchDB its stack's store was made with.
const registeredPlugins = new Set<unknown>();

/**
 * Adds a PouchDB plugin (pouchdb-replication, pouchdb-adapter-http…) for every stack of the
 * process, once: some plugins define non-configurable members and throw when added twice.
 * pouchdb-core keeps one plugin registry per module instance, so this registers on
 * pouchdb-core's PouchDB itself, as storage/database.ts does for its adapters.
 */
export function registerPouchPlugin(plugin: PouchPlugin): void {
  if (registeredPlugins.has(plugin)) return;
  PouchDB.plugin(plugin as PouchDB.Plugin);
  registeredPlugins.add(plugin);
}
