/** Prints the top self-time entries of a .cpuprofile (V8's format), grouped by function and file. */
import { readFile } from 'node:fs/promises';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }
const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byName = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const t = self.get(node.id) ?? 0;
  total += t;
  const url = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/wt\/perf\//, '');
  const key = `${node.callFrame.functionName || '(anonymous)'}  ${url}:${node.callFrame.lineNumber + 1}`;
  byName.set(key, (byName.get(key) ?? 0) + t);
}
const rows = [...byName].sort((a, b) => b[1] - a[1]).slice(0, top);
for (const [key, t] of rows) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${key}`);
