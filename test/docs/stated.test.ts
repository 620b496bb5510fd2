import { describe, expect, it } from 'vitest';
import { statedResult } from '../../scripts/doc-stated.mjs';
import { log, printed, statedResult as check } from './stated.js';

/** Runs a line of doc code and its stated checks, as an extracted example would. */
function run(line: string, scope: Record<string, unknown> = {}): void {
  const stated = statedResult(line);
  if (!stated) throw new Error('no stated result');
  const body = `${stated.code}\n${stated.checks.join('\n')}`;
  new Function('__stated', '__printed', '__log', ...Object.keys(scope), body)(check, printed, log, ...Object.values(scope));
}

describe('stated results of doc examples (// →)', () => {
  it('a line without an arrow states nothing', () => {
    expect(statedResult('const x = 1; // one')).toBeNull();
  });

  it('a declared value must equal the stated one', () => {
    expect(() => run("const code = 'DS_A'; // → 'DS_A'")).not.toThrow();
    expect(() => run("const code = 'DS_B'; // → 'DS_A'")).toThrow(/stated: 'DS_A'/);
  });

  it('an object states the fields it shows', () => {
    expect(() => run('const doc = { a: 1, b: 2 }; // → { a: 1 }')).not.toThrow();
    expect(() => run('const doc = { a: 1, b: 2 }; // → { a: 2 }')).toThrow();
    expect(() => run('const list = [1]; // → []')).toThrow();
  });

  it('each "expression === value" of a list holds', () => {
    expect(() => run('const n = 2; const m = { v: 11 }; // → n === 2, m.v === 11')).not.toThrow();
    expect(() => run('const n = 1; const m = { v: 11 }; // → n === 2, m.v === 11')).toThrow(/expected 1/);
  });

  it('a printed line is compared with what console.log was given', () => {
    expect(() => run("console.log('DS_X', 'price'); // → prints DS_X price")).not.toThrow();
    expect(() => run("console.log('DS_Y', 'price'); // → prints DS_X price")).toThrow();
  });

  it('a stated result with nothing to compare is refused at extraction', () => {
    expect(() => statedResult('await f(); // → 3')).toThrow(/stated result/);
  });
});
