import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createError, createStack, definePlugin, DocstackError, isDocstackError, registeredErrors, type Plugin } from '../../index.js';
import { registerErrors } from '../../kit/index.js';
import { server } from '../../plugins.config.js';
import { driveSyncPlugin } from '../../plugins/drive-sync/index.js';
import { cloudQueuePlugin } from '../../plugins/cloud-queue/index.js';
import '../../server/errors-codes.js';
import '../../server/routes/query-errors.js'; // the query limits' codes (issue 26)
import '../../server/errors-surface.js'; // the node's surface defences (issue 26)
import '../../server/auth/errors-codes.js'; // the auth slice's own codes (issue 26)
import { expectRefused, track, uniqueName } from '../helpers/stack.js';

const root = new URL('../../', import.meta.url);

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(new URL(dir, root), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** The layers whose sources throw: every refusal goes through a factory made by createError. */
const LAYERS = ['contracts', 'storage', 'kernel', 'engine', 'kit', 'plugins', 'server'];

/** Where a source builds an error from a literal code (`new DocstackError('DS_…', …)`) instead of its factory. */
function rawErrorCalls(file: string, text: string): string[] {
  if (file === join('contracts', 'errors.ts')) return []; // createError itself
  return [...text.matchAll(/new\s+DocstackError\(\s*['"`]/g)].map((m) => `${file}:${text.slice(0, m.index).split('\n').length}`);
}

/** Every built-in plugin: the server preset's, and the opt-in ones (in no preset). */
const builtIn: Plugin[] = [...server.map((entry) => (Array.isArray(entry) ? entry[0] : entry) as Plugin), driveSyncPlugin, cloudQueuePlugin];

describe('error codes', () => {
  // a plugin's codes are registered when a stack is set up with it (what resolvePlugins does)
  beforeAll(() => {
    for (const plugin of builtIn) registerErrors(plugin.errors ?? [], plugin.name);
  });

  it('are documented in docs/errors.md, and the page lists no code that does not exist', async () => {
    const page = await readFile(new URL('docs/errors.md', root), 'utf8');
    const documented = new Set(page.match(/`DS_[A-Z_]+`/g)?.map((c) => c.slice(1, -1)));
    const defined = new Set(registeredErrors().keys());
    expect([...defined].filter((c) => !documented.has(c))).toEqual([]);
    expect([...documented].filter((c) => !defined.has(c))).toEqual([]);
  });

  it('every code the engine and the node throw is registered (no typo reaches a caller)', async () => {
    const used = new Set<string>();
    for (const dir of LAYERS) {
      for (const file of await sourceFiles(dir)) {
        for (const match of (await readFile(new URL(file, root), 'utf8')).matchAll(/'(DS_[A-Z_]+)'/g)) used.add(match[1]);
      }
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((code) => !registeredErrors().has(code))).toEqual([]);
  });

  it('are thrown through their factory, never as a raw new DocstackError(\'CODE\', …) (one style, issue 27)', async () => {
    const offenders: string[] = [];
    for (const dir of LAYERS) {
      for (const file of await sourceFiles(dir)) offenders.push(...rawErrorCalls(file, await readFile(new URL(file, root), 'utf8')));
    }
    expect(offenders).toEqual([]);
  });

  it('the raw-call check sees one, across lines too (it can fail)', () => {
    const file = join('plugins', 'acme', 'index.ts');
    expect(rawErrorCalls(file, "const a = 1;\nthrow new DocstackError('DS_ACME_X', 'no');")).toEqual([`${file}:2`]);
    expect(rawErrorCalls(file, 'throw new DocstackError(\n  "DS_ACME_X",\n  "no",\n);')).toEqual([`${file}:1`]);
    // a factory, and a rethrow of a code the caller was given, pass
    expect(rawErrorCalls(file, "throw ACME_ERRORS.x('no');\nthrow new DocstackError(err.code, err.message);")).toEqual([]);
    expect(rawErrorCalls(join('contracts', 'errors.ts'), "throw new DocstackError('DS_PLUGIN_INVALID', 'x');")).toEqual([]);
  });

  it('are stable strings prefixed DS_, each with an owner and an HTTP error status', () => {
    for (const [code, spec] of registeredErrors()) {
      expect(code).toMatch(/^DS_[A-Z]+_[A-Z_]+$/);
      expect(spec.status).toBeGreaterThanOrEqual(400);
      expect(spec.owner).not.toBe('unassigned');
    }
    expect(registeredErrors().get('DS_JOB_NOT_FOUND')).toMatchObject({ owner: 'jobs', status: 404 });
    expect(registeredErrors().get('DS_UNIQUE_VIOLATION')).toMatchObject({ owner: 'kernel', status: 409 });
    expect(registeredErrors().get('DS_AUTHZ_SCHEMA')).toMatchObject({ owner: 'server', status: 403 });
  });

  it('carry code, message, path, details and status, and serialise to JSON', () => {
    const err = new DocstackError('DS_VALIDATION_MANDATORY', '"title" is mandatory.', { path: 'title', details: { a: 1 } });
    expect(err).toBeInstanceOf(Error);
    expect(err.status).toBe(400);
    expect(new DocstackError('DS_DOC_NOT_FOUND', 'gone').status).toBe(404);
    expect(isDocstackError(err, 'DS_VALIDATION_MANDATORY')).toBe(true);
    expect(isDocstackError(err, 'DS_VALIDATION_TYPE')).toBe(false);
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ code: 'DS_VALIDATION_MANDATORY', path: 'title', message: '"title" is mandatory.' });
  });

  it('a third-party plugin defines its own codes with createError, owned by it', async () => {
    const AuditFull = createError('ACME_AUDIT_FULL', 'The audit log is full.', { status: 507 });
    const audit = definePlugin({
      name: 'acme-audit',
      errors: [AuditFull],
      setup: ({ hooks }) => {
        hooks.validate.tap('acme-audit', () => {
          throw AuditFull('No room for another entry.', { details: { limit: 0 } });
        });
      },
    });
    // defining the plugin registers nothing (no import-time effect a bundle must keep); setting up a stack does
    expect(registeredErrors().has('ACME_AUDIT_FULL')).toBe(false);
    expect(AuditFull().status).toBe(507);
    const stack = track(await createStack({ name: uniqueName(), adapter: 'memory', plugins: [audit] }));
    expect(registeredErrors().get('ACME_AUDIT_FULL')).toMatchObject({ owner: 'acme-audit', status: 507 });
    const { Class } = await import('../../index.js');
    await Class.create(stack, 'Note', 'class', '', { text: { type: 'string' } });
    const err = await expectRefused(stack.createDoc({ '~class': 'Note', text: 'x' }), 'ACME_AUDIT_FULL');
    expect(err.status).toBe(507);
    expect(err.message).toBe('No room for another entry.');
    expect(await stack.findDocuments('Note')).toEqual([]);
  });

  it('refuses a malformed code, a non-error status, and a code two owners claim', async () => {
    expect(() => createError('lowercase', 'x')).toThrow(DocstackError);
    expect(() => createError('ACME_X_Y', 'x', { status: 200 })).toThrow(/HTTP error status/);
    expect(() => createError('DS_JOB_NOT_FOUND', 'something else')).toThrow(/another meaning/);
    const Mine = createError('ACME_SHARED_CODE', 'Shared.');
    const first = definePlugin({ name: 'first-owner', errors: [Mine], setup: () => undefined });
    const second = definePlugin({ name: 'second-owner', errors: [Mine], setup: () => undefined });
    track(await createStack({ name: uniqueName(), adapter: 'memory', plugins: [first] }));
    await expect(createStack({ name: uniqueName(), adapter: 'memory', plugins: [second] })).rejects.toThrow(/belongs to first-owner/);
  });
});
