import type { Kysely } from 'kysely';
import type { DialectCaps } from '../dialect.ts';

/**
 * The three indexes on a link column that is empty for nearly every row become partial
 * (WHERE column <> ''): process_instances_super (super_proc_inst_id: only child instances have
 * one), work_items_source (source_work_item_id: only linked items) and work_items_removed_from
 * (removed_from: only the copies a pooled item left behind).
 *
 * - PostgreSQL: a prepared statement soon runs on a generic plan, which estimates `column = $1`
 *   from the column's statistics without the value. With every value '' that estimate is every
 *   row, and the plan scanned the table: the probe for active children that every ending
 *   instance runs took 5-7 ms with 20,000 instances (bench `pg`: CancelProcInst applied at
 *   30-64 events/s), and would grow with the table. On the partial index the plan is an index
 *   scan whatever the statistics say.
 * - Both databases: the rows with an empty link cost nothing there any more: three index
 *   entries fewer per work item or instance written, and on SQLite about 2.4 fewer pages in each
 *   commit of `bench e2e` (of ~61).
 *
 * Every query that looks a row up by one of these columns writes the same literal condition
 * (`column <> ''`), which is what lets either planner use the partial index; a value looked up
 * is never '' (src/store/queries/*, queryWhere.ts for the query operations).
 */
export async function up(db: Kysely<any>, _caps: DialectCaps): Promise<void> {
  if (db.isTransaction) await partialIndexes(db);
  else await db.transaction().execute((trx) => partialIndexes(trx));
}

async function partialIndexes(db: Kysely<any>): Promise<void> {
  const indexes = [
    ['process_instances_super', 'process_instances', 'super_proc_inst_id'],
    ['work_items_source', 'work_items', 'source_work_item_id'],
    ['work_items_removed_from', 'work_items', 'removed_from'],
  ] as const;
  for (const [name, table, column] of indexes) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on(table).column(column).where(column, '<>', '').execute();
  }
}
