/**
 * Incidents: the instance cannot go on at one activity (a gateway with no flow to take, a task
 * nobody can be given, a call to a process that is not released, a timer without a usable time).
 * The token stops there: the activity stays active and Pending, the instance shows the reason in
 * `Incident`, the audit trail records it, and a parent instance hears of it. Rolling back to the
 * activity or canceling it clears the incident.
 */
import { isWaymarkError, type WaymarkError } from '../domain/errors.ts';
import { updateActivity, type ActivityRow } from '../store/queries/activities.ts';
import { notifyParent } from './childInstances.ts';
import { writeInstance } from './instanceWrites.ts';
import { AuditCategory, audit, type RunContext } from './RunContext.ts';

/** Error codes that stop a token with an incident instead of failing the event. */
export const INCIDENT_CODES: ReadonlySet<string> = new Set(['NoPerformer', 'NoMatchingFlow', 'CalledProcessNotFound', 'InvalidTimer']);

export function isIncident(e: unknown): e is WaymarkError {
  return isWaymarkError(e) && INCIDENT_CODES.has(e.code);
}

export async function raiseIncident(rc: RunContext, activity: ActivityRow, message: string): Promise<void> {
  await updateActivity(rc.trx, activity.id, { pending: 1 });
  await writeInstance(rc, rc.instance.proc_inst_id, { incident: message, incident_activity_id: activity.id, last_modified_date: rc.now });
  rc.instance = { ...rc.instance, incident: message, incident_activity_id: activity.id };
  audit(rc, AuditCategory.ProcessInstance, rc.instance.proc_inst_id, 'Incident', message, 1);
  await notifyParent(rc, 'ChildProcessIncident', `Child process ${rc.instance.proc_inst_id} stopped: ${message}`);
}

/** The activity an incident concerns is left or canceled: the incident is over. */
export async function clearIncidentOf(rc: RunContext, activityId: string): Promise<void> {
  if (rc.instance.incident_activity_id !== activityId) return;
  await writeInstance(rc, rc.instance.proc_inst_id, { incident: null, incident_activity_id: '', last_modified_date: rc.now });
  rc.instance = { ...rc.instance, incident: null, incident_activity_id: '' };
}
