import type { Insertable, Selectable } from 'kysely';
import { literalLimit, reusableInsert } from '../reusableQuery.ts';
import { cancelDeferredEvents } from './events.ts';
import type { Executor } from '../Store.ts';
import type { TimersTable } from '../schema.ts';

export type TimerRow = Selectable<TimersTable>;

/** Compiled once per set of columns (reusableQuery.ts): every linked work item with a due date sets one. */
export const insertTimer: (db: Executor, row: Insertable<TimersTable>) => Promise<void> = reusableInsert('timers');

export function findTimer(db: Executor, timerId: string): Promise<TimerRow | undefined> {
  return db.selectFrom('timers').selectAll().where('timer_id', '=', timerId).executeTakeFirst();
}

/** Waiting timers whose time has come, earliest first. */
export function listDueTimers(db: Executor, now: number, limit: number): Promise<TimerRow[]> {
  return db
    .selectFrom('timers')
    .selectAll()
    .where('status', '=', 'Waiting')
    .where('due_date', '<=', now)
    .orderBy('due_date')
    .orderBy('timer_id')
    .limit(literalLimit(limit))
    .execute();
}

/** When the next Waiting timer is due, or undefined when none waits. */
export async function nextDueDate(db: Executor): Promise<number | undefined> {
  const r = await db
    .selectFrom('timers')
    .select('due_date')
    .where('status', '=', 'Waiting')
    .orderBy('due_date')
    .limit(literalLimit(1))
    .executeTakeFirst();
  return r === undefined ? undefined : Number(r.due_date);
}

/**
 * Claim a due timer: Waiting -> Fired, only if nobody claimed it first. True when this call won
 * the claim (call it in the transaction that also sends the timer's event).
 */
export async function claimTimer(db: Executor, timerId: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('timers')
    .set({ status: 'Fired', fired_date: now })
    .where('timer_id', '=', timerId)
    .where('status', '=', 'Waiting')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export interface TimerSelection {
  procInstId?: string;
  activityInstId?: string;
  workItemId?: string;
  kind?: string;
}

/**
 * Cancel the Waiting timers that match, and their Deferred events (which will now never be sent).
 * Returns the ids of the events canceled.
 */
export async function cancelWaitingTimers(db: Executor, which: TimerSelection, now: number): Promise<string[]> {
  let q = db.updateTable('timers').set({ status: 'Canceled', fired_date: now }).where('status', '=', 'Waiting');
  if (which.procInstId !== undefined) q = q.where('proc_inst_id', '=', which.procInstId);
  if (which.activityInstId !== undefined) q = q.where('activity_inst_id', '=', which.activityInstId);
  if (which.workItemId !== undefined) q = q.where('work_item_id', '=', which.workItemId);
  if (which.kind !== undefined) q = q.where('kind', '=', which.kind);
  const rows = await q.returning('event_id').execute();
  const eventIds = rows.map((r) => r.event_id);
  if (eventIds.length === 0) return [];
  await cancelDeferredEvents(db, eventIds, now);
  return eventIds;
}

export function listTimersOfInstance(db: Executor, procInstId: string): Promise<TimerRow[]> {
  return db.selectFrom('timers').selectAll().where('proc_inst_id', '=', procInstId).orderBy('created_date').orderBy('timer_id').execute();
}
