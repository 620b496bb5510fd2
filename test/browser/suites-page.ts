/**
 * A Chromium page that runs Node test files unchanged: they are bundled with `vitest` replaced
 * by shims/vitest.ts and test/helpers/stack.ts by shims/helpers-stack.ts (IndexedDB stores), and
 * the engine imported from the real bundle /docstack.js. alasql is loaded the way an app without
 * a bundler would: the SQL plugin imports "alasql" on the first statement, resolved by the page's
 * import map to /alasql.js.
 */
import { collectedTests } from './shims/vitest.js';
import '../plugins/sql/language.test.js';
import '../plugins/sql/statements.test.js';
import '../plugins/sql/writes.test.js';
import '../plugins/sql/encryption.test.js';
import '../plugins/sql/indexes.test.js';
import '../kernel/ingest.test.js';

interface Outcome {
  name: string;
  ok: boolean;
  error?: string;
}

async function runAll(): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const test of collectedTests()) {
    try {
      await test.run();
      outcomes.push({ name: test.name, ok: true });
    } catch (err) {
      const e = err as { message?: string; stack?: string };
      outcomes.push({ name: test.name, ok: false, error: `${e?.message ?? String(err)}\n${e?.stack ?? ''}` });
    }
  }
  return outcomes;
}

(globalThis as unknown as { docstackTest: unknown }).docstackTest = {
  async run(step: string) {
    if (step === 'list') return collectedTests().map((t) => t.name);
    if (step === 'all') return runAll();
    throw new Error(`no step "${step}"`);
  },
};
