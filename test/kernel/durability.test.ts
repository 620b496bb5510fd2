import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../index.js';
import { validationPlugin } from '../../plugins/validation/index.js';
import { refusal, tempDir, track, uniqueName, userClasses } from '../helpers/stack.js';

describe('leveldb durability', () => {
  // with the validation plugin: that the reopened stack enforces the stored model is seen through it
  it('keeps classes, documents, deletes and the primary-key index across a reopen', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('durable');
    const first = await createStack({ name, adapter: 'leveldb', dataDir, plugins: [validationPlugin] });
    await Class.create(first, 'Book', 'class', '', {
      isbn: { type: 'string', primaryKey: true },
      title: { type: 'string', mandatory: true },
      year: { type: 'integer', min: 1400 },
    });
    const docs = await first.createDocs(Array.from({ length: 300 }, (_, i) => ({ '~class': 'Book', isbn: `isbn-${i}`, title: `Book ${i}`, year: 1900 + (i % 100) })));
    await first.updateDoc(docs[0]._id, { title: 'Renamed' });
    await first.deleteDocument(docs[1]._id);
    await first.close();

    const second = track(await createStack({ name, adapter: 'leveldb', dataDir, plugins: [validationPlugin] }));
    const books = await second.getClass('Book');
    expect(Object.keys(books.model.schema)).toEqual(['isbn', 'title', 'year']);
    expect(await second.findDocuments('Book')).toHaveLength(299);
    expect((await books.getByPrimaryKeys({ isbn: 'isbn-0' }))?.title).toBe('Renamed');
    expect(await books.getByPrimaryKeys({ isbn: 'isbn-1' })).toBeNull();
    expect((await second.getDocument(docs[1]._id, { includeInactive: true }))?.active).toBe(false);
    expect((await refusal(second.createDoc({ '~class': 'Book', isbn: 'isbn-2', title: 'dup' }))).code).toBe('DS_UNIQUE_VIOLATION');
    expect((await refusal(second.createDoc({ '~class': 'Book', isbn: 'new', title: 'old', year: 1000 }))).code).toBe('DS_VALIDATION_RANGE');
    // the key of the deleted book is free again
    await second.createDoc({ '~class': 'Book', isbn: 'isbn-1', title: 'Second edition' });
    expect(await userClasses(second)).toEqual(['Book', 'class']);
  });

  it('puts the store under dataDir/name', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('where');
    track(await createStack({ name, adapter: 'leveldb', dataDir }));
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(dataDir)).toContain(name);
  });
});
