/** The data model shared by the kernel and every plugin: documents, classes, attributes. */

/** The kernel's attribute types (engine/model/builtin-types.ts); plugins define more (`reference`). */
export const ATTRIBUTE_TYPES = ['string', 'integer', 'decimal', 'boolean', 'date', 'enum', 'object', 'foreign_key', 'attachment'] as const;
/** A kernel type, or the name of a type a plugin defines. */
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number] | (string & {});

/**
 * The config keys of the kernel's types; which keys apply to which type is in builtin-types.ts.
 * Plugins define their own keys (`encrypted`, a reference's `domain`): they are carried by the
 * index signature and typed by the plugin that reads them.
 */
export interface AttributeConfig {
  mandatory?: boolean;
  defaultValue?: unknown;
  isArray?: boolean;
  primaryKey?: boolean;
  maxLength?: number;
  /** integer and decimal: a number; date: a date written in the attribute's format (bounds included). */
  min?: number | string;
  max?: number | string;
  precision?: number;
  /** date only: a token pattern such as `YYYY-MM-DD` or `DD/MM/YYYY HH:mm`, or `date` / `date-time`. */
  format?: string;
  /**
   * enum only: the allowed values, stored in the specification's form `{ value }`. Plain
   * strings are accepted on input (`values: ['draft', 'done']`) and stored as `{ value }` too.
   */
  values?: (EnumValue | string)[];
  /** foreign_key only: the class the referenced document must belong to. */
  targetClass?: string;
  /** a key a plugin defines */
  [key: string]: unknown;
}

/** One allowed value of an enum attribute. */
export interface EnumValue {
  value: string;
}

/** The plain strings of an enum attribute's values (either stored form). */
export function enumValues(attribute: Pick<AttributeConfig, 'values'>): string[] {
  return (attribute.values ?? []).map((v) => (typeof v === 'string' ? v : v.value));
}

export interface AttributeModel extends AttributeConfig {
  name: string;
  type: AttributeType;
  description?: string;
}

/**
 * An attribute as a class document stores it (the specification's attribute model): the
 * configuration under `config`. In memory (ClassModel.schema) the same attribute is flat, its
 * config keys beside `name` and `type` (AttributeModel), which is what every reader uses; the
 * two meet at the storage boundary only (engine/model/attribute-shape.ts).
 */
export interface StoredAttribute {
  name: string;
  type: AttributeType;
  /** every configuration key; `{}` when none is set */
  config: AttributeConfig;
  description?: string;
}

/** Fields the engine maintains on every document; users never set them directly (but `~scope`). */
export const SYSTEM_FIELDS = [
  '_id',
  '_rev',
  '~class',
  '~createTimestamp',
  '~updateTimestamp',
  'active',
  '~scope',
  // the transaction that last wrote the document, `{ id, size }` (plugins/transactions)
  '~tx',
  // attributes whose value a node is still to assign, e.g. `["number"]` (plugins/authority: sequences)
  '~pending',
] as const;

export interface DocFields {
  _id: string;
  _rev?: string;
  '~class': string;
  '~createTimestamp': string;
  '~updateTimestamp'?: string;
  active: boolean;
  '~scope'?: string;
  '~tx'?: { id: string; size: number };
  '~pending'?: string[];
}

/** A stored document: system fields plus the attributes of its class. */
export type Doc = DocFields & Record<string, unknown>;

/** What a caller hands to createDoc: attributes plus `~class` (and optionally `~scope`). */
export type NewDoc = { '~class': string; '~scope'?: string } & Record<string, unknown>;

/**
 * A stored document typed by the app: the system fields plus the attributes `T` (an interface
 * of the app, or one `docstack types` generates). `DocOf` with no argument is `Doc`. The type
 * is the caller's word: the engine validates against the class, not against `T`. `NoInfer`: a
 * method typed `<T = Record<string, unknown>>` takes T only as given, never guessed from the
 * arguments or from where its answer goes, so an untyped call stays `Doc` as before.
 */
export type DocOf<T extends object = Record<string, unknown>> = DocFields & NoInfer<T>;

