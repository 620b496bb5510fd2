import type { AttributeContext } from './hooks.js';
import type { AttributeModel } from './model.js';

/* What a plugin hands `kernel.defineAttribute` / `kernel.defineConfigKey` (the engine's class model keeps them). */

/**
 * Reads one config key from the input model: returns the value to store (undefined drops it),
 * or throws a DocstackError naming the attribute. `input` holds the whole input model, for keys
 * whose meaning depends on another (an integer's `min` must be whole).
 */
export type ConfigKeyRule = (value: unknown, attribute: AttributeModel, input: Record<string, unknown>) => unknown;

/** An attribute type: the kernel defines the scalar ones; a plugin defines its own (`reference`). */
export interface AttributeTypeDefinition {
  type: string;
  /** Config keys only this type accepts, each with its rule. */
  keys?: Record<string, ConfigKeyRule>;
  /** Can be part of a natural primary key (a scalar with a stable JSON form). */
  keyable?: boolean;
  /** Refuses combinations once every key is read (a reference cannot be an array…). */
  check?(attribute: AttributeModel, ctx: AttributeContext): void | Promise<void>;
  /** What a value must be, for messages ("a document id"). */
  label?: string;
  /**
   * One value's check for validators that do not know this type: a problem ("expected a
   * document id") or undefined. The validation plugin checks the kernel's own types itself.
   */
  validate?(value: unknown, attribute: AttributeModel): string | undefined;
}

/** A config key every type accepts, contributed by a plugin (the encryption plugin's `encrypted`). */
export interface ConfigKeyDefinition {
  key: string;
  rule: ConfigKeyRule;
  /** Refuses combinations once every key is read (an encrypted primary key…). */
  check?(attribute: AttributeModel, ctx: AttributeContext): void | Promise<void>;
}
