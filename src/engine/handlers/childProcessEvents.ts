/**
 * What a child instance tells the parent whose call activity started it: it completed (its
 * attributes are copied back and the call activity moves on), it was canceled, or it stopped with
 * an incident (the parent shows an incident at the call activity, which keeps waiting).
 */
import { copyAttributes } from '../../store/queries/attributes.ts';
import { findActivity, type ActivityRow } from '../../store/queries/activities.ts';
import { findInstance } from '../../store/queries/instances.ts';
import { writeInstance } from '../instanceWrites.ts';
import { completeActivity } from '../executor.ts';
import { AuditCategory, audit, type RunContext } from '../RunContext.ts';
import { paramsOf, type EventHandler } from './EventHandler.ts';

interface ChildParams {
  childProcInstId: string;
  message: string;
}

/** The call activity this event is about, if it still waits for the child named in the event. */
async function waitingCallActivity(rc: RunContext): Promise<ActivityRow | undefined> {
  if (rc.instance.status !== 'Running') return undefined;
  const activity = await findActivity(rc.trx, rc.event.activity_inst_id);
  return activity && activity.status === 'Active' && activity.kind === 'callActivity' ? activity : undefined;
}

export const childProcessCompleted: EventHandler = {
  eventName: 'ChildProcessCompleted',
  async apply(rc) {
    const activity = await waitingCallActivity(rc);
    if (!activity) return;
    const { childProcInstId } = paramsOf<ChildParams>(rc);
    const child = await findInstance(rc.trx, childProcInstId);
    if (child) await copyAttributes(rc.trx, child.custom_id, rc.instance.custom_id);
    audit(rc, AuditCategory.ActivityInstance, activity.id, 'Child process completed', `${activity.display_name}: child process ${childProcInstId} completed.`);
    await completeActivity(rc, activity.id);
  },
};

async function showIncident(rc: RunContext, purpose: string): Promise<void> {
  const activity = await waitingCallActivity(rc);
  if (!activity) return;
  const { message } = paramsOf<ChildParams>(rc);
  const incident = `Call activity ${activity.name}: ${message}`;
  await writeInstance(rc, rc.instance.proc_inst_id, { incident, incident_activity_id: activity.id, last_modified_date: rc.now });
  rc.instance = { ...rc.instance, incident, incident_activity_id: activity.id };
  audit(rc, AuditCategory.ProcessInstance, rc.instance.proc_inst_id, purpose, incident, 1);
}

export const childProcessCanceled: EventHandler = {
  eventName: 'ChildProcessCanceled',
  apply: (rc) => showIncident(rc, 'Child process canceled'),
};

export const childProcessIncident: EventHandler = {
  eventName: 'ChildProcessIncident',
  apply: (rc) => showIncident(rc, 'Incident'),
};
