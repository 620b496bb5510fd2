import { SQL_ERRORS } from './errors.js';
import { skipQuoted } from './lexer.js';

/**
 * The shape a statement may have before alasql parses it. alasql's parser and the passes after
 * it (the guard, the compiler) recurse over the tree, and its parser is slow on long inputs
 * (~9 µs a token): 5,000 nested parentheses overflowed the stack (a 500), 20,000 NOTs took
 * 150 s. Counted on the text, quotes and comments aside, before any parsing.
 */
export const MAX_NESTING = 32;
/** NOTs in a row (`NOT NOT … x`): one or two say everything. */
export const MAX_NOT_RUN = 8;
/** Tokens (words, numbers, operators, quoted runs): ~2,000 parse in ~20 ms here. */
export const MAX_TOKENS = 2000;

const WORD = /[A-Za-z0-9_$.~@]/;

const tooComplex = (message: string, details: Record<string, unknown>) => SQL_ERRORS.tooComplex(message, { details });

/** Refuses a statement nested past MAX_NESTING, with a NOT run past MAX_NOT_RUN, or with more than MAX_TOKENS tokens. */
export function refuseComplexShape(statement: string): void {
  let depth = 0;
  let tokens = 0;
  let notRun = 0;
  let i = 0;
  const token = () => {
    if (++tokens > MAX_TOKENS) throw tooComplex(`The statement has more than ${MAX_TOKENS} tokens: pass long lists as parameters (IN (?) with a list).`, { limit: MAX_TOKENS });
  };
  while (i < statement.length) {
    const c = statement[i];
    if (c === "'" || c === '`' || c === '"') {
      i = skipQuoted(statement, i, c);
      token();
      notRun = 0;
    } else if (c === '-' && statement[i + 1] === '-') {
      const end = statement.indexOf('\n', i);
      i = end < 0 ? statement.length : end;
    } else if (c === '/' && statement[i + 1] === '*') {
      const end = statement.indexOf('*/', i + 2);
      i = end < 0 ? statement.length : end + 2;
    } else if (WORD.test(c)) {
      const start = i;
      while (i < statement.length && WORD.test(statement[i])) i++;
      token();
      notRun = statement.slice(start, i).toUpperCase() === 'NOT' ? notRun + 1 : 0;
      if (notRun > MAX_NOT_RUN) throw tooComplex(`The statement has more than ${MAX_NOT_RUN} NOTs in a row.`, { limit: MAX_NOT_RUN });
    } else {
      if (c === '(' && ++depth > MAX_NESTING) throw tooComplex(`The statement nests parentheses or subqueries more than ${MAX_NESTING} deep.`, { limit: MAX_NESTING });
      if (c === ')') depth--;
      if (!/\s/.test(c)) {
        token();
        notRun = 0;
      }
      i++;
    }
  }
}
