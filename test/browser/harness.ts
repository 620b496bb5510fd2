/**
 * The Chromium harness: builds the browser bundle (scripts/build-browser.mjs, the same checks as
 * `npm run build`) and a page script into a temp folder, serves them from a tiny static server
 * on 127.0.0.1, and drives Debian's chromium with playwright-core (no browser download).
 * When Chromium is missing the suite fails with the install line — it never skips.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildBrowser, type BrowserBuild } from '../../scripts/build-browser.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Where the browser is: CHROMIUM_PATH, else Debian's package. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export function requireChromium(): string {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed (looked for ${CHROMIUM}). The browser suite drives Debian's chromium package; ` +
        'install it once with `apt-get install -y chromium` (.ci/run does this on a fresh machine), or set CHROMIUM_PATH.',
    );
  }
  return CHROMIUM;
}

/**
 * Bundles a page script (`entry`) with `docstack/browser` left as an import of /docstack.js —
 * the page runs the real bundle, not a second copy of the engine.
 */
async function buildPageScript(entry: string, outfile: string, engineFile = '/docstack.js', nodePaths: string[] = []): Promise<void> {
  const engine = new Set(['index.ts', 'plugins.config.ts', 'browser.ts', 'browser-sql.ts', 'plugins/sql/index.ts'].map((file) => join(root, file)));
  const shims: Record<string, string> = {
    [join(root, 'test/helpers/stack.ts')]: join(root, 'test/browser/shims/helpers-stack.ts'),
  };
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: 'inline',
    logLevel: 'silent',
    nodePaths,
    plugins: [
      {
        name: 'docstack-from-the-bundle',
        setup(build) {
          build.onResolve({ filter: /^docstack(\/browser|\/presets)?$/ }, () => ({ path: engineFile, external: true }));
          // Node test files run unchanged in the page (suites-page.ts): vitest and the Node
          // helpers become their shims, and the engine's own modules the real bundle
          build.onResolve({ filter: /^vitest$/ }, () => ({ path: join(root, 'test/browser/shims/vitest.ts') }));
          build.onResolve({ filter: /\.js$/ }, (args) => {
            // (a package's own relative imports stay its own: rxdb has plugins/<name>/index.js too)
            if (!args.path.startsWith('.') || /[\\/]node_modules[\\/]/.test(args.resolveDir)) return undefined;
            const target = join(args.resolveDir, args.path).replace(/\.js$/, '.ts');
            // a plugin's entry (tests import plugins from their folders) is in the bundle too
            if (engine.has(target) || /\/plugins\/[a-z-]+\/index\.ts$/.test(target)) return { path: engineFile, external: true };
            if (shims[target]) return { path: shims[target] };
            return undefined;
          });
        },
      },
    ],
  });
}

/** alasql as one ES module for the page's import map (the SQL plugin imports "alasql" lazily). */
async function buildAlasql(outfile: string): Promise<void> {
  await esbuild.build({
    absWorkingDir: root,
    stdin: { contents: "import alasql from 'alasql'; export default alasql;", resolveDir: root, loader: 'js' },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.map': 'application/json' };

/** A static server for one folder on 127.0.0.1 (port 0). */
async function serve(dir: string): Promise<{ origin: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path === '/' ? 'index.html' : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export interface Harness {
  origin: string;
  bundle: BrowserBuild;
  browser: Browser;
  /** a fresh browser context (its own IndexedDB; an incognito-like profile) */
  context(): Promise<BrowserContext>;
  /** a context on a real profile in a temp folder (a second browser): storage quotas apply there */
  persistentContext(): Promise<BrowserContext>;
  /** a page of `context` on the test page, its scenario runner loaded */
  page(context: BrowserContext): Promise<TestPage>;
  close(): Promise<void>;
}

export interface TestPage {
  page: Page;
  /** runs a named step of test/browser/page.ts in the page; a failure there throws here */
  run<T = unknown>(step: string, args?: unknown): Promise<T>;
  reload(): Promise<void>;
  /** what the page printed to its console (errors included) */
  console: string[];
}

/**
 * Builds, serves and launches: one per test file (beforeAll), closed in afterAll. `nodePaths`:
 * more folders the page script's packages resolve from (the browser bench's peers live in
 * bench/peers/node_modules, outside the main install).
 */
export async function startHarness(pageEntry = join(root, 'test/browser/page.ts'), { nodePaths = [] as string[] } = {}): Promise<Harness> {
  const withAlasql = pageEntry.endsWith('suites-page.ts');
  const executablePath = requireChromium();
  const dir = await mkdtemp(join(tmpdir(), 'docstack-browser-'));
  const [bundle] = await Promise.all([
    buildBrowser({ outdir: dir, quiet: true }),
    buildPageScript(pageEntry, join(dir, 'page.js'), withAlasql ? '/docstack-sql.js' : '/docstack.js', nodePaths),
    withAlasql ? buildAlasql(join(dir, 'alasql.js')) : Promise.resolve(),
  ]);
  const importMap = withAlasql ? '<script type="importmap">{"imports":{"alasql":"/alasql.js"}}</script>' : '';
  await writeFile(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><title>docstack browser suite</title>${importMap}<script type="module" src="/page.js"></script>\n`);
  const { origin, server } = await serve(dir);
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const browser = await chromium.launch({ executablePath, headless: true, args });
  const contexts: BrowserContext[] = [];
  return {
    origin,
    bundle,
    browser,
    async context() {
      const context = await browser.newContext();
      contexts.push(context);
      return context;
    },
    async persistentContext() {
      const context = await chromium.launchPersistentContext(await mkdtemp(join(tmpdir(), 'docstack-profile-')), { executablePath, headless: true, args });
      contexts.push(context);
      return context;
    },
    async page(context) {
      const page = await context.newPage();
      const console: string[] = [];
      page.on('console', (msg) => console.push(`${msg.type()}: ${msg.text()}`));
      page.on('pageerror', (err) => console.push(`pageerror: ${err.message}`));
      await page.goto(`${origin}/index.html`);
      await page.waitForFunction(() => (globalThis as { docstackTest?: unknown }).docstackTest !== undefined, undefined, { timeout: 10_000 });
      return {
        page,
        console,
        run: <T>(step: string, stepArgs?: unknown) =>
          page.evaluate(([s, a]) => (globalThis as unknown as { docstackTest: { run(step: string, args: unknown): Promise<unknown> } }).docstackTest.run(s as string, a), [step, stepArgs] as const) as Promise<T>,
        reload: async () => {
          await page.reload();
          await page.waitForFunction(() => (globalThis as { docstackTest?: unknown }).docstackTest !== undefined, undefined, { timeout: 10_000 });
        },
      };
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

