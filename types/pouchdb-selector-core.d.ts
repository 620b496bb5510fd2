// pouchdb-selector-core ships no types; these are the two functions docstack uses.
declare module 'pouchdb-selector-core' {
  export function massageSelector(selector: unknown): unknown;
  export function filterInMemoryFields<R>(rows: R[], request: { selector: unknown }, inMemoryFields: string[]): R[];
}
