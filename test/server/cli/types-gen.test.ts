import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Class, createStack } from '../../../index.js';
import { server as serverPreset } from '../../../plugins.config.js';
import { classesOfStack } from '../../../server/cli/class-source.js';
import { generateTypes } from '../../../server/cli/types-gen.js';
import { tempDir } from '../../helpers/stack.js';

const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

/** tsc --strict over the files of `dir`: its diagnostics ('' when it compiles). */
function compile(dir: string, files: string[]): string {
  const run = spawnSync(process.execPath, [TSC, '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', ...files], { cwd: dir, encoding: 'utf8' }); // in the temp folder: no @types of this repository
  return run.status === 0 ? '' : `${run.stdout}${run.stderr}`;
}

async function invoiceStack() {
  const stack = await createStack({ name: 'types-gen', adapter: 'memory', plugins: serverPreset });
  await Class.create(stack, 'Customer', 'class', 'A customer we bill', { code: { type: 'string', primaryKey: true }, name: { type: 'string', mandatory: true } });
  await Class.create(stack, 'Invoice', 'class', '', {
    number: { type: 'integer', mandatory: true },
    total: { type: 'decimal', precision: 2 },
    status: { type: 'enum', values: ['draft', 'sent', 'paid'], mandatory: true },
    customer: { type: 'foreign_key', targetClass: 'Customer', mandatory: true },
    tags: { type: 'string', isArray: true },
    due: { type: 'date', format: 'YYYY-MM-DD' },
    extra: { type: 'object' },
    lineCount: { type: 'integer', description: 'lines, */ not a comment end' },
  });
  return stack;
}

const USE_SITE = `import type { Customer, CustomerId, DocstackClasses, DocstackNew, Invoice } from './docstack-types.js';
declare const invoice: Invoice;
const n: number = invoice.number;
const status: 'draft' | 'sent' | 'paid' = invoice.status;
const customer: CustomerId = invoice.customer;
const tags: string[] | undefined = invoice.tags;
const byName: DocstackClasses['Customer'] = {} as Customer;
const draft: DocstackNew<'Invoice'> = { '~class': 'Invoice', number: 1, status: 'draft', customer };
export { n, status, tags, byName, draft };
`;

describe('docstack types (server/cli/types-gen.ts)', () => {
  it('generates declarations that compile with tsc --strict, and that refuse a wrong use', async () => {
    const stack = await invoiceStack();
    const text = generateTypes(await classesOfStack(stack), { source: 'a test stack' });
    await stack.close();
    expect(text).toContain("export type InvoiceId = DocstackId<\"Invoice\">;");
    expect(text).toContain('status: "draft" | "sent" | "paid";');
    expect(text).toContain('customer: CustomerId;');
    expect(text).toContain('total?: number;');
    expect(text).toContain('code: string;'); // a primary key is required
    expect(text).toContain('lines, * / not a comment end');
    expect(text).toContain('lineCount?: number;');
    expect(text).toMatch(/export interface DocstackClasses \{\n {2}Customer: Customer;\n {2}Invoice: Invoice;\n\}/);

    const dir = await tempDir();
    await writeFile(join(dir, 'docstack-types.ts'), text);
    await writeFile(join(dir, 'use.ts'), USE_SITE);
    expect(compile(dir, ['docstack-types.ts', 'use.ts'])).toBe('');

    // each wrong use fails to compile: a field's type, an enum value, an id of another class, a missing mandatory attribute
    const wrongs = [
      ['const s: string = invoice.number;', /Type 'number' is not assignable to type 'string'/],
      ["const s: Invoice['status'] = 'void';", /"void"' is not assignable/],
      ['const s: CustomerId = invoice._id;', /not assignable to type 'CustomerId'/],
      ["const s: CustomerId = 'Customer-1';", /not assignable to type 'CustomerId'/],
      ["const s: DocstackNew<'Invoice'> = { '~class': 'Invoice', number: 1, status: 'draft' };", /Property 'customer' is missing/],
    ] as const;
    // one tsc run over a file per wrong use (a run takes seconds): each file must fail on its own line
    const files = wrongs.map((_, i) => `wrong-${i}.ts`);
    for (const [i, [wrong]] of wrongs.entries()) {
      await writeFile(join(dir, files[i]!), `import type { CustomerId, DocstackNew, Invoice } from './docstack-types.js';\ndeclare const invoice: Invoice;\n${wrong}\nexport { s };\n`);
    }
    const diagnostics = compile(dir, ['docstack-types.ts', ...files]).split(/\n(?=\S)/); // a diagnostic with its indented lines
    for (const [i, [, message]] of wrongs.entries()) {
      expect(diagnostics.filter((line) => line.startsWith(`wrong-${i}.ts(3,`)).join('\n')).toMatch(message);
    }
  }, 60_000);

  it('names types from any class name, brands a foreign key to a class it does not list, and leaves inactive classes out', () => {
    const text = generateTypes([
      { name: 'work-order', schema: { site: { name: 'site', type: 'foreign_key', config: { targetClass: 'Site' } } } },
      { name: 'Old', active: false, schema: {} },
      { name: 'DocstackClasses', schema: { x: { name: 'x', type: 'geo-point' } } },
    ]);
    expect(text).toContain('export interface WorkOrder extends DocstackDocFields<"work-order">');
    expect(text).toContain('site?: SiteId;');
    expect(text).toContain('export type SiteId = DocstackId<"Site">;');
    expect(text).not.toContain('interface Old ');
    expect(text).toContain('export interface DocstackClassesDoc extends'); // never the map's own name
    expect(text).toContain('x?: unknown;'); // a plugin's type
  });
});
