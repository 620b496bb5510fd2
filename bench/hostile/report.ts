/**
 * The figures of a hostile-load run and issue 26's aims, each PASS or FAIL:
 * - normal clients' REST writes p99 ≤ 250 ms and 0 errors;
 * - /health never above 100 ms;
 * - the node's RSS ≤ 400 MB;
 * - each attack request (bad logins and expensive queries) answered — done or refused with a
 *   code — within 1 s;
 * - a new user's first login during the flood within 2 s;
 * - every refused request a JSON { error, reason, code } (with a 4xx, 429 or 503).
 */
import type { QueryAttack } from '../../test/scenarios/hostile/scenario.js';
import type { Recorded, Sample } from './workload.js';

export const AIMS = { writeP99Ms: 250, healthMaxMs: 100, rssMaxMb: 400, attackAnswerMs: 1000, newcomerLoginMs: 2000 } as const;

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ok = (s: Sample) => s.status >= 200 && s.status < 300;
const coded = (s: Sample) => s.code !== null && ((s.status >= 400 && s.status < 500) || s.status === 503);
const round = (n: number) => (Number.isFinite(n) ? Math.round(n) : n);

export interface Row {
  what: string;
  count: number;
  /** 2xx */
  done: number;
  /** a 4xx/429/503 with a code */
  refused: number;
  /** anything else: a 5xx, an uncoded refusal, a timeout, a network error */
  other: number;
  p50: number;
  p99: number;
  max: number;
  /** refusal codes and their counts, and the other outcomes */
  outcomes: string;
}

