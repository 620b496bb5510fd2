/** Types of scripts/doc-stated.mjs, for the test that checks it. */
export function statedResult(line: string): { code: string; checks: string[] } | null;
export function openings(code: string): number;
