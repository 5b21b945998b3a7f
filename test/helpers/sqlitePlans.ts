/**
 * The statements a piece of store code sends, each with SQLite's query plan: a migrated database
 * in `file`, the code run against a Kysely that records every compiled statement, then
 * `EXPLAIN QUERY PLAN` of each with its own parameters.
 */
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { Store } from '../../src/store/Store.ts';
import type { DB } from '../../src/store/schema.ts';

export interface PlannedStatement {
  sql: string;
  /** The plan's lines (`detail` of each row). */
  plan: string[];
}

export async function sqlitePlansOf(file: string, run: (db: Kysely<DB>) => Promise<void>): Promise<PlannedStatement[]> {
  const store = Store.open({ sqlitePath: file });
  await store.migrate();
  await store.close();
  const raw = new SQLite(file);
  const queries: CompiledQuery[] = [];
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: raw }), log: (e) => void queries.push(e.query) });
  try {
    await run(db);
    return queries.map((q) => ({
      sql: q.sql,
      plan: (raw.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[]).map((p) => p.detail),
    }));
  } finally {
    await db.destroy();
  }
}
