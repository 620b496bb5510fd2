export { callerOf, type Caller } from './caller.js';
export { authorize, refusePlaintext, type Action } from './rules.js';
export { classifyWrite, META_CLASS_IDS, type WriteSubject } from './subjects.js';
export { canRead } from './visibility.js';
export { KeyringOwners } from './keyring-owners.js';
