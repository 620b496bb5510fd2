/**
 * The kept-shapes test's child (kept-shapes.test.ts), run with --expose-gc --trace-deopt: a stack
 * makes serial creates until V8 has optimized its write path, then a full garbage collection runs
 * between two writes (marked `@@gc` … `@@gc done` on stdout, where V8 prints what it throws away),
 * then more creates. With `forget`, the kept shapes are let go just before the collection.
 * Run: node --expose-gc --trace-opt --trace-deopt --no-concurrent-recompilation <bundle> [forget]
 */
import { Class, createStack } from '../../index.js';
import { validationPlugin } from '../../plugins/validation/index.js';
import { forgetKeptShapes } from '../../storage/kept-shapes.js';

const forget = process.argv[2] === 'forget';
const stack = await createStack({ name: `kept-shapes-${process.pid}`, adapter: 'memory', plugins: [validationPlugin] });
const items = await Class.create(stack, 'Item', 'class', '', { code: { type: 'string', primaryKey: true }, quantity: { type: 'integer', min: 0 }, on: { type: 'date', format: 'YYYY-MM-DD' } });
const create = (n: number) => stack.createDoc({ '~class': 'Item', code: `I-${n}`, quantity: n, on: '2026-11-28' });
for (let n = 0; n < 4_000; n++) await create(n);
if (forget) forgetKeptShapes();
console.log('@@gc');
(globalThis as { gc?: () => void }).gc!();
console.log('@@gc done');
for (let n = 4_000; n < 4_100; n++) await create(n);
console.log(`@@count ${await items.count()}`);
await stack.close();
