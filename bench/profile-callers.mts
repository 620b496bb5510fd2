import { readFile } from 'node:fs/promises';
interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
const [file, name, depthArg] = process.argv.slice(2);
const depth = Number(depthArg ?? 6);
const p = JSON.parse(await readFile(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const parent = new Map<number, number>(); const byId = new Map<number, Node>();
for (const n of p.nodes) { byId.set(n.id, n); for (const c of n.children ?? []) parent.set(c, n.id); }
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const agg = new Map<string, number>();
for (const n of p.nodes) {
  if (n.callFrame.functionName !== name) continue;
  // inclusive time of this node
  const incl = (id: number): number => (self.get(id) ?? 0) + (byId.get(id)!.children ?? []).reduce((s, c) => s + incl(c), 0);
  const chain: string[] = []; let cur = parent.get(n.id);
  while (cur !== undefined && chain.length < depth) { const f = byId.get(cur)!.callFrame; chain.push(`${f.functionName || '(anon)'}@${f.url.replace(/^.*node_modules\//, '').replace(/^.*wt\/perf\//, '')}:${f.lineNumber + 1}`); cur = parent.get(cur); }
  const k = chain.join(' < '); agg.set(k, (agg.get(k) ?? 0) + incl(n.id));
}
for (const [k, t] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log((t / 1000).toFixed(0).padStart(6), 'ms', k);
