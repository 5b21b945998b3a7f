/**
 * Call activities: a child process instance of the released version of `calledElement`, started by
 * its own CreateProcessInstance event; and the events a child sends its parent when it completes,
 * is canceled or stops with an incident. A child starts with a copy of its parent's attributes; a
 * completed child's attributes are copied back to the parent.
 */
import { WaymarkError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { FlowNode } from '../model/ProcessModel.ts';
import type { ActivityRow } from '../store/queries/activities.ts';
import { copyAttributes } from '../store/queries/attributes.ts';
import { findReleasedByName } from '../store/queries/definitions.ts';
import { findInstance, insertInstance, type InstanceRow } from '../store/queries/instances.ts';
import { addParticipants } from '../store/queries/workItems.ts';
import { admitEvent } from './admission.ts';
import { AuditCategory, audit, type RunContext } from './RunContext.ts';
import { systemCaller } from './systemCaller.ts';

/** Creates the child instance of a call activity and sends its CreateProcessInstance event. */
export async function startChildInstance(rc: RunContext, node: FlowNode, activity: ActivityRow): Promise<InstanceRow> {
  const called = node.calledElement!;
  const def = await findReleasedByName(rc.trx, called.toLowerCase());
  if (!def) {
    throw new WaymarkError('CalledProcessNotFound', `Call activity ${node.id} calls the process ${called}, which has no released version.`);
  }
  const id = newId(rc.now);
  const parent = rc.instance;
  const child: InstanceRow = {
    proc_inst_id: id,
    proc_inst_name: `${def.def_name}-${id}`,
    proc_inst_name_key: `${def.def_name}-${id}`.toLowerCase(),
    def_id: def.def_id,
    def_name: def.def_name,
    version: def.version,
    status: 'Initiated',
    initiator: parent.initiator,
    initiator_key: parent.initiator_key,
    work_object_id: parent.work_object_id,
    work_object_info: parent.work_object_info,
    super_proc_inst_id: parent.proc_inst_id,
    super_activity_inst_id: activity.id,
    custom_id: id,
    started_date: rc.now,
    completed_date: null,
    due_date: null,
    last_modified_by: rc.event.sender,
    last_modified_date: rc.now,
    incident: null,
    incident_activity_id: '',
    next_activity_ord: 1,
  };
  await insertInstance(rc.trx, child);
  await copyAttributes(rc.trx, parent.custom_id, child.custom_id);
  await addParticipants(rc.trx, id, [parent.initiator_key]);
  await admitEvent(rc.trx, {
    eventName: 'CreateProcessInstance',
    instance: child,
    caller: systemCaller(rc.deps),
    now: rc.now,
    autoStart: true,
    userId: child.initiator,
    xmlParams: [
      ['ProcInstID', id],
      ['ProcDefID', def.def_id],
      ['ProcInstName', child.proc_inst_name],
      ['HighPriority', false],
      ['Initiator', child.initiator],
      ['SuperProcInstID', parent.proc_inst_id],
    ],
  });
  audit(rc, AuditCategory.ActivityInstance, activity.id, 'Start child process instance', `${node.name} started ${def.def_name} version ${def.version} as ${id}.`);
  return child;
}

export type ChildOutcome = 'ChildProcessCompleted' | 'ChildProcessCanceled' | 'ChildProcessIncident';

/**
 * Tell the parent of `rc.instance` (when it has an active one) what happened to this child:
 * an event for the parent, applied in the parent's own turn.
 */
export async function notifyParent(rc: RunContext, outcome: ChildOutcome, message: string): Promise<void> {
  const child = rc.instance;
  if (!child.super_proc_inst_id || !child.super_activity_inst_id) return;
  const parent = await findInstance(rc.trx, child.super_proc_inst_id);
  if (!parent || (parent.status !== 'Running' && parent.status !== 'Suspended')) return;
  await admitEvent(rc.trx, {
    eventName: outcome,
    instance: parent,
    caller: systemCaller(rc.deps),
    now: rc.now,
    activityInstId: child.super_activity_inst_id,
    params: { childProcInstId: child.proc_inst_id, message },
    xmlParams: [
      ['ProcInstID', parent.proc_inst_id],
      ['ActivityInstID', child.super_activity_inst_id],
      ['HighPriority', false],
      ['ChildProcInstID', child.proc_inst_id],
    ],
  });
}
