import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../Store.ts';
import type { AuditTrailTable } from '../schema.ts';

export type AuditRow = Selectable<AuditTrailTable>;

export async function insertAudit(db: Executor, rows: Insertable<AuditTrailTable> | Insertable<AuditTrailTable>[]): Promise<void> {
  const values = Array.isArray(rows) ? rows : [rows];
  if (values.length === 0) return;
  await db.insertInto('audit_trail').values(values).execute();
}

export function listAuditOfObject(db: Executor, objectId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('object_id', '=', objectId).orderBy('id').execute();
}

export function listAuditOfEvent(db: Executor, eventId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('event_id', '=', eventId).orderBy('id').execute();
}
