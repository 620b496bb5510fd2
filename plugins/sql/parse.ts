import type { AlaSQL, Node } from './alasql.js';
import { SQL_ERRORS } from './errors.js';
import { prepare } from './lexer.js';
import { refuseComplexShape } from './limits.js';

interface JisonHash {
  text?: string;
  token?: string;
  loc?: { first_line: number; first_column: number; last_line: number; last_column: number };
  expected?: string[];
}

/**
 * Parses one statement with alasql's parser. A syntax error becomes DS_SQL_SYNTAX with the
 * line, column and offset of the token that stopped the parser and the text around it.
 */
export function parseStatement(alasql: AlaSQL, statement: string): Node {
  if (typeof statement !== 'string' || statement.trim() === '') throw SQL_ERRORS.syntax('A statement is a non-empty string of SQL.');
  // the shape first, on the caller's text: nothing else (not even the lexical pass) runs over an oversized statement
  refuseComplexShape(statement);
  const text = prepare(statement);
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
    throw syntaxError(statement, failure, cause);
  } finally {
    delete parser.yy.parseError;
  }
  const real = statements.filter(Boolean);
  if (real.length !== 1) throw SQL_ERRORS.refused(`One statement per call (got ${real.length}).`, { details: { construct: 'several statements' } });
  return real[0];
}

function syntaxError(statement: string, hash: JisonHash | null, cause: unknown) {
  const loc = hash?.loc;
  const line = loc ? loc.last_line : 1;
  const column = loc ? loc.last_column : 0;
  const lines = statement.split('\n');
  const position = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column;
  const near = statement.slice(Math.max(0, position - 15), position + 15);
  const got = hash?.token === 'EOF' ? 'the end of the statement' : JSON.stringify(hash?.text ?? '');
  return SQL_ERRORS.syntax(`SQL syntax error at line ${line}, column ${column + 1}: unexpected ${got} near ${JSON.stringify(near)}. Quote reserved words used as names with "…" or \`…\`.`, {
    details: { line, column: column + 1, position, near, token: hash?.token ?? null },
    cause,
  });
}
