// The browser bench's peers live in bench/peers/node_modules (outside the main install, where the
// type-check does not look): the few calls bench/browser/sides.ts makes, typed loosely.
declare module 'dexie' {
  const Dexie: new (name: string) => any;
  export default Dexie;
}
declare module 'rxdb' {
  export function createRxDatabase(options: { name: string; storage: unknown }): Promise<any>;
}
declare module 'rxdb/plugins/storage-dexie' {
  export function getRxStorageDexie(): unknown;
}
declare module 'rxdb/plugins/validate-ajv' {
  export function wrappedValidateAjvStorage(options: { storage: unknown }): unknown;
}
