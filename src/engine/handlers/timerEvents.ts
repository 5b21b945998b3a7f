/** Events the timer loop sends when a timer is due: FireTimer (timer events) and MarkWorkItemOverdue. */
import { findActivity } from '../../store/queries/activities.ts';
import { findTimer } from '../../store/queries/timers.ts';
import { updateWorkItem } from '../../store/queries/workItems.ts';
import { cancelActivityTree } from '../cancellation.ts';
import { completeActivity, nodeOf, placeToken } from '../executor.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { paramsOf, workItemOf, type EventHandler } from './EventHandler.ts';

/**
 * An intermediate timer catch event moves on; a boundary timer puts a token on its boundary event,
 * canceling the activity it is attached to when it is interrupting. A timer whose activity is no
 * longer active (it finished just before) does nothing.
 */
export const fireTimer: EventHandler = {
  eventName: 'FireTimer',
  async apply(rc) {
    const timer = await findTimer(rc.trx, paramsOf<{ timerId: string }>(rc).timerId);
    const activity = timer && (await findActivity(rc.trx, timer.activity_inst_id));
    if (!timer || !activity || activity.status !== 'Active' || rc.instance.status !== 'Running') return;
    const timerNode = nodeOf(rc.model, timer.node_id);
    audit(rc, AuditCategory.ActivityInstance, activity.id, 'Fire timer', `Timer ${timerNode.id} of ${activity.display_name} fired.`);
    if (timer.kind === 'intermediate') {
      await completeActivity(rc, activity.id);
      return;
    }
    if (timerNode.cancelActivity) await cancelActivityTree(rc, activity, `interrupted by timer ${timerNode.id}`);
    await placeToken(rc, timerNode.id, activity.scope_id);
  },
};

/** A task reached its DueDate while assigned: it becomes Overdue. Other statuses are left alone. */
export const markWorkItemOverdue: EventHandler = {
  eventName: 'MarkWorkItemOverdue',
  async apply(rc) {
    const item = await workItemOf(rc);
    if (item.status !== 'Assigned') return;
    await updateWorkItem(rc.trx, item.work_item_id, { status: 'Overdue', last_modified_by: rc.event.sender, last_modified_date: rc.now });
    audit(rc, AuditCategory.ManualWorkItem, item.work_item_id, 'Work item overdue', `${item.display_name} of ${item.user_id} is past its due date.`);
  },
};
