import type { DomainModel, DomainRegistry } from '../domains/index.js';
import { SQL_ERRORS } from './errors.js';
import { NAME } from './guard.js';
import { type AttributeModel, CLASS_META, type ClassModel, type ClientStack } from '../../index.js';

/** How a column's values compare: only a condition whose value has the same kind is pushed down. */
export type ValueKind = 'number' | 'string' | 'boolean' | 'other';

/** A table: a class or a relation domain, with its columns. */
export interface TableInfo {
  name: string;
  kind: 'class' | 'relation';
  model?: ClassModel;
  domain?: DomainModel;
  /** column → kind of its values */
  columns: Map<string, ValueKind>;
  /** attribute names stored sealed (the encryption plugin's `encrypted: true`) */
  encrypted: Set<string>;
  /** attribute names with `indexed: true` */
  indexed: string[];
  primaryKey: string[];
}

export const SYSTEM_COLUMNS: [string, ValueKind][] = [
  ['_id', 'string'],
  ['~createTimestamp', 'string'],
  ['~updateTimestamp', 'string'],
  ['active', 'boolean'],
];
const RELATION_COLUMNS: [string, ValueKind][] = [...SYSTEM_COLUMNS, ['sourceId', 'string'], ['targetId', 'string']];

const NUMBER_TYPES = new Set(['integer', 'decimal']);
const STRING_TYPES = new Set(['string', 'date', 'enum', 'foreign_key', 'reference']);

export function kindOf(attribute: AttributeModel): ValueKind {
  if (attribute.isArray) return 'other';
  if (NUMBER_TYPES.has(attribute.type)) return 'number';
  if (STRING_TYPES.has(attribute.type)) return 'string';
  return attribute.type === 'boolean' ? 'boolean' : 'other';
}

export const isIndexed = (attribute: AttributeModel): boolean => attribute.indexed === true;

export function classTable(model: ClassModel): TableInfo {
  const attributes = Object.values(model.schema);
  return {
    name: model.name,
    kind: 'class',
    model,
    columns: new Map([...SYSTEM_COLUMNS, ...attributes.map((a): [string, ValueKind] => [a.name, kindOf(a)])]),
    encrypted: new Set(attributes.filter((a) => a.encrypted === true).map((a) => a.name)),
    indexed: attributes.filter(isIndexed).map((a) => a.name),
    primaryKey: attributes.filter((a) => a.primaryKey === true).map((a) => a.name),
  };
}

/** A table by name: a class (FROM Customer), else a relation domain (FROM HasPassport). */
export async function resolveTable(stack: ClientStack, domains: DomainRegistry | undefined, name: string): Promise<TableInfo> {
  const model = await stack.classCache.get(name);
  if (model && model['~class'] === CLASS_META && model.active !== false) return classTable(model);
  const domain = domains ? await domains.find(name) : null;
  if (domain) {
    return { name, kind: 'relation', domain, columns: new Map(RELATION_COLUMNS), encrypted: new Set(), indexed: [], primaryKey: [] };
  }
  throw SQL_ERRORS.tableUnknown(`There is no class or relation domain named ${JSON.stringify(name)}.`, { details: { table: name } });
}

/**
 * The names a statement's rewrite quotes (names.ts): each of the given tables that is a class,
 * with its columns. One class lookup per distinct name (a cached model costs no read); the
 * tables are the statement's, which it looks up anyway once parsed.
 */
export async function classNamesOf(stack: ClientStack, tables: readonly string[]): Promise<Set<string>> {
  const names = new Set<string>();
  // only what the guard lets reach a table lookup after the parse (an identifier): no other document is read
  const models = await Promise.all(tables.filter((name) => NAME.test(name)).map((name) => stack.classCache.get(name)));
  for (const model of models) {
    if (!model || model['~class'] !== CLASS_META || model.active === false) continue;
    names.add(model.name);
    for (const column of classTable(model).columns.keys()) names.add(column);
  }
  return names;
}
