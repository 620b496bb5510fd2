import { describe, expect, it } from 'vitest';
import { Class } from '../../../index.js';
import { expectRefused } from '../../helpers/stack.js';
import { sqlStack } from './fixture.js';

async function clinic() {
  const stack = await sqlStack();
  await stack.unlock('passphrase');
  await Class.create(stack, 'Patient', 'class', '', { name: { type: 'string' }, diagnosis: { type: 'string', encrypted: true }, age: { type: 'integer' } });
  await stack.createDocs([
    { '~class': 'Patient', name: 'Ann', diagnosis: 'flu', age: 30 },
    { '~class': 'Patient', name: 'Bob', diagnosis: 'sprain', age: 40 },
  ]);
  return stack;
}

describe('sql: encrypted attributes', () => {
  it('read as plaintext while the keyring is unlocked: filter, sort and compute on them', async () => {
    const stack = await clinic();
    expect(await stack.sql("SELECT name, diagnosis FROM Patient WHERE diagnosis LIKE 'f%'")).toEqual([{ name: 'Ann', diagnosis: 'flu' }]);
    expect(await stack.sql('SELECT UPPER(diagnosis) AS d FROM Patient ORDER BY diagnosis DESC')).toEqual([{ d: 'SPRAIN' }, { d: 'FLU' }]);
    // what is stored is still sealed
    const raw = (await stack.storage.range({ prefix: 'Patient-', includeDocs: true })).map((r) => (r.doc as Record<string, unknown>).diagnosis);
    expect(raw.every((v) => typeof v === 'object' && v !== null && '~enc' in v)).toBe(true);
  });

  it('when locked: selecting one gives the sealed marker; filtering, sorting or computing on one is refused', async () => {
    const stack = await clinic();
    stack.lock();
    const rows = await stack.sql<Record<string, unknown>[]>('SELECT name, diagnosis FROM Patient ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual(['Ann', 'Bob']);
    expect(rows[0].diagnosis).toMatchObject({ '~sealed': true });
    expect(await stack.sql('SELECT name FROM Patient WHERE age > 35')).toEqual([{ name: 'Bob' }]);
    const err = await expectRefused(stack.sql("SELECT name FROM Patient WHERE diagnosis = 'flu'"), 'DS_SQL_ENCRYPTED_LOCKED', 'diagnosis');
    expect(err.details).toEqual({ table: 'Patient', column: 'diagnosis' });
    await expectRefused(stack.sql('SELECT name FROM Patient ORDER BY diagnosis'), 'DS_SQL_ENCRYPTED_LOCKED');
    await expectRefused(stack.sql('SELECT diagnosis, COUNT(*) AS n FROM Patient GROUP BY diagnosis'), 'DS_SQL_ENCRYPTED_LOCKED');
    await expectRefused(stack.sql('SELECT UPPER(diagnosis) AS d FROM Patient'), 'DS_SQL_ENCRYPTED_LOCKED');
    await expectRefused(stack.sql('UPDATE Patient SET name = diagnosis'), 'DS_SQL_ENCRYPTED_LOCKED');
  });
});
