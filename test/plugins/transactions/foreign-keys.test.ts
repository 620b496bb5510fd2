/**
 * Foreign keys inside a transaction: a write is checked against the transaction's own earlier
 * writes (a parent created in it exists, a parent deleted in it is gone), at staging and at commit.
 */
import { describe, expect, it } from 'vitest';
import { Class } from '../../../index.js';
import { memoryStack, refusal } from '../../helpers/stack.js';

async function setup() {
  const stack = await memoryStack();
  await Class.create(stack, 'Customer', 'class', '', { name: { type: 'string', primaryKey: true } });
  await Class.create(stack, 'Site', 'class', '', { customer: { type: 'foreign_key', targetClass: 'Customer', mandatory: true }, city: { type: 'string' } });
  return stack;
}

describe('foreign keys in a transaction', () => {
  it('a parent and a child created in one transaction validate against each other', async () => {
    const stack = await setup();
    const { customer, site } = await stack.transaction(async (tx) => {
      const customer = await tx.createDoc({ '~class': 'Customer', name: 'acme' });
      const site = await tx.createDoc({ '~class': 'Site', customer: customer._id, city: 'Lyon' });
      return { customer, site };
    });
    expect((await stack.getDocument(customer._id))?.name).toBe('acme');
    expect((await stack.getDocument(site._id))?.customer).toBe(customer._id);
  });

  it('a parent deleted earlier in the transaction is gone for a child staged after it: refused there, nothing stored', async () => {
    const stack = await setup();
    const acme = await stack.createDoc({ '~class': 'Customer', name: 'acme' });
    const err = await refusal(
      stack.transaction(async (tx) => {
        await tx.deleteDocument(acme._id);
        await tx.createDoc({ '~class': 'Site', customer: acme._id, city: 'Lyon' });
      }),
    );
    expect(err.code).toBe('DS_VALIDATION_FOREIGN_KEY');
    expect((await stack.getDocument(acme._id))?.active).toBe(true);
    expect(await stack.findDocuments('Site')).toEqual([]);
  });

  it('a parent deleted after its child was staged is gone at commit: refused, nothing stored', async () => {
    const stack = await setup();
    const acme = await stack.createDoc({ '~class': 'Customer', name: 'acme' });
    const err = await refusal(
      stack.transaction(async (tx) => {
        await tx.createDoc({ '~class': 'Site', customer: acme._id, city: 'Lyon' });
        await tx.deleteDocument(acme._id);
      }),
    );
    expect(err.code).toBe('DS_VALIDATION_FOREIGN_KEY');
    expect((await stack.getDocument(acme._id))?.active).toBe(true);
    expect(await stack.findDocuments('Site')).toEqual([]);
  });

  it('a parent the transaction created and then deleted does not exist for a child', async () => {
    const stack = await setup();
    const err = await refusal(
      stack.transaction(async (tx) => {
        const gone = await tx.createDoc({ '~class': 'Customer', name: 'gone' });
        await tx.deleteDocument(gone._id);
        await tx.createDoc({ '~class': 'Site', customer: gone._id });
      }),
    );
    expect(err.code).toBe('DS_VALIDATION_FOREIGN_KEY');
    expect(await stack.findDocuments('Customer', undefined, { includeInactive: true })).toEqual([]);
    expect(await stack.findDocuments('Site')).toEqual([]);
  });
});
