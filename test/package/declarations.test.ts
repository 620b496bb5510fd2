import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vendorAlasql } from '../../scripts/package-files.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  files: string[];
};

/** Every named entry of the package (`./plugins/*` stands for the plugins it names one by one). */
const entries = Object.keys(pkg.exports).filter((key) => !key.includes('*')).map((key) => (key === '.' ? 'docstack' : `docstack/${key.slice(2)}`));

/**
 * A strict app as a user writes it, WITHOUT skipLibCheck: every entry imported, and typed
 * documents used. Its node_modules holds only what installing the package gives it (the
 * package's dependencies) plus @types/node, and the optional peers of the entries it imports
 * (react, express) with their types, as an app using those entries installs them: no other
 * devDependency types (@types/pouchdb-*).
 */
const APP = `
import { Class, createStack, type Doc } from 'docstack';
import { browser } from 'docstack/presets';
import alasql from 'docstack/alasql';
import { sqlPlugin } from 'docstack/sql';
${entries.map((entry, i) => `import * as entry${i} from '${entry}';`).join('\n')}
console.log(${entries.map((_, i) => `entry${i}`).join(', ')}, sqlPlugin);

interface Account { owner: string; balance: number }
const stack = await createStack({ name: 'app', adapter: 'memory', plugins: [...browser, [sqlPlugin, { alasql }]] });
await Class.create(stack, 'Account', 'class', '', { owner: { type: 'string' }, balance: { type: 'integer' } });
const ann = await stack.createDoc<Account>({ '~class': 'Account', owner: 'ann', balance: 100 });
const balance: number = ann.balance;
const untyped: Doc = await stack.createDoc({ '~class': 'Account', owner: 'bob', balance: 0 });
console.log(balance, untyped);

// the class map an app declares (or \`docstack types\` writes): classes typed by name
interface Generated { Invoice: { number: string; total: number } }
declare module 'docstack' { interface DocstackClasses extends Generated {} }
const invoice = await stack.createDoc({ '~class': 'Invoice', number: 'A-1', total: 12.5 });
const total: number = invoice.total;
console.log(total);
`;

/** A typed document given a wrong attribute type: the line the compile must refuse. */
const WRONG = `
import { createStack } from 'docstack';
interface Account { owner: string; balance: number }
const stack = await createStack({ name: 'wrong', adapter: 'memory' });
await stack.createDoc<Account>({ '~class': 'Account', owner: 'cy', balance: 'lots' });
`;

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docstack-declarations-'));
  const installed = join(dir, 'node_modules', 'docstack');
  await mkdir(installed, { recursive: true });
  // the package's .d.ts as the build emits them (declarations only: the JavaScript is not needed)
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--declarationMap', 'false', '--sourceMap', 'false', '--outDir', join(installed, 'dist')], { cwd: root });
  vendorAlasql(root, join(installed, 'dist'));
  await cp(join(root, 'package.json'), join(installed, 'package.json'));
  // an app that imports docstack/react or docstack/server installs their optional peers, and
  // their types, as it would to use them (react ships none: @types/react; express: @types/express)
  const peers = ['react', '@types/react', 'express', '@types/express', '@types/serve-static', '@types/express-serve-static-core', '@types/body-parser', '@types/qs', '@types/range-parser', '@types/send', '@types/mime', '@types/http-errors', '@types/connect'];
  const present = peers.filter((name) => existsSync(join(root, 'node_modules', name)));
  for (const dependency of [...Object.keys(pkg.dependencies), '@types/node', ...present]) {
    await mkdir(join(dir, 'node_modules', dependency, '..'), { recursive: true });
    await symlink(join(root, 'node_modules', dependency), join(dir, 'node_modules', dependency));
  }
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await writeFile(join(dir, 'app.ts'), APP);
  // beside it, one mistake: the same compile must fail there, and only there
  await writeFile(join(dir, 'wrong.ts'), WRONG);
  const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'], lib: ['ES2022', 'DOM'] };
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts', 'wrong.ts'] }));
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the package's declarations in a strict app", () => {
  it('compile without skipLibCheck, every entry imported, with only the dependencies the package installs; a wrong attribute type of a typed document does not', async () => {
    const output = await run(process.execPath, [tsc, '-p', '.'], { cwd: dir }).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    const errors = output.split('\n').filter((line) => /error TS/.test(line));
    // a \`/// <reference path>\` is rewritten to reach the repository's file from a .d.ts emitted
    // here, so it would pass this test and break in the real package: the .d.ts hold none
    const emitted = await readdir(join(dir, 'node_modules', 'docstack', 'dist'), { recursive: true });
    const referencing: string[] = [];
    for (const file of emitted.filter((name) => name.endsWith('.d.ts'))) {
      if ((await readFile(join(dir, 'node_modules', 'docstack', 'dist', file), 'utf8')).includes('/// <reference path=')) referencing.push(file);
    }
    expect(referencing).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/^wrong\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/)]);
  }, 180_000);
});

describe("the package's manifest", () => {
  it('ships docs/ (the README links into it); alasql is no dependency (react-native came through it); express and react are optional peers', () => {
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'docs']));
    expect(Object.keys(pkg.dependencies)).not.toContain('alasql');
    expect(Object.keys(pkg.dependencies)).not.toContain('express');
    expect(Object.keys(pkg.dependencies).filter((name) => name.startsWith('@types/'))).toEqual([]);
    expect(pkg.peerDependencies).toEqual({ express: expect.any(String), react: expect.any(String) });
  });
});
