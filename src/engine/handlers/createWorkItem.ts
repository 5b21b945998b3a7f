import { WaymarkError } from '../../domain/errors.ts';
import { OPEN_WORK_ITEM_STATUSES, type WorkItemStatus } from '../../domain/statuses.ts';
import { addParticipants, findWorkItem, insertWorkItem } from '../../store/queries/workItems.ts';
import { dueDateOf } from '../dueDates.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { paramsOf, requireRunning, type EventHandler } from './EventHandler.ts';

export interface CreateLinkedParams {
  userName: string;
  userKey: string;
  workToPerform: string;
  length: number;
  unit: string;
  businessTime: boolean;
  dependent: boolean;
  clientData: string | null;
}

/** CreateLinkedWorkItem: a new task in the source task's activity, assigned to the participant. */
export const createWorkItem: EventHandler = {
  eventName: 'CreateWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<CreateLinkedParams>(rc);
    const source = await findWorkItem(rc.trx, rc.event.source_work_item_id);
    if (!source) throw new WaymarkError('WorkItemNotFound', `Work item ${rc.event.source_work_item_id} does not exist.`);
    if (!OPEN_WORK_ITEM_STATUSES.includes(source.status as WorkItemStatus)) {
      throw new WaymarkError('WorkItemClosed', `Work item ${source.work_item_id} is ${source.status}; a task can be linked only to an open one.`);
    }
    const due = dueDateOf(rc.deps, rc.event.sent_date, p);
    await insertWorkItem(rc.trx, {
      work_item_id: rc.event.work_item_id,
      proc_inst_id: source.proc_inst_id,
      activity_inst_id: source.activity_inst_id,
      name: source.name,
      display_name: p.workToPerform,
      status: 'Assigned',
      user_id: p.userName,
      user_key: p.userKey,
      original_user_id: p.userName,
      client_data: p.clientData,
      created_date: rc.now,
      assigned_date: rc.now,
      due_date: due,
      source_work_item_id: source.work_item_id,
      wait_work_performed: p.dependent ? 1 : 0,
      session: source.session,
      last_modified_by: rc.event.sender,
      last_modified_date: rc.now,
    });
    await addParticipants(rc.trx, source.proc_inst_id, [p.userKey]);
    const link = p.dependent ? 'dependent on' : 'linked to';
    audit(rc, AuditCategory.ManualWorkItem, rc.event.work_item_id, 'Create linked work item', `${p.workToPerform} for ${p.userName}, ${link} ${source.work_item_id}.`);
  },
};
