import { skipQuoted } from './lexer.js';

/**
 * A token of a statement, at its place in the caller's text (comments are not tokens; a string
 * or a quoted name is one token). `text` is a quoted name's name, a word's word.
 */
export interface Token {
  kind: 'word' | 'number' | 'name' | 'string' | 'param' | 'punct';
  start: number;
  end: number;
  text: string;
}

const WORD_START = /[A-Za-z_~]/;
const WORD_PART = /[A-Za-z0-9_]/;

/** The statement's tokens: one linear pass (the shape limits bound their number, limits.ts). */
export function tokenize(statement: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: Token['kind'], start: number, end: number, text = statement.slice(start, end)) => tokens.push({ kind, start, end, text });
  while (i < statement.length) {
    const c = statement[i];
    const start = i;
    if (c === "'" || c === '"' || c === '`') {
      i = skipQuoted(statement, i, c);
      if (c === "'") push('string', start, i);
      else push('name', start, i, statement.slice(start + 1, i - 1));
    } else if (c === '[') {
      // a bracketed name ([~createTimestamp], [Order]) is quoted already: one name token
      const close = statement.indexOf(']', i + 1);
      i = close < 0 ? statement.length : close + 1;
      push('name', start, i, statement.slice(start + 1, close < 0 ? i : i - 1));
    } else if (c === '-' && statement[i + 1] === '-') {
      const end = statement.indexOf('\n', i);
      i = end < 0 ? statement.length : end;
    } else if (c === '/' && statement[i + 1] === '*') {
      const end = statement.indexOf('*/', i + 2);
      i = end < 0 ? statement.length : end + 2;
    } else if (WORD_START.test(c) || ((c === '$' || c === '@') && WORD_START.test(statement[i + 1] ?? ''))) {
      i++;
      while (i < statement.length && WORD_PART.test(statement[i])) i++;
      push(c === '$' || c === '@' ? 'param' : 'word', start, i);
    } else if (/[0-9]/.test(c)) {
      while (i < statement.length && /[0-9A-Za-z_.]/.test(statement[i])) i++;
      push('number', start, i);
    } else {
      i++;
      if (!/\s/.test(c)) push('punct', start, i);
    }
  }
  return tokens;
}

/**
 * Words that stay keywords wherever they stand: the clauses and operators of the statements
 * the engine runs. An attribute with one of these names is written quoted (`"from"`).
 */
export const STRUCTURAL = new Set([
  'SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IS', 'NULL', 'IN', 'LIKE', 'BETWEEN', 'AS', 'ON', 'JOIN', 'INNER', 'OUTER', 'LEFT',
  'RIGHT', 'FULL', 'CROSS', 'NATURAL', 'USING', 'UNION', 'ALL', 'DISTINCT', 'HAVING', 'LIMIT', 'OFFSET', 'CASE', 'WHEN', 'THEN', 'ELSE',
  'END', 'EXISTS', 'INSERT', 'INTO', 'UPDATE', 'DELETE', 'ASC', 'DESC', 'BY', 'TRUE', 'FALSE', 'EXPLAIN', 'EXCEPT', 'INTERSECT', 'ESCAPE',
  'CAST', 'CONVERT',
]);
/** Words after which a table's name stands. */
const TABLE_BEFORE = new Set(['FROM', 'JOIN', 'INTO', 'UPDATE']);
/** alasql's SELECT modifiers (`SELECT VALUE x`, `SELECT TOP 3 x`): keywords only right after SELECT and before an expression. */
const MODIFIERS = new Set(['VALUE', 'ROW', 'COLUMN', 'MATRIX', 'RECORDSET', 'TEXTSTRING', 'INDEX', 'TOP']);
/** Clause words that end a FROM list (after them a comma no longer separates tables). */
const CLAUSES = new Set(['SELECT', 'WHERE', 'GROUP', 'ORDER', 'HAVING', 'LIMIT', 'OFFSET', 'JOIN', 'ON', 'USING', 'UNION', 'EXCEPT', 'INTERSECT', 'SET', 'VALUES']);

const upper = (t: Token | undefined) => (t && t.kind === 'word' ? t.text.toUpperCase() : '');

/**
 * The names the statement gives its tables (after FROM, JOIN, INTO, UPDATE and the commas of a
 * FROM list), for looking up their classes before the statement is parsed.
 */
export function tableNames(tokens: readonly Token[]): string[] {
  const names = new Set<string>();
  const clause: string[] = [''];
  tokens.forEach((t, i) => {
    if (t.text === '(' && t.kind === 'punct') clause.push('');
    else if (t.text === ')' && t.kind === 'punct') clause.length > 1 && clause.pop();
    else if (CLAUSES.has(upper(t)) || upper(t) === 'FROM') clause[clause.length - 1] = upper(t);
    const prev = tokens[i - 1];
    const afterComma = prev?.kind === 'punct' && prev.text === ',' && clause[clause.length - 1] === 'FROM';
    if ((t.kind === 'word' || t.kind === 'name') && (TABLE_BEFORE.has(upper(prev)) || afterComma)) names.add(t.text);
  });
  return [...names];
}

