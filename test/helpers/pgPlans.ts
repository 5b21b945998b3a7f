/**
 * The statements a piece of store code sends to PostgreSQL, each with the plan of its generic
 * form (`plan_cache_mode = force_generic_plan`: what a prepared statement soon runs on, estimated
 * from the column statistics without the values). `seed` fills the database first (then
 * ANALYZE); `run` is the code, on a Kysely that records every compiled statement; `pick` chooses
 * the statements whose plans are returned.
 */
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { DB } from '../../src/store/schema.ts';
import { Store } from '../../src/store/Store.ts';
import { databaseEnv } from './harness.ts';

export interface PlannedPgStatement {
  sql: string;
  /** The plan's lines (`QUERY PLAN` of EXPLAIN). */
  plan: string[];
}

export async function pgGenericPlansOf(
  url: string,
  seed: (client: pg.Client) => Promise<void>,
  run: (db: Kysely<DB>) => Promise<void>,
  pick: (sql: string) => boolean,
): Promise<PlannedPgStatement[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const queries: CompiledQuery[] = [];
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }), log: (e) => void queries.push(e.query) });
  try {
    await seed(client);
    await client.query('analyze');
    await run(db);
    await client.query('set plan_cache_mode = force_generic_plan');
    const out: PlannedPgStatement[] = [];
    for (const [i, q] of queries.filter((q) => pick(q.sql)).entries()) {
      await client.query(`prepare planned_${i} as ${q.sql}`);
      const values = q.parameters.map((v) => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v)));
      const plan = (await client.query(`explain execute planned_${i}${values.length ? `(${values.join(', ')})` : ''}`)).rows.map((r) => r['QUERY PLAN'] as string);
      out.push({ sql: q.sql, plan });
    }
    return out;
  } finally {
    await db.destroy();
    await client.end();
  }
}

/** Definition `D` and `count` completed instances of it, ids `lpad(to_hex(n), 32, '0')` for n = 1..count. */
export async function seedCompletedInstances(client: pg.Client, count: number): Promise<void> {
  await client.query(`insert into process_definitions (def_id, base_def_id, def_name, def_name_key, version, status, xml, created_by, created_date)
    values ('D', 'D', 'D', 'd', 1, 'Released', '<x/>', 'admin', 0)`);
  await client.query(`insert into process_instances (proc_inst_id, proc_inst_name, proc_inst_name_key, def_id, def_name, version, status, initiator, initiator_key, custom_id, started_date, last_modified_by, last_modified_date)
    select lpad(to_hex(n), 32, '0'), 'i' || n, 'i' || n, 'D', 'D', 1, 'Completed', 'u', 'u', '', 0, 'u', 0 from generate_series(1, $1::int) n`, [count]);
}

/** The URL of the PostgreSQL database the harness gives `file`, migrated (databaseEnv keeps one per file). */
export async function migratedPostgresUrl(file: string): Promise<string> {
  const url = (await databaseEnv(file)).WAYMARK_DATABASE_URL;
  if (!url) throw new Error('no PostgreSQL database for this run');
  const store = Store.open({ sqlitePath: file, postgresUrl: url });
  await store.migrate();
  await store.close();
  return url;
}
