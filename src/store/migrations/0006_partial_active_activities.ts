import { sql, type Kysely } from 'kysely';
import type { DialectCaps } from '../dialect.ts';

/**
 * activity_instances_active holds only the active activities: (proc_inst_id, ord) WHERE status =
 * 'Active', instead of every activity under (proc_inst_id, status).
 *
 * Every lookup through it asks for an instance's active activities (the end probe, the active
 * activities a token joins or an ending instance cancels), never for another status; an activity
 * is active only between the event that enters it and the one that leaves it. The full index took
 * an entry for every activity ever written and moved it on each change of status: in `bench e2e`
 * five of its B-tree operations per completed instance (three inserts, the task's entry moved when
 * it completes), now two (the task's entry in and out), and a completed instance keeps none. The
 * e2e flow's row writes cost SQLite 6 % fewer instructions (twenty-seventh round,
 * docs/performance-log.md). `ord` keeps the rows in the order the engine reads them, as
 * activity_instances_proc does.
 *
 * Every query that looks active activities up writes the literal condition (`status = 'Active'`),
 * which is what lets SQLite use a partial index, and PostgreSQL on a generic plan.
 */
export async function up(db: Kysely<any>, _caps: DialectCaps): Promise<void> {
  if (db.isTransaction) await partialIndex(db);
  else await db.transaction().execute((trx) => partialIndex(trx));
}

async function partialIndex(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('activity_instances_active').execute();
  await db.schema.createIndex('activity_instances_active').on('activity_instances').columns(['proc_inst_id', 'ord']).where(sql.ref('status'), '=', 'Active').execute();
}
