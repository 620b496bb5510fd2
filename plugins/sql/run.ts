import type { AlaSQL, Node } from './alasql.js';
import type { BoundParams } from './params.js';
import type { Row } from './rows.js';

let counter = 0;

/**
 * Runs a checked SELECT in alasql over rows already read: a fresh alasql database per run,
 * holding only this statement's tables (`t0`, `t1`…), dropped afterwards, so two statements
 * (or two stacks) never see each other's rows.
 */
export function runSelect(alasql: AlaSQL, select: Node, tables: Map<string, Row[]>, params: BoundParams): unknown {
  const id = `docstack_sql_${++counter}`;
  const ala = alasql as unknown as { Database: new (id: string) => { tables: Record<string, unknown> }; Table: new (p: object) => unknown; databases: Record<string, unknown> };
  const db = new ala.Database(id);
  try {
    for (const [key, rows] of tables) db.tables[key] = new ala.Table({ data: rows });
    const compiled = select.compile(id) as (params: BoundParams) => unknown;
    return compiled(params);
  } finally {
    delete ala.databases[id];
  }
}
