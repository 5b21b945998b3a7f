/**
 * Ending a process instance, completed or canceled: whatever is still open in it is canceled
 * (activities, tasks, waiting system activities, timers, active child instances), and a child that
 * completed tells its parent.
 */
import { ACTIVE_PROC_INST_STATUSES, type ProcInstStatus } from '../domain/statuses.ts';
import { cancelActiveActivities } from '../store/queries/activities.ts';
import { cancelPendingEventsOfInstance } from '../store/queries/events.ts';
import { listChildInstances, type InstanceRow } from '../store/queries/instances.ts';
import { findOpenParts, type OpenParts } from '../store/queries/openParts.ts';
import { cancelWaitingTimers } from '../store/queries/timers.ts';
import { cancelOpenWorkItemsOfInstance, cancelWaitingProceduresOfInstance } from '../store/queries/workItems.ts';
import { notifyParent } from './childInstances.ts';
import { writeInstance } from './instanceWrites.ts';
import { AuditCategory, audit, type RunContext } from './RunContext.ts';

/** `probed`: what is open, when the caller has just asked (findOpenPartsIfIdle). */
export async function endInstance(rc: RunContext, status: 'Completed' | 'Canceled', why: string, probed?: OpenParts): Promise<void> {
  const id = rc.instance.proc_inst_id;
  // One probe first: an instance that completes normally has nothing open, and each cancel below
  // would be a statement that finds nothing.
  const open = probed ?? (await findOpenParts(rc.trx, id));
  if (open.activities) await cancelActiveActivities(rc.trx, id, rc.now);
  if (open.workItems) await cancelOpenWorkItemsOfInstance(rc.trx, id, rc.now, rc.event.sender);
  if (open.procedures) await cancelWaitingProceduresOfInstance(rc.trx, id, rc.now);
  if (open.timers) rc.finalized.push(...(await cancelWaitingTimers(rc.trx, { procInstId: id }, rc.now)));
  await writeInstance(rc, id, {
    status,
    completed_date: rc.now,
    last_modified_by: rc.event.sender,
    last_modified_date: rc.now,
    incident: null,
    incident_activity_id: '',
  });
  rc.instance = { ...rc.instance, status, incident: null, incident_activity_id: '' };
  audit(rc, AuditCategory.ProcessInstance, id, status === 'Completed' ? 'Complete process instance' : 'Cancel process instance', why);
  for (const child of open.children ? await listChildInstances(rc.trx, id) : []) {
    if (isActive(child)) await cancelInstanceTree(rc, child, `Parent ${id} ended.`);
  }
  if (status === 'Completed') await notifyParent(rc, 'ChildProcessCompleted', why);
}

/**
 * Cancels an instance and, recursively, its active children; events of those instances not yet
 * applied become Canceled. The parent is not told: use this when the parent's side caused it.
 */
export async function cancelInstanceTree(rc: RunContext, instance: InstanceRow, why: string): Promise<void> {
  const scoped: RunContext = { ...rc, instance };
  await endInstance(scoped, 'Canceled', why);
  const canceled = await cancelPendingEventsOfInstance(rc.trx, instance.proc_inst_id, rc.event.event_id, rc.now);
  rc.finalized.push(...canceled);
}

export function isActive(p: InstanceRow): boolean {
  return ACTIVE_PROC_INST_STATUSES.includes(p.status as ProcInstStatus);
}
