import { KERNEL_ERRORS } from '../contracts/errors.js';
import type { createReplication as fullCreate, StorageReplication } from './replication.js';

/**
 * The slim bundle's stand-in for ./replication.ts: the replication surface of a store serves the
 * sync plugin and the server node, which the slim preset leaves out. Every member refuses with
 * DS_NOT_IN_BUILD, so a plugin that reaches for it from a slim stack learns why at once.
 */
export const createReplication: typeof fullCreate = () =>
  new Proxy({} as StorageReplication, {
    get: (_target, member) => () => {
      throw KERNEL_ERRORS.notInBuild(`storage.replication.${String(member)} is not in the slim bundle: open the stack from docstack/browser.`);
    },
  });
