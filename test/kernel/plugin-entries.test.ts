import { afterEach, describe, expect, it } from 'vitest';
import { createStack, definePlugin, type ClientStack } from '../../index.js';

/** A plugin with options, as a third party writes one. */
const greeter = definePlugin<{ greeting?: string; times?: number } | undefined, string>({
  name: 'greeter',
  setup: (_kernel, options) => (options?.greeting ?? 'hello').repeat(options?.times ?? 1),
});

const opened: ClientStack[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('[plugin, options] entries are typed by the plugin', () => {
  it('opens with options that fit the plugin, and the plugin receives them', async () => {
    const stack = await createStack({ name: `entries-${Date.now()}`, adapter: 'memory', plugins: [[greeter, { greeting: 'hi', times: 2 }]] });
    opened.push(stack);
    expect(stack.apiOf('greeter')).toBe('hihi');
  });

  it('a misspelt or mistyped option does not compile (these lines are the test: tsc fails if they compile)', () => {
    const check = () => {
      // @ts-expect-error `greting` is not an option of the greeter plugin
      void createStack({ name: 'never-opened', adapter: 'memory', plugins: [[greeter, { greting: 'hi' }]] });
      // @ts-expect-error `times` must be a number
      void createStack({ name: 'never-opened', adapter: 'memory', plugins: [[greeter, { times: 'twice' }]] });
      const preset = [[greeter, { greeting: 'yo' }]] as const;
      void createStack({ name: 'never-opened', adapter: 'memory', plugins: preset });
    };
    expect(typeof check).toBe('function');
  });
});
