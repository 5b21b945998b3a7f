/**
 * UpdateWorkItem: the columns the interface lets a caller change (NAME, ORIGINAL_USER_ID,
 * CLIENT_DATA, POOL_INFO, STATUS, USER_ID, PRIORITY, DUE_DATE), checked at admission and applied
 * here. A new DueDate re-sets the task's overdue timer.
 */
import { WaymarkError } from '../../domain/errors.ts';
import { cancelWaitingTimers } from '../../store/queries/timers.ts';
import { addParticipants, updateWorkItem as updateRow, type WorkItemRow } from '../../store/queries/workItems.ts';
import type { RunContext } from '../RunContext.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { startOverdueTimer } from '../timerSchedule.ts';
import { assignedStatus, removeOtherPoolMembers } from '../workItemLifecycle.ts';
import { paramsOf, requireRunning, workItemOf, type EventHandler } from './EventHandler.ts';

export interface WorkItemChanges {
  name?: string;
  originalUserId?: string;
  clientData?: string | null;
  poolInfo?: string;
  status?: 'Assigned' | 'Overdue';
  user?: { name: string; key: string };
  priority?: string;
  /** ms, or null to unset. */
  dueDate?: number | null;
  /** The column names as sent, for the audit trail. */
  columns: string[];
}

const OPEN = ['New', 'Assigned', 'Overdue'];

export const updateWorkItem: EventHandler = {
  eventName: 'UpdateWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const c = paramsOf<WorkItemChanges>(rc);
    const item = await workItemOf(rc);
    if (!OPEN.includes(item.status)) {
      throw new WaymarkError('WorkItemClosed', `Work item ${item.work_item_id} is ${item.status}; only an open item (New, Assigned, Overdue) can be updated.`);
    }
    let status = item.status;
    if (c.user) status = status === 'New' ? assignedStatus(item, rc.now) : status;
    if (c.status) {
      if (status === 'New') throw new WaymarkError('WorkItemNotAssigned', `Work item ${item.work_item_id} is New; give it a USER_ID before setting STATUS ${c.status}.`);
      status = c.status;
    }
    const dueDate = c.dueDate !== undefined ? c.dueDate : item.due_date;
    if (c.dueDate !== undefined && status !== 'New' && !c.status) status = dueDate !== null && dueDate <= rc.now ? 'Overdue' : 'Assigned';
    await updateRow(rc.trx, item.work_item_id, {
      ...(c.name !== undefined ? { name: c.name } : {}),
      ...(c.originalUserId !== undefined ? { original_user_id: c.originalUserId } : {}),
      ...(c.clientData !== undefined ? { client_data: c.clientData } : {}),
      ...(c.poolInfo !== undefined ? { pool_info: c.poolInfo } : {}),
      ...(c.priority !== undefined ? { priority: c.priority } : {}),
      ...(c.user ? { user_id: c.user.name, user_key: c.user.key, assigned_date: rc.now } : {}),
      status,
      due_date: dueDate,
      last_modified_by: rc.event.sender,
      last_modified_date: rc.now,
    });
    if (c.user) await handOver(rc, item, c.user);
    if (c.dueDate !== undefined) await resetOverdueTimer(rc, item, dueDate, status);
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, 'Update work item', `${item.display_name}: ${c.columns.join(', ')} updated by ${rc.event.sender}.`);
  },
};

async function handOver(rc: RunContext, item: WorkItemRow, user: { name: string; key: string }): Promise<void> {
  await addParticipants(rc.trx, item.proc_inst_id, [user.key]);
  if (item.status === 'New') await removeOtherPoolMembers(rc, item, user.key);
}

async function resetOverdueTimer(rc: RunContext, item: WorkItemRow, dueDate: number | null, status: string): Promise<void> {
  rc.finalized.push(...(await cancelWaitingTimers(rc.trx, { workItemId: item.work_item_id }, rc.now)));
  if (dueDate !== null && dueDate > rc.now && status !== 'Overdue') {
    await startOverdueTimer(rc, { work_item_id: item.work_item_id, activity_inst_id: item.activity_inst_id, due_date: dueDate });
  }
}
