import replication from 'pouchdb-replication';
import { Class, type ClientStack } from '../../../index.js';
import { rawDb } from '../../helpers/stack.js';
import { registerPouchPlugin } from '../../../storage/pouch-plugins.js';

registerPouchPlugin(replication);

export const PASSPHRASE = 'correct horse battery staple';

/** One encrypted attribute of every type (arrays included) next to a clear one. */
export const SECRET_SCHEMA = {
  label: { type: 'string' },
  pin: { type: 'string', encrypted: true, maxLength: 8 },
  count: { type: 'integer', encrypted: true, min: 0 },
  amount: { type: 'decimal', encrypted: true, precision: 2 },
  flag: { type: 'boolean', encrypted: true },
  born: { type: 'date', encrypted: true, format: 'date' },
  level: { type: 'enum', encrypted: true, values: ['low', 'high'] },
  extra: { type: 'object', encrypted: true },
  owner: { type: 'foreign_key', encrypted: true, targetClass: 'Person' },
  tags: { type: 'string', encrypted: true, isArray: true },
  scores: { type: 'integer', encrypted: true, isArray: true },
} as const;

export async function secretClasses(stack: ClientStack, options: { defaultScope?: string } = {}) {
  await Class.create(stack, 'Person', 'class', '', { name: { type: 'string' } });
  return Class.create(stack, 'Secret', 'class', 'encrypted values', SECRET_SCHEMA as never, options);
}

/** PouchDB replication between two stacks' databases, one way, to completion. */
export async function replicate(from: ClientStack, to: ClientStack): Promise<void> {
  await (rawDb(from) as unknown as { replicate: { to(db: unknown): Promise<unknown> } }).replicate.to(rawDb(to));
}
