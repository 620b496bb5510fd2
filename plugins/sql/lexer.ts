import { SQL_ERRORS } from './errors.js';

/**
 * A lexical pass before alasql parses, which keeps every character at its place (so a syntax
 * error's position is the caller's):
 * - `"name"` is an identifier, as in standard SQL (alasql reads it as a string): it becomes
 *   `` `name` ``; strings are in single quotes;
 * - comments (`-- …`, `/* … *\/`) become spaces (alasql's own comment stripping would shift
 *   positions).
 * Nothing is spliced in: the text stays the caller's, character for character, apart from
 * those quote marks and blanks.
 */
export function prepare(statement: string): string {
  const out = statement.split('');
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < statement.length) {
    const c = statement[i];
    if (c === "'") {
      i = skipQuoted(statement, i, "'");
    } else if (c === '`') {
      i = skipQuoted(statement, i, '`');
    } else if (c === '"') {
      const end = skipQuoted(statement, i, '"');
      const name = statement.slice(i + 1, end - 1);
      if (name.includes('`') || name.includes('""')) {
        throw SQL_ERRORS.syntax(`The quoted name ${JSON.stringify(name)} holds a quote mark; names are letters, digits and "_".`, {
          details: { position: i, near: statement.slice(i, i + 20) },
        });
      }
      out[i] = '`';
      out[end - 1] = '`';
      i = end;
    } else if (c === '-' && statement[i + 1] === '-') {
      const end = statement.indexOf('\n', i);
      const stop = end < 0 ? statement.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && statement[i + 1] === '*') {
      const end = statement.indexOf('*/', i + 2);
      if (end < 0) throw SQL_ERRORS.syntax('A /* comment is not closed.', { details: { position: i, near: statement.slice(i, i + 20) } });
      blank(i, end + 2);
      i = end + 2;
    } else {
      i++;
    }
  }
  return out.join('');
}

/** The index after a quoted run starting at `start`; a doubled quote mark is one character of it. */
export function skipQuoted(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === '\\' && quote === "'") {
      i += 2;
      continue;
    }
    if (text[i] === quote) {
      if (text[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  throw SQL_ERRORS.syntax(`A ${quote} is not closed.`, { details: { position: start, near: text.slice(start, start + 20) } });
}
