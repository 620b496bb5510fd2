// `node scripts/check-package.mjs`: the package as a user gets it. Builds, packs the tarball,
// installs it into an empty app in a temporary folder (npm's cache first: --prefer-offline), and
// checks what the install costs (≤ 150 packages, ≤ 120 MB, no react-native), that a strict app
// compiles against it WITHOUT skipLibCheck, that SQL runs from the package's own alasql, and that
// the server node starts once express (its optional peer) is installed beside it.
// Too slow for the test suite (a minute or more of npm); test/package/declarations.test.ts is
// the suite's cheaper check of the same .d.ts. Exit code 1 on any failure.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_PACKAGES = 150;
const MAX_MB = 120;
const keep = process.argv.includes('--keep');
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Bytes under a folder (symbolic links not followed), as `du` counts a fresh install. */
function sizeOf(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

if (!process.argv.includes('--no-build')) execFileSync(process.execPath, [join(root, 'scripts', 'start.mjs'), '--build'], { cwd: root, stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'docstack-package-'));
try {
  const [{ filename }] = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], root));
  const tarball = join(dir, filename);
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app);

  const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
  const installed = Object.keys(lock.packages).filter((key) => key !== '');
  const megabytes = sizeOf(join(app, 'node_modules')) / 1e6;
  console.log(`installed: ${installed.length} packages, ${megabytes.toFixed(1)} MB`);
  check(installed.length <= MAX_PACKAGES, `at most ${MAX_PACKAGES} packages (${installed.length})`);
  check(megabytes <= MAX_MB, `at most ${MAX_MB} MB (${megabytes.toFixed(1)})`);
  const reactNative = installed.filter((key) => /(^|\/)(react-native[^/]*|@react-native\/[^/]+)$/.test(key));
  check(reactNative.length === 0, `no react-native (${reactNative.join(', ') || 'none'})`);
  check(readdirSync(join(app, 'node_modules', 'docstack', 'docs')).includes('sql.md'), 'docs/ ships in the package');

  // a strict app without skipLibCheck; @types/node and the compiler are the repository's
  mkdirSync(join(app, 'node_modules', '@types'), { recursive: true });
  symlinkSync(join(root, 'node_modules', '@types', 'node'), join(app, 'node_modules', '@types', 'node'));
  // every entry but the two that need an optional peer the app has not installed (express for
  // ./server, react with @types/react for ./react: test/package/declarations.test.ts compiles those with their peers)
  const entries = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports).filter((key) => !key.includes('*') && key !== './server' && key !== './react');
  writeFileSync(
    join(app, 'app.ts'),
    // every entry's types (type-only: ./browser and ./slim are browser bundles), Node's at run time
    `${entries.map((key, i) => `import type * as entry${i} from '${key === '.' ? 'docstack' : `docstack/${key.slice(2)}`}';`).join('\n')}
import { Class, createStack } from 'docstack';
import { browserWithSql } from 'docstack/presets';
interface Customer { code: string; age: number }
export type Entries = [${entries.map((_, i) => `typeof entry${i}`).join(', ')}];
const stack = await createStack({ name: 'shop', adapter: 'memory', plugins: browserWithSql });
await Class.create(stack, 'Customer', 'class', '', { code: { type: 'string', primaryKey: true }, age: { type: 'integer', indexed: true } });
const ann = await stack.createDoc<Customer>({ '~class': 'Customer', code: 'A', age: 34 });
await stack.sql('INSERT INTO Customer (code, age) VALUES (?, ?)', ['B', 17]);
const adults = await stack.sql('SELECT code FROM Customer WHERE age >= ?', [18]);
await stack.close();
console.log(JSON.stringify({ age: ann.age + 0, adults }));
`,
  );
  const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, types: ['node'], lib: ['ES2022', 'DOM'], outDir: 'out' };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts'] }));
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: app, encoding: 'utf8' });
  check(tsc.status === 0, `a strict app compiles without skipLibCheck${tsc.status === 0 ? '' : `:\n${tsc.stdout}`}`);
  if (tsc.status === 0) {
    const ran = spawnSync(process.execPath, ['out/app.js'], { cwd: app, encoding: 'utf8' });
    check(ran.stdout.trim().endsWith('{"age":34,"adults":[{"code":"A"}]}'), `it runs, SQL through the package's alasql (${(ran.stdout + ran.stderr).trim().split('\n').at(-1)})`);
  }

  // the server node, installed as docs/server.md says: express beside docstack
  npm(['install', 'express@^5', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app);
  const server = `
    import { createServerNode } from 'docstack/server';
    const node = createServerNode({ config: { port: 0, host: '127.0.0.1', dataDir: './data' } });
    const { url } = await node.start();
    let status = 503;
    for (let i = 0; i < 100 && status === 503; i++) { status = (await fetch(url + '/health')).status; if (status === 503) await new Promise((r) => setTimeout(r, 100)); }
    await node.stop();
    console.log('status', status);
  `;
  const served = spawnSync(process.execPath, ['--input-type=module', '-e', server], { cwd: app, encoding: 'utf8', env: { ...process.env, ENCRYPTION_PASSPHRASE: 'check-package passphrase', ENVFILE: '/nonexistent' } });
  const line = (served.stdout + served.stderr).trim().split('\n').at(-1);
  check(/^status (200|404)$/.test(line ?? ''), `the server node starts with express installed (${line})`);
} finally {
  if (keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(`\n${failures.length} check(s) failed`);
  process.exit(1);
}
