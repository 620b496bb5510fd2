import type { ClientStack, PluginEntry, StackOptions } from '../../../index.js';
import type { BrowserStack } from '../../../plugins.config.js';
import { definePlugin } from '../../../kernel/plugin.js';
import { jobsPlugin, registerJobHandler, type JobHandler, type JobsApi, type JobsOptions, type JobTickEvent } from '../../../plugins/jobs/index.js';

/** A stack with the jobs plugin. */
export type JobsStack = ClientStack & { jobs: JobsApi };
import { browserWithout, memoryStack } from '../../helpers/stack.js';

/** A job plugin for tests: registers the given handlers (as a third-party plugin would). */
export function handlersPlugin(handlers: Record<string, JobHandler>) {
  return definePlugin({
    name: 'test-handlers',
    requires: ['jobs'],
    setup(kernel) {
      for (const [name, handler] of Object.entries(handlers)) registerJobHandler(kernel, name, handler);
    },
  });
}

export interface JobsStackOptions extends Partial<StackOptions> {
  jobs?: JobsOptions;
  handlers?: Record<string, JobHandler>;
  extra?: PluginEntry[];
}

/** The plugin list of a jobs test stack (scheduler off unless asked for: tests start runs by hand). */
export function jobsPlugins(options: JobsStackOptions = {}) {
  return [...browserWithout('jobs', 'retention'), [jobsPlugin, { scheduler: false, ...options.jobs }] as const, handlersPlugin(options.handlers ?? {}), ...(options.extra ?? [])] as const;
}

/** A memory stack with the jobs plugin and the given handlers, closed after the test. */
export async function jobsStack(options: JobsStackOptions = {}): Promise<BrowserStack> {
  const { jobs: _jobs, handlers: _handlers, extra: _extra, ...stackOptions } = options;
  return memoryStack({ ...stackOptions, plugins: jobsPlugins(options) });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until probe returns something truthy (then returns it); fails after `timeout` ms. */
export async function waitFor<T>(probe: () => T | Promise<T>, timeout = 5000, what = 'the condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** A promise with its resolve function, for handlers a test releases by hand. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Resolves with the first payload of a stack event that matches. */
export function nextEvent<T>(stack: ClientStack, name: string, match: (payload: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const listener = (payload: T) => {
      if (!match(payload)) return;
      stack.off(name, listener);
      resolve(payload);
    };
    stack.on(name, listener);
  });
}

/**
 * The next `count` looks of the stack's scheduler (`job:tick`), from now on: waiting for them
 * proves the scheduler had its chances, where a sleep would only hope so.
 */
export function nextTicks(stack: ClientStack, count: number): Promise<JobTickEvent[]> {
  const seen: JobTickEvent[] = [];
  return new Promise((resolve) => {
    const listener = (tick: JobTickEvent) => {
      seen.push(tick);
      if (seen.length < count) return;
      stack.off('job:tick', listener);
      resolve(seen);
    };
    stack.on('job:tick', listener);
  });
}
