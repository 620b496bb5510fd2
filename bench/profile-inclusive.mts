/** Inclusive time of the named functions in a .cpuprofile (each call tree counted once per function). */
import { readFile } from 'node:fs/promises';
interface Node { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
const [file, ...names] = process.argv.slice(2);
const p = JSON.parse(await readFile(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const root = p.nodes[0];
for (const name of names) {
  let sum = 0;
  const walk = (id: number, inside: boolean) => {
    const n = byId.get(id)!;
    const match = `${n.callFrame.functionName}@${n.callFrame.url}`.includes(name);
    if (inside || match) sum += self.get(id) ?? 0;
    for (const c of n.children ?? []) walk(c, inside || match);
  };
  walk(root.id, false);
  console.log(`${((100 * sum) / total).toFixed(1).padStart(5)}%  ${(sum / 1000).toFixed(0).padStart(6)} ms  ${name}`);
}
