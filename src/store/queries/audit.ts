import type { Insertable, Selectable } from 'kysely';
import { insertChunks, reusableInsertRows } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { AuditTrailTable } from '../schema.ts';

export type AuditRow = Selectable<AuditTrailTable>;

/**
 * Insert audit rows in a few multi-row statements (insertChunks: 64, 16, then the rest), in order.
 * A dispatcher batch of 64 events writes about 200-300 audit rows. (64 rows x 9 columns stays far
 * below SQLite's and PostgreSQL's limits on bound parameters.)
 */
export async function insertAudit(db: Executor, rows: Insertable<AuditTrailTable> | Insertable<AuditTrailTable>[]): Promise<void> {
  for (const chunk of insertChunks(Array.isArray(rows) ? rows : [rows])) await insertAuditRows(db, chunk);
}

const insertAuditRows = reusableInsertRows('audit_trail');

export function listAuditOfObject(db: Executor, objectId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('object_id', '=', objectId).orderBy('id').execute();
}

export function listAuditOfEvent(db: Executor, eventId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('event_id', '=', eventId).orderBy('id').execute();
}
