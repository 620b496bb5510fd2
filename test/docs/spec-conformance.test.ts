import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/spec-conformance.md answers the specification row by row. The specification lives outside
 * the repository (/work/shared/SPEC.md); CI runs on a clean clone, so the test reads the copy
 * committed at docs/spec/SPEC.md. For every heading of the specification the conformance doc has
 * the same heading; under it, every table row of the specification (its first cell, or its first
 * two cells where the first repeats within the table) and every numbered item (`1.`) has a table
 * row with the same first cell(s) and a verdict; a section of prose only has at least one verdict.
 */
// the repository's root from this file, not the working folder (test/docs/examples.test.ts moves that)
const root = fileURLToPath(new URL('../..', import.meta.url));
const SPEC_COPY = join(root, 'docs', 'spec', 'SPEC.md');
const CONFORMANCE = join(root, 'docs', 'spec-conformance.md');
const SHARED_SPEC = '/work/shared/SPEC.md';
const VERDICT = /\*\*(supported as written|extended|deviates|missing)\*\*/i;
/** A row's verdict cell (after its key): the verdict alone, not a word in bold inside a note. */
const VERDICT_CELL = /^\*\*(supported as written|extended|deviates|missing)\*\*$/;

interface Section {
  heading: string;
  /** the keys of the rows and numbered items the section holds */
  keys: string[][];
  /** the cells of every table row, header rows left out */
  rows: string[][];
  /** the lines of the section, tables included */
  body: string[];
}

const cellsOf = (line: string): string[] => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());

/** The sections of a markdown text by heading (levels 2 and deeper), code blocks left out. */
function sections(text: string): Section[] {
  const found: Section[] = [];
  let current: Section | null = null;
  let table: string[][] = [];
  let inCode = false;
  const endTable = () => {
    if (!current || table.length === 0) return;
    const firsts = table.map((cells) => cells[0]);
    const repeats = new Set(firsts).size !== firsts.length;
    for (const cells of table) current.keys.push(repeats ? cells.slice(0, 2) : cells.slice(0, 1));
    current.rows.push(...table);
    table = [];
  };
  let header = true; // the next table line is a header row
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) inCode = !inCode;
    if (inCode) continue;
    const heading = /^#{2,6}\s+(.*\S)\s*$/.exec(line);
    if (heading) {
      endTable();
      current = { heading: heading[1], keys: [], rows: [], body: [] };
      found.push(current);
      header = true;
      continue;
    }
    if (!current) continue;
    current.body.push(line);
    if (/^\s*\|/.test(line)) {
      if (/^\s*\|[\s|:-]+\|\s*$/.test(line)) continue; // the separator row
      if (header) header = false;
      else table.push(cellsOf(line));
      continue;
    }
    endTable();
    header = true;
    const numbered = /^(\d+)\.\s/.exec(line);
    if (numbered) current.keys.push([`${numbered[1]}.`]);
  }
  endTable();
  return found;
}

/** What the conformance doc leaves unanswered, one line each (empty: complete). */
function unanswered(spec: string, conformance: string): string[] {
  const answers = new Map(sections(conformance).map((s) => [s.heading, s]));
  const problems: string[] = [];
  for (const section of sections(spec)) {
    const answer = answers.get(section.heading);
    const hasContent = section.body.some((line) => line.trim() !== '');
    if (!answer) {
      problems.push(`no heading "${section.heading}"`);
      continue;
    }
    if (hasContent && !answer.body.some((line) => VERDICT.test(line))) problems.push(`"${section.heading}": no verdict`);
    for (const key of section.keys) {
      const row = answer.rows.find((cells) => key.every((k, i) => cells[i] === k));
      if (!row) problems.push(`"${section.heading}": no row for ${key.join(' | ')}`);
      else if (!row.slice(key.length).some((cell) => VERDICT_CELL.test(cell))) problems.push(`"${section.heading}": the row for ${key.join(' | ')} has no verdict`);
    }
  }
  return problems;
}

/** GitHub's heading anchors of a markdown text: lower case, punctuation dropped, spaces → "-". */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) inCode = !inCode;
    const heading = !inCode && /^#{1,6}\s+(.*\S)\s*$/.exec(line);
    if (heading) anchors.add(heading[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
  }
  return anchors;
}

/** The first cells of rows marked **missing** that the Gaps section does not name. */
function missingNotInGaps(conformance: string): string[] {
  const gaps = conformance.slice(conformance.indexOf('\n## Gaps'));
  return sections(conformance)
    .flatMap((s) => s.rows)
    .filter((cells) => cells.some((c) => /^\*\*missing\*\*/i.test(c)))
    .map((cells) => cells[0])
    .filter((first) => !gaps.includes(first));
}

const spec = readFileSync(SPEC_COPY, 'utf8');
const conformance = readFileSync(CONFORMANCE, 'utf8');

describe('docs/spec-conformance.md answers every row of the specification', () => {
  it('the parser finds the specification\'s rows and numbered items', () => {
    const keys = sections(spec).flatMap((s) => s.keys);
    expect(keys.length).toBeGreaterThan(120);
    expect(keys).toContainEqual(['`Class.fetch(stack, className, options?)`']);
    expect(keys).toContainEqual(['GET', '`/api/private/reset`']);
    expect(keys).toContainEqual(['starting', 'any request']);
  });

  it('every heading, row and numbered item has an answer with a verdict', () => {
    expect(unanswered(spec, conformance)).toEqual([]);
  });

  it('a row left out, or left without a verdict, is found', () => {
    const withoutRow = conformance.replace(/^\| `PATCH_COUNT` \|.*\n/m, '');
    expect(withoutRow).not.toBe(conformance);
    expect(unanswered(spec, withoutRow)).toEqual(['"Environment variables": no row for `PATCH_COUNT`']);
    const withoutVerdict = conformance.replace(/^(\| `SERVER_PORT` \|.*?)\*\*[a-z ]+\*\*/m, '$1');
    expect(unanswered(spec, withoutVerdict)).toEqual(['"Environment variables": the row for `SERVER_PORT` has no verdict']);
  });

  it('every relative link of the conformance doc names a file of the repository, and a heading of it', () => {
    const links = [...conformance.matchAll(/\]\(([^)#\s]+)(?:#([^)]*))?\)/g)].map((m) => ({ file: m[1], anchor: m[2] })).filter((l) => !/^[a-z]+:/.test(l.file));
    expect(links.length).toBeGreaterThan(20);
    const missing = links.filter((link) => !existsSync(join(dirname(CONFORMANCE), link.file))).map((l) => l.file);
    expect(missing).toEqual([]);
    const brokenAnchors = links
      .filter((link) => link.anchor !== undefined && link.file.endsWith('.md'))
      .filter((link) => !anchorsOf(readFileSync(join(dirname(CONFORMANCE), link.file), 'utf8')).has(link.anchor!))
      .map((l) => `${l.file}#${l.anchor}`);
    expect(brokenAnchors).toEqual([]);
  });

  it('a row marked missing is named in the Gaps section', () => {
    expect(missingNotInGaps(conformance)).toEqual([]);
    const withMissing = conformance.replace(/^\| `BUILDING` \| \*\*supported as written\*\*/m, '| `BUILDING` | **missing**');
    expect(withMissing).not.toBe(conformance);
    expect(missingNotInGaps(withMissing)).toEqual(['`BUILDING`']);
  });

  it.skipIf(!existsSync(SHARED_SPEC))('the committed copy is the shared specification', () => {
    expect(spec).toBe(readFileSync(SHARED_SPEC, 'utf8'));
  });
});