/** The statement with some words quoted, and where the inserted quote marks are (offsets in the new text). */
export interface Rewritten {
  text: string;
  inserted: number[];
}

/**
 * Quotes (with backticks) every word that names a column or a table of the statement's classes
 * where it stands as a name, so alasql never reads `total`, `order` or `value` as its keyword.
 * A word keeps its keyword reading where the position says so (see keywordHere); any word after
 * AS (an alias) or before `.` (a qualifier) is a name too. `text` is the lexer's output for the
 * same statement: tokens are at the same places in it. Strings and comments are never touched
 * (they are not word tokens).
 */
export function quoteNames(text: string, tokens: readonly Token[], names: ReadonlySet<string>): Rewritten {
  const parts: string[] = [];
  const inserted: number[] = [];
  const opener: string[] = [''];
  let from = 0;
  tokens.forEach((t, i) => {
    if (t.kind === 'punct' && t.text === '(') opener.push(upper(tokens[i - 1]));
    if (t.kind === 'punct' && t.text === ')' && opener.length > 1) opener.pop();
    if (t.kind !== 'word') return;
    // an alias (after AS, but for CAST's type) and a qualifier (before `.`) are names wherever they stand
    const next = tokens[i + 1];
    const alias = upper(tokens[i - 1]) === 'AS' && opener[opener.length - 1] !== 'CAST';
    const qualifier = next?.kind === 'punct' && next.text === '.';
    const named = (alias || qualifier) && !STRUCTURAL.has(upper(t));
    if (!named && (!names.has(t.text) || keywordHere(tokens, i, opener[opener.length - 1]))) return;
    parts.push(text.slice(from, t.start), '`', text.slice(t.start, t.end), '`');
    const at = t.start + inserted.length;
    inserted.push(at, at + 1 + (t.end - t.start));
    from = t.end;
  });
  parts.push(text.slice(from));
  return { text: parts.join(''), inserted };
}

/**
 * Whether the word at `i`, which names a column or table, is read as a keyword where it stands:
 * - never after `.` (`t.value`) or where a table's name stands (`FROM Order`);
 * - always for the structural words (STRUCTURAL);
 * - before `(`: a function or aggregate (`COUNT(*)`, `SUM(…)`), `VALUES (…)`, `TOP (3)`;
 * - ORDER and GROUP before BY; SET right after `UPDATE <table>`; FIRST and LAST after NULLS or
 *   FETCH; anything after CREATE, DROP or ALTER; a type in CAST(… AS type) or CONVERT(type, …);
 * - a SELECT modifier (VALUE, ROW, COLUMN, MATRIX, RECORDSET, TEXTSTRING, INDEX, TOP) right after
 *   SELECT [DISTINCT | ALL] when an expression follows it (`SELECT TOP 3 …`, not `SELECT top, …`).
 */
function keywordHere(tokens: readonly Token[], i: number, opener: string): boolean {
  const word = upper(tokens[i]);
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  const before = upper(prev);
  if (prev?.kind === 'punct' && prev.text === '.') return false;
  if (TABLE_BEFORE.has(before)) return false;
  if (STRUCTURAL.has(word)) return true;
  if (next?.kind === 'punct' && next.text === '(') return true;
  if ((word === 'ORDER' || word === 'GROUP') && upper(next) === 'BY') return true;
  if (word === 'SET' && upper(tokens[i - 2]) === 'UPDATE') return true;
  if ((word === 'FIRST' || word === 'LAST' || word === 'NEXT') && (before === 'NULLS' || before === 'FETCH')) return true;
  if (before === 'CREATE' || before === 'DROP' || before === 'ALTER') return true;
  if ((opener === 'CAST' && before === 'AS') || (opener === 'CONVERT' && prev?.text === '(')) return true;
  if (MODIFIERS.has(word) && (before === 'SELECT' || before === 'DISTINCT' || before === 'ALL')) return startsExpression(next);
  return false;
}

function startsExpression(token: Token | undefined): boolean {
  if (!token) return false;
  if (token.kind === 'word') return !STRUCTURAL.has(upper(token));
  return token.kind !== 'punct' || token.text === '(' || token.text === '?';
}

/** An offset in the rewritten text, as an offset in the caller's. */
export function callerOffset(inserted: readonly number[], offset: number): number {
  let shift = 0;
  for (const at of inserted) if (at < offset) shift++;
  return offset - shift;
}