export function row(what: string, samples: readonly Sample[]): Row {
  const ms = samples.map((s) => s.ms);
  const outcomes = new Map<string, number>();
  for (const s of samples) {
    if (ok(s)) continue;
    const key = s.status === 0 ? (s.failure ?? 'no answer') : `${s.status}${s.code ? ` ${s.code}` : ''}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  return {
    what,
    count: samples.length,
    done: samples.filter(ok).length,
    refused: samples.filter(coded).length,
    other: samples.filter((s) => !ok(s) && !coded(s)).length,
    p50: round(percentile(ms, 50)),
    p99: round(percentile(ms, 99)),
    max: round(ms.length ? Math.max(...ms) : Number.NaN),
    outcomes: [...outcomes].map(([k, n]) => `${k} ×${n}`).join(', '),
  };
}

export interface Verdict {
  aim: string;
  measured: string;
  pass: boolean;
}

export interface Summary {
  rows: Row[];
  rssStartMb: number;
  /** the largest RSS sample of the baseline phase */
  baselineRssMaxMb: number | null;
  rssMaxMb: number;
  acknowledged: number;
  readBack: number;
  missing: number;
  nonSuccess: number;
  breaches: number;
  breachExamples: string[];
  newcomer: Sample | null;
  verdicts: Verdict[];
}

export function summarize(recorded: Recorded, baseline: Recorded | null = null): Summary {
  const queryKinds = Object.keys(recorded.queries) as QueryAttack[];
  const rows = [
    row('normal REST writes', recorded.writes),
    row('normal REST reads', recorded.reads),
    row('/health every 100 ms', recorded.health),
    row('bad logins', recorded.badLogins),
    ...queryKinds.map((kind) => row(`${kind} query`, recorded.queries[kind])),
  ];
  const [writes, , health] = rows;
  if (baseline) {
    rows.unshift(row('baseline: normal REST writes', baseline.writes), row('baseline: /health', baseline.health));
  }
  const attacks = [...recorded.badLogins, ...queryKinds.flatMap((kind) => recorded.queries[kind])];
  const attackMax = attacks.length ? Math.max(...attacks.map((s) => s.ms)) : Number.NaN;
  const attackUnanswered = attacks.filter((s) => !ok(s) && !coded(s)).length;
  const rssMaxMb = recorded.rss.length ? Math.max(...recorded.rss) : Number.NaN;
  const writeErrors = writes.count - writes.done;
  const unique = [...new Set(recorded.breaches)];
  const newcomer = recorded.newcomer;
  const verdicts: Verdict[] = [
    { aim: `normal REST writes: p99 ≤ ${AIMS.writeP99Ms} ms, 0 errors`, measured: `p99 ${writes.p99} ms, ${writeErrors} errors of ${writes.count}`, pass: writes.p99 <= AIMS.writeP99Ms && writeErrors === 0 && writes.count > 0 },
    {
      aim: 'acknowledged writes all stored',
      measured: recorded.acknowledged === 0 ? 'no write was acknowledged' : `${recorded.readBack} of ${recorded.acknowledged} read back, ${recorded.missing} missing (404), ${recorded.unanswered} read not answered (other status or none)`,
      pass: recorded.acknowledged > 0 && recorded.readBack === recorded.acknowledged,
    },
    { aim: `/health never above ${AIMS.healthMaxMs} ms`, measured: `max ${health.max} ms, p99 ${health.p99} ms, ${health.count - health.done} failed`, pass: health.max <= AIMS.healthMaxMs && health.done === health.count && health.count > 0 },
    { aim: `RSS ≤ ${AIMS.rssMaxMb} MB`, measured: `max ${round(rssMaxMb)} MB`, pass: rssMaxMb <= AIMS.rssMaxMb },
    { aim: `each attack request answered (done or coded refusal) within ${AIMS.attackAnswerMs / 1000} s`, measured: `max ${round(attackMax)} ms over ${attacks.length}; ${attackUnanswered} neither done nor coded`, pass: attackMax <= AIMS.attackAnswerMs && attackUnanswered === 0 },
    { aim: `a new user's first login during the flood ≤ ${AIMS.newcomerLoginMs / 1000} s`, measured: newcomer ? `${newcomer.status}${newcomer.code ? ` ${newcomer.code}` : ''}${newcomer.failure ? ` (${newcomer.failure})` : ''} in ${round(newcomer.ms)} ms` : 'not run', pass: newcomer !== null && newcomer.status === 200 && newcomer.ms <= AIMS.newcomerLoginMs },
    { aim: 'every refused request JSON { error, reason, code } with 4xx/429/503', measured: `${recorded.breaches.length} breaches of ${recorded.nonSuccess} non-2xx answers`, pass: recorded.breaches.length === 0 },
  ];
  return {
    rows,
    rssStartMb: round((baseline ?? recorded).rss[0] ?? Number.NaN),
    baselineRssMaxMb: baseline?.rss.length ? round(Math.max(...baseline.rss)) : null,
    rssMaxMb: round(rssMaxMb),
    acknowledged: recorded.acknowledged,
    readBack: recorded.readBack,
    missing: recorded.missing,
    nonSuccess: recorded.nonSuccess,
    breaches: recorded.breaches.length,
    breachExamples: unique.slice(0, 8),
    newcomer,
    verdicts,
  };
}

function table(header: string[], rows: string[][], numeric: Set<number>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const ms = (n: number) => (Number.isFinite(n) ? String(n) : '-');

export function formatSummary(summary: Summary): string {
  const rows = table(
    ['requests', 'count', 'done', 'refused', 'other', 'p50 ms', 'p99 ms', 'max ms', 'refusals and failures'],
    summary.rows.map((r) => [r.what, String(r.count), String(r.done), String(r.refused), String(r.other), ms(r.p50), ms(r.p99), ms(r.max), r.outcomes]),
    new Set([1, 2, 3, 4, 5, 6, 7]),
  );
  const verdicts = table(
    ['aim', 'measured', 'verdict'],
    summary.verdicts.map((v) => [v.aim, v.measured, v.pass ? 'PASS' : 'FAIL']),
    new Set(),
  );
  const baselineRss = summary.baselineRssMaxMb === null ? '' : `, ${summary.baselineRssMaxMb} MB at most in the baseline`;
  const lines = [rows, '', `node RSS: ${summary.rssStartMb} MB at the start${baselineRss}, ${summary.rssMaxMb} MB at most under attack`, ''];
  if (summary.rows[0].what.startsWith('baseline')) lines.push('baseline: the normal clients alone just before the attack, on the same machine — the aims are judged on the attack rows', '');
  if (summary.breachExamples.length) lines.push('contract breaches (first distinct ones):', ...summary.breachExamples.map((b) => `  ${b}`), '');
  lines.push(verdicts);
  return lines.join('\n');
}
