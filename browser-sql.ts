/**
 * The browser bundle's optional SQL part (dist/browser/docstack-sql.js; `docstack/sql` under a
 * bundler's browser condition): everything docstack/browser exports — from the same shared
 * chunk, so one engine — plus `sqlPlugin` and the `browserWithSql` preset. alasql itself is not
 * in it: hand it in (`[sqlPlugin, { alasql }]`) or map "alasql" with an import map.
 */
export * from './browser.js';
export { browserWithSql, type BrowserSqlStack } from './plugins.config.js';
export { sqlPlugin, type SqlApi, type SqlOptions, type SqlParams, type PlanRow, type Row, type WriteResult } from './plugins/sql/index.js';
