/**
 * `npm start`. Until the server node exists (issue 5) this is the engine's walk-through: it
 * opens an on-disk stack under DATA_DIR (default ./data), defines a class if it is not there
 * yet, writes a document, reads it back by primary key and by query, and prints what it did.
 * Run it twice: the second run finds the class and the earlier notes on disk.
 */
import { Attribute, Class, createStack, DocstackError } from '../index.js';
import { server } from '../plugins.config.js';

const dataDir = process.env.DATA_DIR ?? './data';
const stack = await createStack({ name: process.env.STACK_NAME ?? 'docstack', adapter: 'leveldb', dataDir, plugins: server });
try {
  const classes = await stack.listClasses();
  let notes: Class;
  if (classes.includes('Note')) {
    notes = await stack.getClass('Note');
  } else {
    notes = await Class.create(stack, 'Note', 'class', 'A short note');
    await Attribute.create(notes, 'slug', 'string', 'unique key of the note', { primaryKey: true, maxLength: 64 });
    await Attribute.create(notes, 'text', 'string', 'the note itself', { mandatory: true, maxLength: 500 });
    await Attribute.create(notes, 'stars', 'integer', 'how good it is', { min: 0, max: 5, defaultValue: 3 });
    console.log(`created the class Note in ${dataDir}/${stack.name}`);
  }
  const slug = `note-${new Date().toISOString()}`;
  const created = await stack.createDoc({ '~class': 'Note', slug, text: 'Hello from docstack' });
  console.log('wrote', created._id);
  console.log('read by primary key:', await notes.getByPrimaryKeys({ slug }));
  try {
    await stack.createDoc({ '~class': 'Note', slug, text: 'same slug again' });
  } catch (err) {
    if (!(err instanceof DocstackError)) throw err;
    console.log(`a duplicate slug is refused: ${err.code} — ${err.message}`);
  }
  const all = await notes.getCards({}, ['slug', 'stars']);
  console.log(`${all.length} note(s) on disk:`, all);
} finally {
  await stack.close();
}
