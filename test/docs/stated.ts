import { expect } from 'vitest';

/**
 * The checks of a doc example's stated results (`// → …` comments, scripts/doc-examples.mjs): what
 * the docs say a line gives is what it gives when the example runs.
 */
export function statedResult(actual: unknown, expected: unknown, claim: string): void {
  // the same object (a shared live instance): no deep walk through it
  if (Object.is(actual, expected)) return;
  // an object or a list states the fields it shows (`{ …, number: 1 }`), not every field
  if (expected !== null && typeof expected === 'object') expect(actual, `stated: ${claim}`).toMatchObject(expected as object);
  else expect(actual, `stated: ${claim}`).toEqual(expected);
}

const lines: string[] = [];

/** console.log of an example whose output the docs state: recorded, then compared. */
export function log(...args: unknown[]): void {
  lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
}

/** The last line the example logged is the one stated. */
export function printed(text: string, claim: string): void {
  expect(lines.at(-1), `stated: ${claim}`).toBe(text);
}
