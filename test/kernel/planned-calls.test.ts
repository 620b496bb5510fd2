import { AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import { describe, expect, it } from 'vitest';
import { isPromiseLike } from '../../storage/settle.js';
import { runSeries, runWaterfall } from '../../kernel/planned-calls.js';

type Value = { trail: string[] };
type Tapper = (hook: AsyncSeriesWaterfallHook<[Value, string]>, name: string) => void;

// each kind of tap a plugin may make, adding its name to the trail (a new object: waterfall style)
const add = (value: Value, name: string): Value => ({ trail: [...value.trail, name] });
const kinds: Record<string, Tapper> = {
  sync: (hook, name) => hook.tap(name, (value) => add(value, name)),
  'sync, answers undefined': (hook, name) => hook.tap(name, () => undefined as unknown as Value),
  'callback at once': (hook, name) => hook.tapAsync(name, (value, _ctx, done) => done(null, add(value, name))),
  'callback later': (hook, name) => hook.tapAsync(name, (value, _ctx, done) => void setTimeout(() => done(null, add(value, name)), 1)),
  promise: (hook, name) => hook.tapPromise(name, async (value) => add(value, name)),
};

/** Every ordered pair of kinds, so each kind runs before and after each other one. */
const pairs = Object.keys(kinds).flatMap((a) => Object.keys(kinds).map((b) => [a, b] as const));

function waterfall(first: string, second: string) {
  const hook = new AsyncSeriesWaterfallHook<[Value, string]>(['value', 'ctx']);
  kinds[first](hook, 'a');
  kinds[second](hook, 'b');
  return hook;
}

describe('planned hooks run directly (kernel/planned-calls.ts) answer what tapable answers', () => {
  it.each(pairs)('waterfall: %s, then %s', async (first, second) => {
    const expected = await waterfall(first, second).promise({ trail: [] }, 'ctx');
    const answer = runWaterfall(waterfall(first, second), { trail: [] }, 'ctx');
    expect(await answer).toEqual(expected);
    // a promise only when a tap answered later or with a promise
    const waits = [first, second].some((k) => k === 'callback later' || k === 'promise');
    expect(isPromiseLike(answer)).toBe(waits);
  });

  it('series: every tap in order, answers ignored, no promise while all answer at once', async () => {
    const order: string[] = [];
    const hook = new AsyncSeriesHook<[string[], string]>(['trail', 'ctx']);
    hook.tap('a', (trail) => void trail.push('a'));
    hook.tapAsync('b', (trail, _ctx, done) => (trail.push('b'), done()));
    expect(runSeries(hook, order, 'ctx')).toBeUndefined();
    hook.tapPromise('c', async (trail) => void trail.push('c'));
    hook.tap('d', (trail) => void trail.push('d'));
    const later = runSeries(hook, order, 'ctx');
    expect(isPromiseLike(later)).toBe(true);
    await later;
    expect(order).toEqual(['a', 'b', 'a', 'b', 'c', 'd']);
  });

  it('an error stops the rest, however the tap gives it (thrown, called back, rejected)', async () => {
    const failing: Record<string, (hook: AsyncSeriesHook<[string[], string]>) => void> = {
      thrown: (hook) => hook.tap('x', () => { throw new Error('refused'); }),
      'called back': (hook) => hook.tapAsync('x', (_t, _c, done) => done(new Error('refused'))),
      'called back later': (hook) => hook.tapAsync('x', (_t, _c, done) => void setTimeout(() => done(new Error('refused')), 1)),
      rejected: (hook) => hook.tapPromise('x', async () => { throw new Error('refused'); }),
    };
    for (const [how, tap] of Object.entries(failing)) {
      const trail: string[] = [];
      const hook = new AsyncSeriesHook<[string[], string]>(['trail', 'ctx']);
      tap(hook);
      hook.tap('after', (t) => void t.push('after'));
      // a synchronous throw is thrown: callers run it inside an async function, where it rejects the same
      await expect((async () => runSeries(hook, trail, 'ctx'))(), how).rejects.toThrow('refused');
      expect(trail, how).toEqual([]);
    }
  });

  it('a tapPromise tap that returns no promise is refused, as tapable refuses it', async () => {
    const hook = new AsyncSeriesWaterfallHook<[Value, string]>(['value', 'ctx']);
    hook.tapPromise('bad', (() => ({ trail: [] })) as never);
    await expect(hook.promise({ trail: [] }, 'ctx')).rejects.toThrow(/did not return promise/);
    expect(() => runWaterfall(hook, { trail: [] }, 'ctx')).toThrow(/did not return promise/);
  });

  it('a hook with an interceptor, or a tap asking for its context, is run by tapable itself', async () => {
    const seen: string[] = [];
    const intercepted = waterfall('sync', 'promise');
    intercepted.intercept({ call: () => void seen.push('call') });
    expect(await runWaterfall(intercepted, { trail: [] }, 'ctx')).toEqual({ trail: ['a', 'b'] });
    expect(seen).toEqual(['call']);

    const withContext = new AsyncSeriesWaterfallHook<[Value, string]>(['value', 'ctx']);
    withContext.tap({ name: 'c', context: true } as never, ((context: object, value: Value) => add(value, typeof context)) as never);
    expect(await runWaterfall(withContext, { trail: [] }, 'ctx')).toEqual({ trail: ['object'] });
  });
});
