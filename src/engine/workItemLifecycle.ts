/**
 * What happens around a human task when it changes hands or closes: its overdue timer stops, the
 * other members of a pool it was taken from get `Removed` items, and a task that went back to its
 * pool takes those away again.
 */
import { newId } from '../domain/ids.ts';
import { cancelWaitingTimers } from '../store/queries/timers.ts';
import {
  deleteRemovedItemsOf,
  insertWorkItem,
  listPoolMembers,
  listRemovedItemsOf,
  updateWorkItem,
  type WorkItemRow,
} from '../store/queries/workItems.ts';
import type { Updateable } from 'kysely';
import type { WorkItemsTable } from '../store/schema.ts';
import type { RunContext } from './RunContext.ts';

/** The item that carries its activity's token: not linked, not added with CreateWorkItem, not a Removed copy. */
export function holdsToken(item: WorkItemRow): boolean {
  return item.source_work_item_id === '' && item.independent === 0 && item.removed_from === '';
}

/**
 * Closes a task (Completed, Canceled, Reassigned): the change, and its overdue timer stops. A task
 * without a DueDate has no overdue timer: one is set only with a DueDate, and a DueDate removed
 * cancels it in the same event (handlers/updateWorkItem.ts).
 */
export async function closeWorkItem(rc: RunContext, item: WorkItemRow, patch: Updateable<WorkItemsTable>): Promise<void> {
  // Object.assign, not a spread followed by new keys: V8 (Node 20) takes ~1.8 µs for that, ~0.15
  // for this (a micro-benchmark, docs/performance-log.md, twenty-sixth round).
  await updateWorkItem(rc.trx, item.work_item_id, Object.assign({}, patch, { last_modified_by: rc.event.sender, last_modified_date: rc.now }));
  if (item.due_date !== null) rc.finalized.push(...(await cancelWaitingTimers(rc.trx, { workItemId: item.work_item_id }, rc.now)));
}

/** Status of a task given to someone now: `Overdue` when its DueDate has passed, else `Assigned`. */
export function assignedStatus(item: { due_date: number | null }, now: number): 'Assigned' | 'Overdue' {
  return item.due_date !== null && item.due_date <= now ? 'Overdue' : 'Assigned';
}

/**
 * A pooled item went to `takerKey`: every other member of its pool gets a `Removed` item (the same
 * task, in the same activity, with the member as UserID), unless it already has one.
 */
export async function removeOtherPoolMembers(rc: RunContext, item: WorkItemRow, takerKey: string): Promise<void> {
  const others = (await listPoolMembers(rc.trx, item.work_item_id)).filter((m) => m.member_key !== takerKey);
  if (others.length === 0) return;
  const already = new Set((await listRemovedItemsOf(rc.trx, item.work_item_id)).map((w) => w.user_key));
  for (const member of others) {
    if (already.has(member.member_key)) continue;
    await insertWorkItem(rc.trx, {
      work_item_id: newId(rc.now),
      proc_inst_id: item.proc_inst_id,
      activity_inst_id: item.activity_inst_id,
      name: item.name,
      display_name: item.display_name,
      status: 'Removed',
      user_id: member.member_name,
      user_key: member.member_key,
      original_user_id: member.member_name,
      client_data: null,
      created_date: rc.now,
      due_date: item.due_date,
      session: item.session,
      pool_info: item.pool_info,
      removed_from: item.work_item_id,
      last_modified_by: rc.event.sender,
      last_modified_date: rc.now,
    });
  }
}

/** The item is back in its pool: its members are no longer Removed from it. */
export async function restorePoolMembers(rc: RunContext, item: WorkItemRow): Promise<void> {
  await deleteRemovedItemsOf(rc.trx, item.work_item_id);
}
