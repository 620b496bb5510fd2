/**
 * The Node half of the browser scenarios (test/browser runs the same ones in Chromium on
 * IndexedDB): the model on memory, the read-back after reopening a leveldb store, and the
 * two-writer race on two stacks sharing one store.
 */
import { describe, expect, it } from 'vitest';
import { createStack, type BrowserStack } from 'docstack/browser';
import { tempDir, track, uniqueName } from '../helpers/stack.js';
import { model, raceCheck, raceClass, raceWrites, readBack, scenarioPlugins } from './scenarios.js';

describe('the shared scenarios, in Node', () => {
  it('model then read-back after reopening the store (leveldb)', async () => {
    const dataDir = await tempDir();
    const name = uniqueName('scenario');
    const open = async () => (await createStack({ name, adapter: 'leveldb', dataDir, plugins: scenarioPlugins })) as unknown as BrowserStack;
    const first = await open();
    const facts = await model(first);
    await first.close();
    const again = track(await open());
    await readBack(again, facts);
  });

  it('two writers of one store race for the same natural keys: one document per key', async () => {
    const name = uniqueName('race');
    const open = async () => track((await createStack({ name, adapter: 'memory', plugins: scenarioPlugins })) as unknown as BrowserStack);
    const a = await open();
    await raceClass(a);
    const b = await open();
    const codes = Array.from({ length: 30 }, (_, i) => `S${i % 20}`);
    const [ra, rb] = await Promise.all([raceWrites(a, 'a', codes), raceWrites(b, 'b', [...codes].reverse())]);
    const wins = { ...ra.won, ...rb.won };
    expect(Object.keys(ra.won).length + Object.keys(rb.won).length).toBe(20);
    expect(await raceCheck(a, codes)).toEqual(wins);
    expect(await raceCheck(b, codes)).toEqual(wins);
  });
});
