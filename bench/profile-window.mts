/**
 * Self time of a .cpuprofile within a time window: from the first sample whose stack holds a
 * function named like one of the markers to the last such sample. A server child's profile
 * covers a whole push and pull; `_changes`/`_bulk_get` mark the pull (a push never calls them).
 * Usage: tsx bench/profile-window.mts <file.cpuprofile> <top N> <marker>[,<marker>…]
 * Prints the window's length, then the top functions and the top files by self time.
 */
import { readFile } from 'node:fs/promises';
interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
const [file, n = '25', markerArg = 'handleChanges,bulkGet'] = process.argv.slice(2);
const markers = markerArg.split(',');
const p = JSON.parse(await readFile(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const parent = new Map<number, number>();
const byId = new Map<number, Node>();
for (const node of p.nodes) {
  byId.set(node.id, node);
  for (const c of node.children ?? []) parent.set(c, node.id);
}
const marked = new Map<number, boolean>();
const isMarked = (id: number): boolean => {
  const known = marked.get(id);
  if (known !== undefined) return known;
  const node = byId.get(id)!;
  const up = parent.get(id);
  const value = markers.includes(node.callFrame.functionName) || (up !== undefined && isMarked(up));
  marked.set(id, value);
  return value;
};
const hits = p.samples.map((id, i) => (isMarked(id) ? i : -1)).filter((i) => i >= 0);
if (hits.length === 0) throw new Error(`no sample under ${markers.join(', ')}`);
const [from, to] = [hits[0], hits[hits.length - 1]];
const short = (url: string) => url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/wt\/[^/]+\//, '');
const byName = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (let i = from; i <= to; i++) {
  const node = byId.get(p.samples[i])!;
  const t = p.timeDeltas[i + 1] ?? 0; // a delta is the time before its sample: a sample lasts until the next one
  total += t;
  const url = short(node.callFrame.url);
  const key = `${node.callFrame.functionName || '(anonymous)'}  ${url}:${node.callFrame.lineNumber + 1}`;
  byName.set(key, (byName.get(key) ?? 0) + t);
  byFile.set(url || node.callFrame.functionName, (byFile.get(url || node.callFrame.functionName) ?? 0) + t);
}
const print = (map: Map<string, number>) => {
  for (const [key, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${key}`);
};
console.log(`window: ${(total / 1000).toFixed(0)} ms (${markers.join(', ')})\n-- functions`);
print(byName);
console.log('-- files');
print(byFile);
