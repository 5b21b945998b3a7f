/**
 * Canceling one activity and everything that hangs on it: its tasks and waiting system activity,
 * its timers (boundary, intermediate, overdue), the child instance of a call activity, and every
 * activity inside an embedded sub-process. Tokens still travelling inside a canceled sub-process
 * are dropped by the executor (closedScopes).
 */
import { cancelActivityRow, listActiveActivities, type ActivityRow } from '../store/queries/activities.ts';
import { findChildOfActivity } from '../store/queries/instances.ts';
import { cancelWaitingTimers } from '../store/queries/timers.ts';
import { cancelOpenWorkItemsOfActivity, cancelWaitingProceduresOfActivity } from '../store/queries/workItems.ts';
import { clearIncidentOf } from './incidents.ts';
import { cancelInstanceTree, isActive } from './instanceEnd.ts';
import { AuditCategory, audit, type RunContext } from './RunContext.ts';

const closed = new WeakMap<RunContext, Set<string>>();

/** Scopes (sub-process activity ids) canceled or terminated while this event was applied. */
export function closedScopes(rc: RunContext): Set<string> {
  let set = closed.get(rc);
  if (!set) {
    set = new Set();
    closed.set(rc, set);
  }
  return set;
}

export async function cancelActivityTree(rc: RunContext, activity: ActivityRow, why: string): Promise<void> {
  await cancelActivityRow(rc.trx, activity.id, rc.now);
  rc.finalized.push(...(await cancelWaitingTimers(rc.trx, { activityInstId: activity.id }, rc.now)));
  await cancelOpenWorkItemsOfActivity(rc.trx, activity.id, rc.now, rc.event.sender);
  await cancelWaitingProceduresOfActivity(rc.trx, activity.id, rc.now);
  await clearIncidentOf(rc, activity.id);
  audit(rc, AuditCategory.ActivityInstance, activity.id, 'Cancel activity', `${activity.display_name}: ${why}`);
  if (activity.kind === 'callActivity') {
    const child = await findChildOfActivity(rc.trx, activity.id);
    if (child && isActive(child)) await cancelInstanceTree(rc, child, `Call activity ${activity.name} of ${rc.instance.proc_inst_id} was canceled.`);
  }
  if (activity.kind === 'subProcess') await cancelScope(rc, activity.id, why);
}

/** Cancels every active activity inside a sub-process scope (not the sub-process itself). */
export async function cancelScope(rc: RunContext, scopeId: string, why: string): Promise<void> {
  closedScopes(rc).add(scopeId);
  const inside = (await listActiveActivities(rc.trx, rc.instance.proc_inst_id)).filter((a) => a.scope_id === scopeId);
  for (const inner of inside) await cancelActivityTree(rc, inner, why);
}
