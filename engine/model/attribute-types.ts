import { KERNEL_ERRORS } from '../../contracts/errors.js';
import type { AttributeContext } from '../../contracts/hooks.js';
import type { AttributeTypeDefinition, ConfigKeyDefinition, ConfigKeyRule } from '../../contracts/attribute-types.js';
import type { AttributeModel } from '../../contracts/model.js';

export type { AttributeTypeDefinition, ConfigKeyDefinition, ConfigKeyRule };

/**
 * The attribute types and config keys a stack knows: the kernel's, plus what its plugins
 * define in setup. A stored class that uses a type or key no loaded plugin defined stays
 * readable but is read-only on this stack (DS_CAPABILITY_MISSING): never written unchecked.
 */
export class AttributeTypes {
  private readonly types = new Map<string, AttributeTypeDefinition>();
  private readonly keys = new Map<string, ConfigKeyDefinition>();

  /** bumped by every definition: a verdict cached for a class (capabilitiesPart) holds while it is unchanged */
  version = 0;

  constructor(private readonly common: readonly string[]) {}

  defineType(definition: AttributeTypeDefinition, owner: string): void {
    this.refuseTaken(this.types.has(definition.type) || this.common.includes(definition.type), `type "${definition.type}"`, owner);
    this.types.set(definition.type, definition);
    this.version++;
  }

  defineKey(definition: ConfigKeyDefinition, owner: string): void {
    const taken = this.keys.has(definition.key) || this.common.includes(definition.key) || [...this.types.values()].some((t) => t.keys?.[definition.key]);
    this.refuseTaken(taken, `config key "${definition.key}"`, owner);
    this.keys.set(definition.key, definition);
    this.version++;
  }

  type(name: string): AttributeTypeDefinition | undefined {
    return this.types.get(name);
  }

  key(name: string): ConfigKeyDefinition | undefined {
    return this.keys.get(name);
  }

  typeNames(): string[] {
    return [...this.types.keys()];
  }

  /** Types whose own keys include this one (for "it applies to … attributes only"). */
  ownersOfKey(key: string): string[] {
    return [...this.types.values()].filter((t) => t.keys && Object.hasOwn(t.keys, key)).map((t) => t.type);
  }

  /** The type or config key of a stored attribute that this stack does not know, if any. */
  missing(attribute: AttributeModel): string | undefined {
    const type = this.types.get(attribute.type);
    if (!type) return attribute.type;
    return Object.keys(attribute).find((k) => attribute[k] !== undefined && !this.common.includes(k) && !type.keys?.[k] && !this.keys.has(k));
  }

  private refuseTaken(taken: boolean, what: string, owner: string): void {
    if (taken) throw KERNEL_ERRORS.pluginInvalid(`${owner} defines the attribute ${what}, which is already defined.`, { details: { plugin: owner } });
  }
}
