import type * as z from 'zod/mini';
import { attributeSchema } from './attribute-schema.js';
import { fastCheck, type FastCheck } from './fast-checks.js';
import { issueToError } from './issues.js';
import { type AttributeModel, type ClassModel, type Doc, SYSTEM_FIELDS } from '../../index.js';
import type { AttributeTypes } from '../../kit/index.js';
import { VALIDATION_ERRORS } from './errors.js';

/**
 * One attribute as the validator checks it: a plain check for the usual value, and its zod schema
 * built at its first need — a value the plain check is unsure of (an invalid one, or a type
 * without a plain check). Building a class's zod schemas was ≈ a sixth of a fresh stack's first
 * write (every stack, and every class revision, compiles its own), and most writes never ask.
 */
export class CompiledAttribute {
  /** a plain check that passes certainly valid values without zod (./fast-checks.ts) */
  readonly fast: FastCheck | undefined;
  #schema: z.ZodMiniType | undefined;

  constructor(
    readonly model: AttributeModel,
    private readonly types: AttributeTypes,
  ) {
    this.fast = fastCheck(model);
  }

  get schema(): z.ZodMiniType {
    return (this.#schema ??= attributeSchema(this.model, this.types));
  }

  /** whether its zod schema was built yet */
  get schemaBuilt(): boolean {
    return this.#schema !== undefined;
  }
}

export interface CompiledClass {
  attributes: CompiledAttribute[];
  foreignKeys: AttributeModel[];
  known: Set<string>;
}

const ALWAYS_ALLOWED = new Set<string>([...SYSTEM_FIELDS, '_attachments', '_conflicts']);

// A class model object is replaced (not mutated) when its document changes, so a WeakMap
// keyed by it rebuilds the validator exactly when the class changes.
const compiled = new WeakMap<ClassModel, CompiledClass>();

export function compileClass(model: ClassModel, types: AttributeTypes): CompiledClass {
  let result = compiled.get(model);
  if (!result) {
    const attributes = Object.values(model.schema).map((a) => new CompiledAttribute(a, types));
    result = {
      attributes,
      foreignKeys: attributes.filter((a) => a.model.type === 'foreign_key').map((a) => a.model),
      known: new Set([...ALWAYS_ALLOWED, ...Object.keys(model.schema)]),
    };
    compiled.set(model, result);
  }
  return result;
}

/** The synchronous part of validation: unknown attributes, mandatory, types and bounds. */
/** `opaque`: attributes another plugin vouches for as stored (WriteContext.opaque); left alone. */
/** A `~` field a plugin may own (kernel.defineSystemField's rule). */
const PLUGIN_FIELD = /^~[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * `systemFields`: the `~` fields the stack's plugins own (stack.systemFields). `foreign`: a `~`
 * field a plugin of the peer stamped (`~updatedBy`) that no plugin here owns — kept as it came
 * (docs/replication.md) — for a peer's document, or repeated unchanged by a local update of one.
 */
export function checkShape(
  validator: CompiledClass,
  model: ClassModel,
  draft: Doc,
  opaque: ReadonlySet<string> = new Set(),
  systemFields: ReadonlySet<string> = new Set(),
  foreign: (field: string) => boolean = () => false,
): void {
  // a loop, not filter (nor Object.keys: no list per document): this runs for every document
  // written, and almost never finds one; a draft is a plain object, its keys are its own
  let unknown: string[] | undefined;
  for (const k in draft) {
    if (!validator.known.has(k) && !systemFields.has(k) && !(PLUGIN_FIELD.test(k) && foreign(k))) (unknown ??= []).push(k);
  }
  if (unknown) {
    throw VALIDATION_ERRORS.validationUnknownAttribute(
      `The class "${model.name}" has no attribute${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}.`,
      { path: unknown[0], details: { attributes: unknown } },
    );
  }
  for (const compiledAttribute of validator.attributes) {
    const attribute = compiledAttribute.model;
    const value = draft[attribute.name];
    // a stored ciphertext the stack cannot open (locked, or a replica without keys) was validated
    // in plaintext by the writer that sealed it; it is kept as it is
    if (opaque.has(attribute.name)) continue;
    if (value === undefined || value === null) {
      if (attribute.mandatory) {
        throw VALIDATION_ERRORS.validationMandatory(`"${attribute.name}" is mandatory in the class "${model.name}".`, { path: attribute.name });
      }
      continue;
    }
    if (!compiledAttribute.fast?.(value)) checkValue(attribute, compiledAttribute.schema, value);
  }
}

export function checkValue(attribute: AttributeModel, schema: z.ZodMiniType, value: unknown): void {
  const result = schema.safeParse(value);
  if (!result.success) throw issueToError(attribute, result.error.issues[0], value);
}
