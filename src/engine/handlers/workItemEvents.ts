/** Handlers of the task lifecycle: take (assign), release (undo assign), complete. */
import { WaymarkError } from '../../domain/errors.ts';
import {
  addPoolMembers,
  findOpenDependents,
  updateWorkItem,
} from '../../store/queries/workItems.ts';
import { completeActivity } from '../executor.ts';
import { assignedStatus, closeWorkItem, holdsToken, removeOtherPoolMembers, restorePoolMembers } from '../workItemLifecycle.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { nextClientData, paramsOf, requireRunning, workItemWithContextOf, type EventHandler } from './EventHandler.ts';

interface ClientDataParams {
  clientData: string | null;
}

export const assignWorkItem: EventHandler = {
  eventName: 'AssignWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<ClientDataParams & { userName: string; userKey: string; viaRight: boolean }>(rc);
    // The item, the taker's membership and the pool's size in one statement.
    const found = await workItemWithContextOf(rc, { poolMemberKey: p.userKey, poolSize: true });
    const item = found.item;
    if (item.status !== 'New') {
      const holder = item.user_id ? ` by ${item.user_id}` : '';
      throw new WaymarkError('WorkItemNotAvailable', `Work item ${item.work_item_id} is ${item.status}${holder}; only a New item can be taken.`);
    }
    if (!p.viaRight && !found.poolMember) {
      throw new WaymarkError('AccessDenied', `${p.userName} is no longer in the pool of work item ${item.work_item_id}.`);
    }
    await updateWorkItem(rc.trx, item.work_item_id, {
      status: assignedStatus(item, rc.now),
      user_id: p.userName,
      user_key: p.userKey,
      assigned_date: rc.now,
      client_data: nextClientData(item.client_data, p.clientData),
      last_modified_by: rc.event.sender,
      last_modified_date: rc.now,
    });
    if (found.poolSize > (found.poolMember ? 1 : 0)) await removeOtherPoolMembers(rc, item, p.userKey);
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, 'Assign work item', `${item.display_name} taken by ${p.userName}.`);
  },
};

export const undoAssignWorkItem: EventHandler = {
  eventName: 'UndoAssignWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<ClientDataParams>(rc);
    // The item and its pool's size in one statement, or none where the admission's read is kept.
    const found = await workItemWithContextOf(rc, { poolSize: true });
    const item = found.item;
    if (item.status !== 'Assigned' && item.status !== 'Overdue') {
      throw new WaymarkError('WorkItemNotAssigned', `Work item ${item.work_item_id} is ${item.status}; only an Assigned item can be released to its pool.`);
    }
    // An item that was assigned directly has no pool: the user who held it can take it again.
    if (found.poolSize === 0 && item.user_key) {
      await addPoolMembers(rc.trx, item.work_item_id, [{ key: item.user_key, name: item.user_id }]);
    }
    await updateWorkItem(rc.trx, item.work_item_id, {
      status: 'New',
      user_id: '',
      user_key: '',
      assigned_date: null,
      client_data: nextClientData(item.client_data, p.clientData),
      last_modified_by: rc.event.sender,
      last_modified_date: rc.now,
    });
    await restorePoolMembers(rc, item);
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, 'Undo assign work item', `${item.display_name} released by ${item.user_id} back to its pool.`);
  },
};

export const completeWorkItem: EventHandler = {
  eventName: 'CompleteWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<ClientDataParams & { userKey: string }>(rc);
    const found = await workItemWithContextOf(rc, { openDependents: true });
    const item = found.item;
    if (item.status !== 'Assigned' && item.status !== 'Overdue') {
      throw new WaymarkError('WorkItemClosed', `Work item ${item.work_item_id} is ${item.status}; only an Assigned item can be completed.`);
    }
    if (item.user_key !== p.userKey) {
      throw new WaymarkError('AccessDenied', `Work item ${item.work_item_id} is assigned to ${item.user_id}; only the assignee can complete it.`);
    }
    // Named by a second read only when there are some.
    if (found.openDependents) await requireNoOpenDependents(rc, item.work_item_id);
    await closeWorkItem(rc, item, {
      status: 'Completed',
      completed_date: rc.now,
      client_data: nextClientData(item.client_data, p.clientData),
    });
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, 'Complete work item', `${item.display_name} completed by ${item.user_id}.`);
    // Linked and independent tasks finish on their own; the activity's own task moves the token on.
    if (holdsToken(item)) await completeActivity(rc, item.activity_inst_id);
  },
};

/** bDependent: the source cannot complete while a task linked to it with bDependent true is open. */
export async function requireNoOpenDependents(rc: { trx: Parameters<typeof findOpenDependents>[0] }, workItemId: string): Promise<void> {
  const open = await findOpenDependents(rc.trx, workItemId);
  if (open.length > 0) {
    const names = open.map((w) => `${w.work_item_id} (${w.display_name}, ${w.status})`).join(', ');
    throw new WaymarkError('WorkItemBlocked', `Work item ${workItemId} cannot be completed while its dependent linked work item ${names} is open.`);
  }
}
