/**
 * The scenarios' assertions: plain functions that throw, so the same scenario code runs under
 * vitest in Node (test/scenarios/scenarios.test.ts) and in a Chromium page (test/browser), where
 * there is no vitest. A failure message names what was checked.
 */

export class ScenarioFailure extends Error {
  override name = 'ScenarioFailure';
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Deep equality of JSON-like values (key order does not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function equal(actual: unknown, expected: unknown, what: string): void {
  if (!sameJson(actual, expected)) throw new ScenarioFailure(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Every key of `expected` has that value in `actual` (deeply equal). */
export function has(actual: unknown, expected: Record<string, unknown>, what: string): void {
  if (typeof actual !== 'object' || actual === null) throw new ScenarioFailure(`${what}: expected an object holding ${show(expected)}, got ${show(actual)}`);
  for (const [key, value] of Object.entries(expected)) {
    if (!sameJson((actual as Record<string, unknown>)[key], value)) {
      throw new ScenarioFailure(`${what}: "${key}" should be ${show(value)}, got ${show((actual as Record<string, unknown>)[key])}`);
    }
  }
}

export function ok(condition: unknown, what: string): asserts condition {
  if (!condition) throw new ScenarioFailure(what);
}

/** The call is refused with a DocstackError of that code (and path, when given); returns it. */
export async function refused(call: Promise<unknown> | (() => unknown), code: string, what: string, path?: string): Promise<Error & { code: string; path?: string }> {
  let result: unknown;
  try {
    result = await (typeof call === 'function' ? call() : call);
  } catch (err) {
    const e = err as Error & { code?: string; path?: string };
    if (e?.code !== code) throw new ScenarioFailure(`${what}: expected ${code}, got ${e?.code ?? 'no code'} (${e?.message ?? String(err)})`);
    if (path !== undefined && e.path !== path) throw new ScenarioFailure(`${what}: ${code} with path "${path}" expected, got path "${e.path}"`);
    if (typeof e.message !== 'string' || e.message.length < 10) throw new ScenarioFailure(`${what}: ${code} without a readable message`);
    return e as Error & { code: string; path?: string };
  }
  throw new ScenarioFailure(`${what}: expected a refusal with ${code}, but it succeeded (${show(result)})`);
}

/** Waits until `probe` returns true (polling), or fails naming `what`. */
export async function eventually(probe: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new ScenarioFailure(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
