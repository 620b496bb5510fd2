/**
 * `vitest` for test files bundled into a Chromium page (test/browser/suites.test.ts): the same
 * `expect` (vitest's own @vitest/expect over chai: toEqual, toMatchObject, asymmetric matchers,
 * rejects…) and a collecting `describe`/`it`, so a Node test file runs unchanged in the page.
 */
import { ASYMMETRIC_MATCHERS_OBJECT, chai, GLOBAL_EXPECT, JestAsymmetricMatchers, JestChaiExpect, JestExtend, setState } from '@vitest/expect';

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

type Expect = ((value: unknown, message?: string) => unknown) & Record<string, unknown>;
const expectFn = ((value: unknown, message?: string) => chai.expect(value, message)) as Expect;
Object.assign(expectFn, chai.expect);
Object.assign(expectFn, (globalThis as Record<PropertyKey, unknown>)[ASYMMETRIC_MATCHERS_OBJECT] as object);
setState({ assertionCalls: 0, isExpectingAssertions: false, isExpectingAssertionsError: null, expectedAssertionsNumber: null, expectedAssertionsNumberErrorGen: null, currentTestName: '' }, expectFn as never);
(globalThis as Record<PropertyKey, unknown>)[GLOBAL_EXPECT] = expectFn;

export const expect = expectFn;

export interface CollectedTest {
  name: string;
  run: () => Promise<void>;
}

const collected: CollectedTest[] = [];
const path: string[] = [];
const afterEachHooks: (() => unknown)[] = [];

export function describe(name: string, body: () => void): void {
  path.push(name);
  try {
    body();
  } finally {
    path.pop();
  }
}

export function it(name: string, fn: () => unknown, _timeout?: number): void {
  const full = [...path, name].join(' › ');
  collected.push({
    name: full,
    run: async () => {
      try {
        await fn();
      } finally {
        for (const hook of afterEachHooks) await hook();
      }
    },
  });
}
export const test = it;

export function afterEach(fn: () => unknown): void {
  afterEachHooks.push(fn);
}

/** The tests the imported files declared, in order. */
export function collectedTests(): CollectedTest[] {
  return collected;
}
