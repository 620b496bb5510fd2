/** Self time of a .cpuprofile grouped by file (module), the top N. */
import { readFile } from 'node:fs/promises';
const [file, n = '25'] = process.argv.slice(2);
const p = JSON.parse(await readFile(file, 'utf8')) as { nodes: { id: number; callFrame: { url: string; functionName: string } }[]; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const byFile = new Map<string, number>();
let total = 0;
for (const node of p.nodes) {
  const t = self.get(node.id) ?? 0;
  total += t;
  const url = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/wt\/perf\//, '') || node.callFrame.functionName;
  byFile.set(url, (byFile.get(url) ?? 0) + t);
}
for (const [f, t] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${f}`);
