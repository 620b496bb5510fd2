import type { AlaSQL, Node } from './alasql.js';
import { SQL_ERRORS } from './errors.js';
import { prepare } from './lexer.js';
import { refuseComplexShape } from './limits.js';
import { callerOffset, quoteNames, tokenize, type Token } from './names.js';

interface JisonHash {
  text?: string;
  token?: string;
  loc?: { first_line: number; first_column: number; last_line: number; last_column: number };
  expected?: string[];
}

/**
 * The statement's tokens, once its shape is known to be within the limits: nothing else (not
 * even the lexical pass) runs over an oversized statement.
 */
export function readStatement(statement: string): Token[] {
  if (typeof statement !== 'string' || statement.trim() === '') throw SQL_ERRORS.syntax('A statement is a non-empty string of SQL.');
  refuseComplexShape(statement);
  return tokenize(statement);
}

/**
 * Parses one statement with alasql's parser. `names` are the columns and tables of the classes
 * the statement names: where one stands as a name it is quoted first (names.ts), so a class's
 * attribute is never read as one of alasql's keywords. A syntax error becomes DS_SQL_SYNTAX with
 * the line, column and offset (in the caller's text) of the token that stopped the parser and
 * the text around it.
 */
export function parseStatement(alasql: AlaSQL, statement: string, names: ReadonlySet<string> = new Set(), tokens: readonly Token[] = readStatement(statement)): Node {
  const { text, inserted } = quoteNames(prepare(statement), tokens, names);
  const parser = (alasql as unknown as { parser: { yy: Record<string, unknown>; parse(s: string): { statements: Node[] } } }).parser;
  let failure: JisonHash | null = null;
  // alasql's own parseError drops the location: ours keeps it. parse() is synchronous, so the
  // shared parser is restored before anything else can run.
  parser.yy.parseError = (message: string, hash: JisonHash) => {
    failure = hash;
    throw new Error(message);
  };
  let statements: Node[];
  try {
    statements = parser.parse(text).statements;
  } catch (cause) {
    throw syntaxError(statement, text, inserted, failure, cause);
  } finally {
    delete parser.yy.parseError;
  }
  const real = statements.filter(Boolean);
  if (real.length !== 1) throw SQL_ERRORS.refused(`One statement per call (got ${real.length}).`, { details: { construct: 'several statements' } });
  return real[0];
}

/** `parsed` is the text alasql read (`inserted`: the quote marks added to the caller's); the error speaks of the caller's. */
function syntaxError(statement: string, parsed: string, inserted: readonly number[], hash: JisonHash | null, cause: unknown) {
  const loc = hash?.loc;
  const at = loc ? offsetOf(parsed, loc.last_line, loc.last_column) : 0;
  const position = callerOffset(inserted, at);
  const before = statement.slice(0, position).split('\n');
  const line = before.length;
  const column = before[before.length - 1].length;
  const near = statement.slice(Math.max(0, position - 15), position + 15);
  const got = hash?.token === 'EOF' ? 'the end of the statement' : JSON.stringify(hash?.text ?? '');
  return SQL_ERRORS.syntax(`SQL syntax error at line ${line}, column ${column + 1}: unexpected ${got} near ${JSON.stringify(near)}. Quote reserved words used as names with "…" or \`…\`.`, {
    details: { line, column: column + 1, position, near, token: hash?.token ?? null },
    cause,
  });
}

function offsetOf(text: string, line: number, column: number): number {
  return text.split('\n').slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column;
}