/**
 * The app's class map: class name → the attributes' type. Empty here; an app fills it by
 * augmentation, with its own interfaces or the map `docstack types` writes:
 * `declare module 'docstack' { interface DocstackClasses extends Generated {} }`. Then
 * createDoc and findDocuments are typed by the class name (docs/data-model.md#typed-documents).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface -- filled by the app's augmentation
export interface DocstackClasses {}
/** The names of a class map's classes. */
export type MappedClass<M extends object> = keyof M & string;
/** A class's attributes in a class map (untyped when the map does not name it). */
export type AttributesOf<M extends object, C extends string> = C extends keyof M ? (M[C] extends object ? M[C] : Record<string, unknown>) : Record<string, unknown>;
/** A class name the map does not hold (`never` for one it holds, so an untyped write to a mapped class fails to compile). */
export type UnmappedClass<M extends object, C extends string> = C extends keyof M ? never : C;

/** What createDoc takes for a document typed `T`: its attributes plus `~class` (and optionally `~scope`, `_id`). */
export type NewDocOf<T extends object = Record<string, unknown>> = { '~class': string; '~scope'?: string; _id?: string } & NoInfer<T>;

/** The meta-class every class document belongs to, and the meta-class of domains. */
export const CLASS_META = 'class';
export const DOMAIN_META = 'domain';
/**
 * The id of a domain's document: `domain-<name>`, whatever id the domain was given. Relations
 * carry only the domain's name (`~domain`), so every peer — a client, a node's ingest, a held
 * relation waiting for its domain — must find the domain from the name alone; and two devices
 * creating the same domain offline write one document (a conflict CouchDB settles), never two
 * domains of one name. The SPEC's `id` (the caller's, or the name when null) is a field.
 */
export function domainDocId(name: string): string {
  return `${DOMAIN_META}-${name}`;
}
/** The `~class` of the `class` meta-class document itself. */
export const SELF_META = '~self';

/**
 * A class the engine owns (its documents are the engine's, not a user's): the meta-classes
 * `class` and `domain`, `~self`, and the `~` system classes of the kernel and its plugins.
 */
export function isEngineClassName(name: string): boolean {
  return name.startsWith('~') || name === CLASS_META || name === DOMAIN_META;
}

/** The class document: `_id` is the class name. */
export interface ClassModel {
  _id: string;
  _rev?: string;
  '~class': string;
  '~createTimestamp'?: string;
  '~updateTimestamp'?: string;
  active: boolean;
  name: string;
  description: string;
  parentClass: string | null;
  /** attribute name → model */
  schema: Record<string, AttributeModel>;
  /** trigger models (plugins/triggers) */
  triggers: unknown[];
  /** simple classes store documents as given: no validation, triggers or encryption */
  simple: boolean;
  /** ephemeral classes lose their documents when the stack next opens */
  ephemeral: boolean;
  tenants: string[];
  defaultScope: string | null;
  /**
   * How concurrent edits of one document merge (docs/conflicts.md): 'winner', 'latest', 'merge',
   * or the name of a registered conflict handler. Absent or 'manual': conflicts stay listed.
   */
  conflicts?: ConflictPolicy;
}

/** A class document as stored and replicated: the class model with its attributes in the stored shape. */
export type ClassDocument = Omit<ClassModel, 'schema'> & { schema: Record<string, StoredAttribute> };

/** A class's conflict policy: a built-in one or a registered handler's name. */
export type ConflictPolicy = 'manual' | 'winner' | 'latest' | 'merge' | (string & {});

/** The policies the engine itself applies; any other name is a conflict handler's. */
export const BUILTIN_CONFLICT_POLICIES: readonly string[] = ['manual', 'winner', 'latest', 'merge'];

export interface ClassOptions {
  parentClass?: string | null;
  simple?: boolean;
  ephemeral?: boolean;
  tenants?: string[];
  defaultScope?: string | null;
  /** the class's conflict policy (default 'manual': conflicts stay listed) */
  conflicts?: ConflictPolicy;
}

// Class model objects are replaced, never mutated, when their document changes: safe to memoise.
const keyAttributes = new WeakMap<ClassModel, AttributeModel[]>();

/** Attributes of a class that form its natural primary key, in schema order. */
export function primaryKeyAttributes(model: ClassModel): AttributeModel[] {
  let attributes = keyAttributes.get(model);
  if (!attributes) {
    attributes = Object.values(model.schema).filter((a) => a.primaryKey === true);
    keyAttributes.set(model, attributes);
  }
  return attributes;
}
