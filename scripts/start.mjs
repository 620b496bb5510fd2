// `npm start`: builds dist/ only when a source is newer than the last build, then runs the server
// node in this very process — so the SIGTERM npm forwards to its child reaches the node's own
// handlers (server/main.ts), and a restart with an unchanged tree starts at once.
// `node scripts/start.mjs --build` builds (and stamps) without starting: `npm run build`;
// `node scripts/start.mjs --cli user …` runs a command-line tool of dist/server/cli instead.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vendorAlasql } from './package-files.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
// what the build compiles (every layer folder: a list of its own went stale when contracts/,
// storage/, engine/ and kit/ were split out) and the files that configure it
const buildConfig = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
const sources = [...buildConfig.include, 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time under a file or folder (0 when it does not exist). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

async function build({ browser }) {
  console.log('docstack: building dist/ (tsc -p tsconfig.build.json)');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
  vendorAlasql(root, join(root, 'dist'));
  // `npm run build` also bundles dist/browser/docstack.js (fails on a Node built-in or over budget);
  // `npm start` needs only the node's files, so a restart stays immediate
  if (browser) {
    const { buildBrowser } = await import('./build-browser.mjs');
    await buildBrowser().catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

const onlyBuild = process.argv[2] === '--build';
const cli = process.argv[2] === '--cli' ? process.argv[3] : null;
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
if (onlyBuild || sources.some((source) => newest(join(root, source)) > built)) await build({ browser: onlyBuild });
if (cli !== null) {
  if (!/^[a-z-]+$/.test(cli ?? '')) throw new Error(`unknown command line tool ${JSON.stringify(cli)}`);
  process.argv.splice(2, 2); // the tool sees its own arguments
  await import(new URL(`../dist/server/cli/${cli}.js`, import.meta.url).href);
} else if (!onlyBuild) {
  await import(new URL('../dist/server/main.js', import.meta.url).href);
}
