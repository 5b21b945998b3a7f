/**
 * CancelActivityInstance (the activity is canceled and the token moves on along its flows) and
 * RollbackProcessInstance (every active activity is canceled and a token starts again at an
 * activity the instance has been at).
 */
import { WaymarkError } from '../../domain/errors.ts';
import { findActivity, listActiveActivities, type ActivityRow } from '../../store/queries/activities.ts';
import { cancelActivityTree } from '../cancellation.ts';
import { cancelAndMoveOn, placeToken } from '../executor.ts';
import { AuditCategory, audit, type RunContext } from '../RunContext.ts';
import { requireRunning, type EventHandler } from './EventHandler.ts';

async function targetActivity(rc: RunContext): Promise<ActivityRow> {
  const activity = await findActivity(rc.trx, rc.event.activity_inst_id);
  if (!activity || activity.proc_inst_id !== rc.instance.proc_inst_id) {
    throw new WaymarkError('ActivityInstanceNotFound', `Activity instance ${rc.event.activity_inst_id} does not exist in process instance ${rc.instance.proc_inst_id}.`);
  }
  return activity;
}

export const cancelActivityInstance: EventHandler = {
  eventName: 'CancelActivityInstance',
  async apply(rc) {
    requireRunning(rc);
    const activity = await targetActivity(rc);
    if (activity.status !== 'Active') {
      throw new WaymarkError('ActivityNotActive', `Activity instance ${activity.id} (${activity.name}) is ${activity.status}; only an active one can be canceled.`);
    }
    await cancelAndMoveOn(rc, activity, `canceled by ${rc.event.sender}`);
  },
};

export const rollbackProcessInstance: EventHandler = {
  eventName: 'RollbackProcessInstance',
  async apply(rc) {
    requireRunning(rc);
    const target = await targetActivity(rc);
    for (const active of await listActiveActivities(rc.trx, rc.instance.proc_inst_id)) {
      if (active.scope_id === '') await cancelActivityTree(rc, active, `rolled back to ${target.name} by ${rc.event.sender}`);
    }
    audit(rc, AuditCategory.ProcessInstance, rc.instance.proc_inst_id, 'Roll back process instance', `Rolled back to ${target.display_name} by ${rc.event.sender}.`);
    await placeToken(rc, target.name, '');
  },
};
