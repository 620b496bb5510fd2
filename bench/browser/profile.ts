/**
 * `npx tsx bench/browser/profile.ts [side] [docs]`: where a browser bench side's time goes in
 * Chromium. Opens the bench page (bench/browser/page.ts) on an unminified bundle, runs the bulk
 * insert, the lookups and the serial inserts of `side` (default docstack) under the DevTools
 * protocol's sampling profiler, and prints per step the wall time, the page's self time by
 * source file (the bundle's `// file.ts` markers) and the top functions. IndexedDB's own work runs
 * in the browser process: in the page it shows as (idle), the time the page waits for it.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBrowser } from '../../scripts/build-browser.mjs';
import { startHarness } from '../../test/browser/harness.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const side = process.argv[2] ?? 'docstack';
const docs = Number(process.argv[3] ?? 10_000);
const peers = fileURLToPath(new URL('../peers/node_modules', import.meta.url));
const harness = await startHarness(fileURLToPath(new URL('./page.ts', import.meta.url)), { nodePaths: [peers] });
// the same bundle unminified over the served one (over its size budget, hence the catch): names
// and the `// file.ts` markers survive
await buildBrowser({ outdir: dirname(harness.bundle.outfile), minify: false, quiet: true }).catch(() => undefined);
const bundleLines = (await readFile(harness.bundle.outfile, 'utf8')).split('\n');
const fileAt: string[] = [];
let current = '(bundle)';
for (const line of bundleLines) {
  const marker = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line);
  if (marker) current = marker[1].replace(/^.*node_modules\//, 'node_modules/');
  fileAt.push(current);
}

function where(frame: ProfileNode['callFrame']): string {
  if (!frame.url) return frame.functionName; // (garbage collector), (idle), (program)
  if (frame.url.endsWith('/docstack.js')) return fileAt[frame.lineNumber] ?? 'docstack.js';
  if (frame.url.endsWith('/page.js')) return 'bench page and peers (page.js)';
  return frame.url;
}

function summarize(profile: Profile, top = 12): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    byFile.set(where(frame), (byFile.get(where(frame)) ?? 0) + ms);
    const fn = `${frame.functionName || '(anonymous)'} ${where(frame)}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  });
  const rows = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, ms]) => `    ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${k}`);
  // docstack's own sources: the bundle's files outside node_modules
  const own = [...byFile].filter(([file]) => /\.ts$/.test(file) && !file.startsWith('node_modules/')).reduce((sum, [, ms]) => sum + ms, 0);
  return [
    `  by file (self time, ${total.toFixed(0)} ms sampled; docstack's own sources ${((100 * own) / total).toFixed(1)}%):`,
    ...rows(byFile),
    '  by function:',
    ...rows(byFunction),
  ];
}

try {
  const context = await harness.context();
  const tab = await harness.page(context);
  const cdp = await context.newCDPSession(tab.page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  const profiled = async (label: string, step: string, args: Record<string, unknown>) => {
    await cdp.send('Profiler.start');
    const ms = await tab.run<number>(step, args);
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    console.log(`${side} ${label}: ${ms.toFixed(0)} ms wall`);
    console.log(summarize(profile).join('\n'));
  };
  await tab.run('open', { side, name: 'profile-bulk' });
  await profiled(`bulk insert ${docs}`, 'bulk', { name: 'profile-bulk', docs, seed: 1 });
  await profiled('pk lookup ×3000', 'lookups', { name: 'profile-bulk', count: 3000, seed: 1 });
  await tab.run('destroy', { name: 'profile-bulk' });
  await tab.run('open', { side, name: 'profile-serial' });
  await profiled('serial insert ×1000', 'serial', { name: 'profile-serial', docs: 1000, seed: 1 });
  await tab.run('destroy', { name: 'profile-serial' });
} finally {
  await harness.close();
}
