import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../Store.ts';
import type { EventsTable } from '../schema.ts';

export type EventRow = Selectable<EventsTable>;

export async function insertEvent(db: Executor, row: Insertable<EventsTable>): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

export function findEvent(db: Executor, eventId: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('event_id', '=', eventId).executeTakeFirst();
}

export function listEventsOfInstance(db: Executor, procInstId: string): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('proc_inst_id', '=', procInstId).orderBy('seq').execute();
}

/**
 * The next `Sent` events to apply: high-priority ones (cancel, suspend, resume) first, then in
 * admission order. Within one process instance this keeps FIFO order inside each priority class.
 */
export function nextSentEvents(db: Executor, limit: number): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('status', '=', 'Sent')
    .orderBy('high_priority', 'desc')
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export async function countSentEvents(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'Sent')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function updateEvent(db: Executor, eventId: string, patch: Updateable<EventsTable>): Promise<void> {
  await db.updateTable('events').set(patch).where('event_id', '=', eventId).execute();
}

/** Mark the not-yet-applied events of an instance Canceled; returns their ids. */
export async function cancelPendingEventsOfInstance(db: Executor, procInstId: string, exceptEventId: string, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('events')
    .set({ status: 'Canceled', end_date: now })
    .where('proc_inst_id', '=', procInstId)
    .where('status', 'in', ['Sent', 'Deferred'])
    .where('event_id', '!=', exceptEventId)
    .returning('event_id')
    .execute();
  return rows.map((r) => r.event_id);
}
