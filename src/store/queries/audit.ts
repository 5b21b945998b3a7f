import type { Insertable, Selectable } from 'kysely';
import { reusableInsertRows } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { AuditTrailTable } from '../schema.ts';

export type AuditRow = Selectable<AuditTrailTable>;

/**
 * Rows per INSERT: a dispatcher batch of 64 events writes about 200-300 audit rows; they go in
 * statements of 64, 16, 4 and 1 rows. One statement of all the rows would have a different text
 * for every batch size, and preparing a new statement of a few thousand parameters each time
 * took 2.8 % of the server's CPU in `bench e2e`; with these sizes four statement texts are
 * prepared once and reused. (64 rows x 9 columns stays far below SQLite's and PostgreSQL's
 * limits on bound parameters.)
 */
const CHUNK_SIZES = [64, 16, 4, 1];

/** Insert audit rows in a few multi-row statements of fixed sizes, in order. */
export async function insertAudit(db: Executor, rows: Insertable<AuditTrailTable> | Insertable<AuditTrailTable>[]): Promise<void> {
  const values = Array.isArray(rows) ? rows : [rows];
  let i = 0;
  for (const size of CHUNK_SIZES) {
    for (; values.length - i >= size; i += size) await insertAuditRows(db, values.slice(i, i + size));
  }
}

const insertAuditRows = reusableInsertRows('audit_trail');

export function listAuditOfObject(db: Executor, objectId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('object_id', '=', objectId).orderBy('id').execute();
}

export function listAuditOfEvent(db: Executor, eventId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('event_id', '=', eventId).orderBy('id').execute();
}
