/** Handlers of ReassignWorkItem, CancelWorkItem and ActivateWorkItem. */
import { WaymarkError } from '../../domain/errors.ts';
import { findActivity } from '../../store/queries/activities.ts';
import { addParticipants, addPoolMembers, insertWorkItem, listPoolMembers, updateWorkItem, type WorkItemRow } from '../../store/queries/workItems.ts';
import { cancelAndMoveOn } from '../executor.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { startOverdueTimer } from '../timerSchedule.ts';
import { assignedStatus, closeWorkItem, holdsToken, removeOtherPoolMembers, restorePoolMembers } from '../workItemLifecycle.ts';
import { nextClientData, paramsOf, requireRunning, workItemOf, type EventHandler } from './EventHandler.ts';

export interface ReassignParams {
  newWorkItemId: string;
  userName: string;
  userKey: string;
  clientData: string | null;
}

function requireOpen(item: WorkItemRow, allowed: readonly string[], what: string): void {
  if (!allowed.includes(item.status)) {
    throw new WaymarkError('WorkItemClosed', `Work item ${item.work_item_id} is ${item.status}; only a ${allowed.join(', ')} item can be ${what}.`);
  }
}

/** The old item becomes Reassigned; a new item of the same task is assigned to the new user and holds what the old one held. */
export const reassignWorkItem: EventHandler = {
  eventName: 'ReassignWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<ReassignParams>(rc);
    const item = await workItemOf(rc);
    requireOpen(item, ['New', 'Assigned', 'Overdue'], 'reassigned');
    await closeWorkItem(rc, item, { status: 'Reassigned' });
    const successor = successorOf(item, p, rc.now, rc.event.sender);
    await insertWorkItem(rc.trx, successor);
    await addParticipants(rc.trx, item.proc_inst_id, [p.userKey]);
    // The pool moves to the new item: releasing it offers it to the same people again.
    const pool = await listPoolMembers(rc.trx, item.work_item_id);
    if (pool.length > 0) {
      await addPoolMembers(rc.trx, successor.work_item_id, pool.map((m) => ({ key: m.member_key, name: m.member_name })));
      await restorePoolMembers(rc, item);
      await removeOtherPoolMembers(rc, successor, p.userKey);
    }
    if (successor.due_date !== null && successor.status === 'Assigned') {
      await startOverdueTimer(rc, { work_item_id: successor.work_item_id, activity_inst_id: item.activity_inst_id, due_date: successor.due_date });
    }
    const from = item.user_id ? ` from ${item.user_id}` : '';
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, 'Reassign work item', `${item.display_name} reassigned${from} to ${p.userName} as ${p.newWorkItemId}.`);
  },
};

function successorOf(item: WorkItemRow, p: ReassignParams, now: number, by: string): WorkItemRow {
  return {
    ...item,
    work_item_id: p.newWorkItemId,
    status: assignedStatus(item, now),
    user_id: p.userName,
    user_key: p.userKey,
    original_user_id: item.original_user_id || item.user_id,
    client_data: nextClientData(item.client_data, p.clientData),
    created_date: now,
    assigned_date: now,
    completed_date: null,
    cancelled_date: null,
    activated_date: null,
    last_modified_by: by,
    last_modified_date: now,
  };
}

/** The item is Canceled; when it held its activity's token, the activity is canceled and the token moves on. */
export const cancelWorkItem: EventHandler = {
  eventName: 'CancelWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<{ clientData: string | null }>(rc);
    const item = await workItemOf(rc);
    requireOpen(item, ['New', 'Assigned', 'Overdue', 'Carbon'], 'canceled');
    await closeWorkItem(rc, item, { status: 'Canceled', cancelled_date: rc.now, client_data: nextClientData(item.client_data, p.clientData) });
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, 'Cancel work item', `${item.display_name} canceled by ${rc.event.sender}.`);
    if (!holdsToken(item)) return;
    const activity = await findActivity(rc.trx, item.activity_inst_id);
    if (activity && activity.status === 'Active') await cancelAndMoveOn(rc, activity, `its work item ${item.work_item_id} was canceled`);
  },
};

/** ActivatedDate is set (activate true) or unset (false). */
export const activateWorkItem: EventHandler = {
  eventName: 'ActivateWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<{ activate: boolean; clientData: string | null; userKey: string }>(rc);
    const item = await workItemOf(rc);
    requireOpen(item, ['Assigned', 'Overdue'], p.activate ? 'activated' : 'deactivated');
    if (item.user_key !== p.userKey) {
      throw new WaymarkError('AccessDenied', `Work item ${item.work_item_id} is assigned to ${item.user_id}; only the assignee can activate it.`);
    }
    await updateWorkItem(rc.trx, item.work_item_id, {
      activated_date: p.activate ? rc.now : null,
      client_data: nextClientData(item.client_data, p.clientData),
      last_modified_by: rc.event.sender,
      last_modified_date: rc.now,
    });
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, p.activate ? 'Activate work item' : 'Deactivate work item', `${item.display_name} by ${rc.event.sender}.`);
  },
};
