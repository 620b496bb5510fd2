/**
 * `npx tsx bench/doc-tables.ts [bench…]` (default: pipeline replication)
 *
 * Rewrites the tables of docs/benchmarks.md from bench/results/<bench>.json: everything between
 * `<!-- results:<bench> -->` and `<!-- /results:<bench> -->` is replaced, so a re-run of a bench
 * refreshes its figures in the doc without copying numbers by hand. Prose around the markers is
 * left alone (say what a figure means there, not the figure itself).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { formatRange, type ComparisonResult } from './harness.js';

interface ResultsFile {
  bench: string;
  date: string;
  node: string;
  cpus: number;
  loadAverage1m: { before: number; after: number };
  settings: Record<string, unknown> & { rounds?: number; countMs?: Record<string, { items: number; minMedianMax: number[]; aimMs: number; rawGetMs?: number[] }[]> };
  results: ComparisonResult[];
}

const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const resultsFile = (bench: string) => fileURLToPath(new URL(`./results/${bench}.json`, import.meta.url));

function aimCell(r: ComparisonResult): string {
  if (!r.aim) return '';
  const on = r.aim.on === 'cpu' ? 'CPU' : 'wall';
  return `≤ ${r.aim.max}× (${on}): ${r.status === 'ok' || r.status === 'info: within' ? 'met' : '**missed**'}`;
}

/** min / median / max of a results file written before the harness recorded them (its round ratios and median). */
const spreadOf = (rounds: readonly number[], mid: number): number[] => [Math.min(...rounds), mid, Math.max(...rounds)];

/** The markdown block of one results file: when and how it was run, then one row per comparison. */
export function tableOf(file: ResultsFile): string {
  const rounds = file.settings.rounds ?? file.results[0]?.rounds;
  // a row sampled more than once a round (bench/pipeline's serial step) says over how many samples
  const oftener = [...new Set(file.results.filter((r) => rounds !== undefined && r.rounds > rounds).map((r) => `${r.name} (${r.adapter}): ${r.rounds}`))];
  const samples = oftener.length > 0 ? ` Rows sampled more than once a round, and their samples: ${oftener.join('; ')}.` : '';
  const lines = [
    `Recorded ${file.date.slice(0, 10)} (\`bench/results/${file.bench}.json\`): ${rounds} rounds after a warm-up, node ${file.node}, ${file.cpus} cores, load average ${file.loadAverage1m.before} → ${file.loadAverage1m.after}. Ratios are min / median / max of the per-round ratios.${samples}`,
    '',
    '| adapter | comparison | docstack (or the side measured) | ÷ baseline | CPU ratio | wall ratio | aim |',
    '|---|---|---|---|---|---|---|',
    ...file.results.map((r) => `| ${r.adapter} | ${r.name} | ${r.engine} | ${r.baseline} | ${formatRange(r.cpuRatioRange ?? spreadOf(r.cpuRoundRatios, r.cpuRatio))}× | ${formatRange(r.ratioRange ?? spreadOf(r.roundRatios, r.ratio))}× | ${aimCell(r)} |`),
  ];
  const counts = file.settings.countMs;
  if (counts) {
    lines.push('', '| adapter | `countDocuments` of a class of | ms per call (min / median / max) | one raw `get` on the same store, ms | aim |', '|---|---|---|---|---|');
    for (const [adapter, list] of Object.entries(counts)) {
      for (const c of list) lines.push(`| ${adapter} | ${c.items.toLocaleString('en-US')} | ${c.minMedianMax.join(' / ')} | ${c.rawGetMs?.join(' / ') ?? ''} | ≤ ${c.aimMs} ms: ${c.minMedianMax[1] <= c.aimMs ? 'met' : '**missed**'} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const benches = process.argv.slice(2);
  let doc = await readFile(DOC, 'utf8');
  for (const bench of benches.length > 0 ? benches : ['pipeline', 'replication']) {
    const open = `<!-- results:${bench} -->`;
    const close = `<!-- /results:${bench} -->`;
    const start = doc.indexOf(open);
    const end = doc.indexOf(close);
    if (start < 0 || end < start) throw new Error(`docs/benchmarks.md has no ${open} … ${close} block.`);
    const file = JSON.parse(await readFile(resultsFile(bench), 'utf8')) as ResultsFile;
    doc = `${doc.slice(0, start + open.length)}\n${tableOf(file)}\n${doc.slice(end)}`;
    console.log(`docs/benchmarks.md: ${bench} tables from bench/results/${bench}.json (${file.date})`);
  }
  await writeFile(DOC, doc);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
