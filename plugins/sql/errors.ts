import { createError } from '../../index.js';

/** The error codes of the sql plugin (docs/errors.md, docs/sql.md). */
export const SQL_ERRORS = {
  syntax: createError('DS_SQL_SYNTAX', 'The SQL statement does not parse; details give the position and the text near it.'),
  refused: createError('DS_SQL_REFUSED', 'The statement uses a construct the engine does not run (it would create tables, run JavaScript, reach files, or write where SQL may not).'),
  tableUnknown: createError('DS_SQL_TABLE_UNKNOWN', 'The statement names a table that is neither a class nor a relation domain.', { status: 404 }),
  columnUnknown: createError('DS_SQL_COLUMN_UNKNOWN', 'The statement names a column that its tables do not have.'),
  params: createError('DS_SQL_PARAMS', 'The parameters do not fit the statement: an array for `?`, an object for `$name`, every placeholder given.'),
  tooComplex: createError('DS_SQL_TOO_COMPLEX', 'The statement is nested too deeply (parentheses, subqueries, NOT chains) or has too many tokens to parse safely.'),
  budget: createError('DS_SQL_BUDGET', 'The statement would cost more than its budget (rows read, row combinations of its joins, LIKE matching) or ran past its deadline: narrow it.', { status: 422 }),
  pattern: createError('DS_SQL_PATTERN', 'A LIKE pattern is too long or does not compile (its [sets] and escapes are regular-expression syntax).'),
  encryptedLocked: createError('DS_SQL_ENCRYPTED_LOCKED', 'The statement filters, sorts, groups or computes on an encrypted column whose key is not held here.', { status: 403 }),
};

/** For `definePlugin({ errors })`. */
export const sqlErrorList = Object.values(SQL_ERRORS);
