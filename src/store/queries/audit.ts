import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../Store.ts';
import type { AuditTrailTable } from '../schema.ts';

export type AuditRow = Selectable<AuditTrailTable>;

/**
 * Bound parameters per INSERT: well under SQLite's limit (32,766 since 3.32) and PostgreSQL's
 * (65,535). A dispatcher batch of 64 events writes about 200-300 audit rows of 9 columns: one
 * statement instead of one per event.
 */
const MAX_PARAMS = 10_000;

/** Insert audit rows in as few multi-row statements as the parameter limit allows, in order. */
export async function insertAudit(db: Executor, rows: Insertable<AuditTrailTable> | Insertable<AuditTrailTable>[]): Promise<void> {
  const values = Array.isArray(rows) ? rows : [rows];
  if (values.length === 0) return;
  // A multi-row INSERT binds every column any of its rows names, for every row.
  const columns = new Set(values.flatMap((v) => Object.keys(v))).size;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns));
  for (let i = 0; i < values.length; i += perStatement) {
    await db.insertInto('audit_trail').values(values.slice(i, i + perStatement)).execute();
  }
}

export function listAuditOfObject(db: Executor, objectId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('object_id', '=', objectId).orderBy('id').execute();
}

export function listAuditOfEvent(db: Executor, eventId: string): Promise<AuditRow[]> {
  return db.selectFrom('audit_trail').selectAll().where('event_id', '=', eventId).orderBy('id').execute();
}
