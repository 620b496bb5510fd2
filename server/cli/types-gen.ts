/**
 * `docstack types`: TypeScript declarations from a stack's class documents — one interface per
 * class, foreign keys as branded ids, and `DocstackClasses` (class name → document type) for
 * code that is generic over the class name. The output depends on nothing (no import of
 * docstack), so it compiles in any project; usable from code: `generateTypes(classDocs)`.
 */

/** A class document as stored (attributes under `config`) or in memory (flat): both are read. */
export interface ClassSource {
  name: string;
  description?: string;
  active?: boolean;
  schema: Record<string, Record<string, unknown>>;
}

export interface GenerateTypesOptions {
  /** where the classes came from, written in the header (a store path, a node's URL) */
  source?: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(['DocstackClasses', 'DocstackClassName', 'DocstackDocFields', 'DocstackNew', 'DocstackId']);

/** A type name from a class name: letters and digits kept, the rest dropped, first letter upper. */
function typeName(className: string, taken: Set<string>): string {
  const words = className.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') || 'Class';
  if (/^[0-9]/.test(name)) name = `C${name}`;
  if (RESERVED.has(name) || RESERVED.has(name.replace(/Id$/, ''))) name = `${name}Doc`;
  let unique = name;
  for (let n = 2; taken.has(unique) || taken.has(`${unique}Id`); n++) unique = `${name}${n}`;
  taken.add(unique);
  taken.add(`${unique}Id`);
  return unique;
}

const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** A comment's text without anything that would end the comment. */
const commentText = (text: string): string => text.replace(/\*\//g, '* /').replace(/\s+/g, ' ').trim();

/** The attribute flat: a stored attribute's `config` keys beside name and type. */
function flat(attribute: Record<string, unknown>): Record<string, unknown> {
  const config = attribute.config;
  return typeof config === 'object' && config !== null ? { ...attribute, ...(config as Record<string, unknown>) } : attribute;
}

function enumLiterals(values: unknown): string {
  const literals = (Array.isArray(values) ? values : []).map((v) => (typeof v === 'string' ? v : (v as { value?: unknown })?.value)).filter((v): v is string => typeof v === 'string');
  return literals.length > 0 ? literals.map((v) => JSON.stringify(v)).join(' | ') : 'string';
}

/** The TypeScript type of one attribute's value (before `isArray`). */
function valueType(attribute: Record<string, unknown>, idType: (className: string) => string): string {
  switch (attribute.type) {
    case 'string':
    case 'date': // text in the attribute's format (docs/data-model.md#dates)
      return 'string';
    case 'integer':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return enumLiterals(attribute.values);
    case 'object':
      return 'Record<string, unknown>';
    case 'foreign_key':
      return typeof attribute.targetClass === 'string' ? idType(attribute.targetClass) : 'string';
    case 'reference': // the related document's id (its class is the domain's other side)
      return 'string';
    default: // a type a plugin defines: its values are not known here
      return 'unknown';
  }
}

function attributeLine(name: string, attribute: Record<string, unknown>, idType: (className: string) => string): string[] {
  const base = valueType(attribute, idType);
  const type = attribute.isArray === true ? (base.includes(' ') ? `(${base})[]` : `${base}[]`) : base;
  const required = attribute.mandatory === true || attribute.primaryKey === true;
  const notes = [
    typeof attribute.description === 'string' && attribute.description !== '' ? commentText(attribute.description) : '',
    `${String(attribute.type)}${attribute.type === 'date' && typeof attribute.format === 'string' ? ` (${attribute.format})` : ''}${attribute.primaryKey === true ? ', primary key' : ''}${attribute.encrypted === true ? ', encrypted (a sealed marker where this device lacks the key)' : ''}`,
  ].filter(Boolean);
  return [`  /** ${notes.join(' — ')} */`, `  ${key(name)}${required ? '' : '?'}: ${type};`];
}

/** The declarations for `classes` (inactive ones left out), as the text of a `.ts` file. */
export function generateTypes(classes: readonly ClassSource[], options: GenerateTypesOptions = {}): string {
  const active = classes.filter((c) => c.active !== false).sort((a, b) => a.name.localeCompare(b.name));
  const taken = new Set<string>(RESERVED);
  const names = new Map<string, string>();
  for (const cls of active) names.set(cls.name, typeName(cls.name, taken));
  // a foreign key to a class that is not generated (removed, or another stack's) still gets a brand
  const extra = new Map<string, string>();
  const idType = (className: string): string => {
    const known = names.get(className) ?? extra.get(className);
    if (known) return `${known}Id`;
    const name = typeName(className, taken);
    extra.set(className, name);
    return `${name}Id`;
  };
  const bodies = active.map((cls) => {
    const lines = Object.entries(cls.schema ?? {}).flatMap(([attrName, attribute]) => attributeLine(attrName, flat(attribute), idType));
    const doc = cls.description ? commentText(cls.description) : `A ${cls.name} document`;
    return [`/** ${doc} (class ${JSON.stringify(cls.name)}) */`, `export interface ${names.get(cls.name)} extends DocstackDocFields<${JSON.stringify(cls.name)}> {`, `  _id: ${names.get(cls.name)}Id;`, ...lines, '}'].join('\n');
  });
  const ids = [...names, ...extra].sort(([a], [b]) => a.localeCompare(b)).map(([className, name]) => `export type ${name}Id = DocstackId<${JSON.stringify(className)}>;`);
  const map = active.map((cls) => `  ${key(cls.name)}: ${names.get(cls.name)};`);
  return [
    `// Generated by \`docstack types\`${options.source ? ` from ${options.source}` : ''}. Do not edit: run it again when the classes change.`,
    '',
    '/** A document id of one class: a string that only an id of that class is assignable to. */',
    "export type DocstackId<C extends string> = string & { readonly __class: C };",
    '',
    '/** The fields the engine keeps on every document. */',
    'export interface DocstackDocFields<C extends string> {',
    '  _id: DocstackId<C>;',
    '  _rev?: string;',
    "  '~class': C;",
    "  '~createTimestamp': string;",
    "  '~updateTimestamp'?: string;",
    '  active: boolean;',
    "  '~scope'?: string;",
    '}',
    '',
    ...ids,
    '',
    ...bodies.flatMap((b) => [b, '']),
    '/** Every class of the stack, by name: `DocstackClasses["Invoice"]` is an Invoice document. */',
    `export interface DocstackClasses {${map.length > 0 ? `\n${map.join('\n')}\n` : ''}}`,
    '',
    'export type DocstackClassName = keyof DocstackClasses;',
    '',
    '/** What createDoc takes for a class: its attributes and `~class` (the engine sets the other system fields). */',
    "export type DocstackNew<C extends DocstackClassName> = Omit<DocstackClasses[C], keyof DocstackDocFields<C>> & { '~class': C; '~scope'?: string };",
    '',
  ].join('\n');
}
