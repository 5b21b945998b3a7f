import type { Kysely } from 'kysely';
import { packStoredParamsXml } from '../../domain/paramsXml.ts';
import type { DialectCaps } from '../dialect.ts';

const BATCH = 1000;

/**
 * Smaller events (docs/performance.md, storage per instance).
 *
 * - ParamsXml is no longer stored as text but packed (src/domain/paramsXml.ts): a param whose value
 *   is a column of the same row is one letter. Existing rows are converted so that they render
 *   exactly the text they stored. Saves about 880 bytes per simple instance (three events of
 *   266–360 characters each, now 4–6 bytes).
 * - events_pending and events_instance_pending only serve Sent events (the claim, the pending
 *   checks): they become partial indexes (WHERE status = 'Sent'), so the events that were applied
 *   (nearly all of them) cost nothing there. The queries that use them write the same literal
 *   condition (src/store/queries/events.ts), which matches the index in every plan.
 */
export async function up(db: Kysely<any>, _caps: DialectCaps): Promise<void> {
  // PostgreSQL runs migrations inside a transaction already; SQLite does not (Kysely): one here,
  // so that the rows are converted in one commit rather than one fsync each, and all or nothing.
  if (db.isTransaction) await compactEvents(db);
  else await db.transaction().execute((trx) => compactEvents(trx));
}

async function compactEvents(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').renameColumn('params_xml', 'params_xml_packed').execute();
  await packExistingParamsXml(db);

  await db.schema.dropIndex('events_pending').execute();
  await db.schema.dropIndex('events_instance_pending').execute();
  await db.schema.createIndex('events_pending').on('events').columns(['status', 'high_priority desc', 'seq']).where('status', '=', 'Sent').execute();
  await db.schema
    .createIndex('events_instance_pending')
    .on('events')
    .columns(['proc_inst_id', 'status', 'high_priority', 'seq'])
    .where('status', '=', 'Sent')
    .execute();
}

/** Every stored ParamsXml text, in batches of `seq`, replaced by its packed form. */
async function packExistingParamsXml(db: Kysely<any>): Promise<void> {
  let after: number | string = 0;
  for (;;) {
    const rows = await db
      .selectFrom('events')
      .select([
        'seq', 'params_xml_packed', 'proc_inst_id', 'activity_inst_id', 'high_priority', 'work_item_id', 'source_work_item_id', 'user_id',
        'proc_def_id', 'proc_inst_name', 'parent_proc_inst_id',
      ])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const packed = packStoredParamsXml(row.params_xml_packed, { ...row, high_priority: Number(row.high_priority) });
      await db.updateTable('events').set({ params_xml_packed: packed }).where('seq', '=', row.seq).execute();
    }
    after = rows[rows.length - 1].seq;
  }
}
