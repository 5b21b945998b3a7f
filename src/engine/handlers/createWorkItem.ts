import { WaymarkError } from '../../domain/errors.ts';
import { OPEN_WORK_ITEM_STATUSES, type WorkItemStatus } from '../../domain/statuses.ts';
import { addParticipants, findWorkItem, insertWorkItem } from '../../store/queries/workItems.ts';
import type { Insertable } from 'kysely';
import type { WorkItemsTable } from '../../store/schema.ts';
import { dueDateOf } from '../dueDates.ts';
import { findActivity } from '../../store/queries/activities.ts';
import { AuditCategory, audit, type RunContext } from '../RunContext.ts';
import { startOverdueTimer } from '../timerSchedule.ts';
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

/**
 * CreateLinkedWorkItem: a new task in the source task's activity, assigned to the participant.
 * CreateWorkItem (no source): an independent extra task in an active activity instance.
 */
export const createWorkItem: EventHandler = {
  eventName: 'CreateWorkItem',
  async apply(rc) {
    requireRunning(rc);
    const p = paramsOf<CreateLinkedParams>(rc);
    if (rc.event.source_work_item_id === '') return createIndependentItem(rc, p);
    const source = await findWorkItem(rc.trx, rc.event.source_work_item_id);
    if (!source) throw new WaymarkError('WorkItemNotFound', `Work item ${rc.event.source_work_item_id} does not exist.`);
    if (!OPEN_WORK_ITEM_STATUSES.includes(source.status as WorkItemStatus)) {
      throw new WaymarkError('WorkItemClosed', `Work item ${source.work_item_id} is ${source.status}; a task can be linked only to an open one.`);
    }
    await insertAssignedItem(rc, p, {
      proc_inst_id: source.proc_inst_id,
      activity_inst_id: source.activity_inst_id,
      name: source.name,
      session: source.session,
      source_work_item_id: source.work_item_id,
      wait_work_performed: p.dependent ? 1 : 0,
    });
    const link = p.dependent ? 'dependent on' : 'linked to';
    audit(rc, AuditCategory.ManualWorkItem, rc.event.work_item_id, 'Create linked work item', `${p.workToPerform} for ${p.userName}, ${link} ${source.work_item_id}.`);
  },
};

async function createIndependentItem(rc: RunContext, p: CreateLinkedParams): Promise<void> {
  const activity = await findActivity(rc.trx, rc.event.activity_inst_id);
  if (!activity || activity.status !== 'Active') {
    throw new WaymarkError('ActivityNotActive', `Activity instance ${rc.event.activity_inst_id} is not active; a task can be added only to an active one.`);
  }
  await insertAssignedItem(rc, p, {
    proc_inst_id: activity.proc_inst_id,
    activity_inst_id: activity.id,
    name: activity.name,
    session: activity.session,
    independent: 1,
  });
  audit(rc, AuditCategory.ManualWorkItem, rc.event.work_item_id, 'Create work item', `${p.workToPerform} for ${p.userName} in ${activity.display_name}.`);
}

type Placement = Pick<Insertable<WorkItemsTable>, 'proc_inst_id' | 'activity_inst_id' | 'name' | 'session' | 'source_work_item_id' | 'wait_work_performed' | 'independent'>;

/** The new task, assigned to the participant, due Length Unit after the call, with its Overdue timer. */
async function insertAssignedItem(rc: RunContext, p: CreateLinkedParams, where: Placement): Promise<void> {
  const due = dueDateOf(rc.deps, rc.event.sent_date, p);
  // Every column named, not `{ ...where, ... }`: a spread followed by keys its object lacks takes
  // V8's slow path, ~3 % of the writer thread's self time in `bench writes` CreateLinkedWorkItem
  // (forty-second round, docs/performance-log.md).
  await insertWorkItem(rc.trx, {
    proc_inst_id: where.proc_inst_id,
    activity_inst_id: where.activity_inst_id,
    name: where.name,
    session: where.session,
    source_work_item_id: where.source_work_item_id,
    wait_work_performed: where.wait_work_performed,
    independent: where.independent,
    work_item_id: rc.event.work_item_id,
    display_name: p.workToPerform,
    status: 'Assigned',
    user_id: p.userName,
    user_key: p.userKey,
    original_user_id: p.userName,
    client_data: p.clientData,
    created_date: rc.now,
    assigned_date: rc.now,
    due_date: due,
    last_modified_by: rc.event.sender,
    last_modified_date: rc.now,
  });
  await addParticipants(rc.trx, where.proc_inst_id, [p.userKey]);
  await startOverdueTimer(rc, { work_item_id: rc.event.work_item_id, activity_inst_id: where.activity_inst_id, due_date: due });
}
