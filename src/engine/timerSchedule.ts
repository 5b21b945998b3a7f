/**
 * Setting timers: a row in `timers` with its due time and the event it will send, admitted
 * `Deferred` now and turned `Sent` by the timer loop (Timers.ts) when due. Boundary and
 * intermediate timer events send FireTimer; a task with a DueDate sends MarkWorkItemOverdue.
 */
import { DateTime, Duration } from 'luxon';
import { formatDate } from '../domain/dates.ts';
import { WaymarkError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { FlowNode } from '../model/ProcessModel.ts';
import { dateProblem, durationProblem } from '../model/timerDefinition.ts';
import type { ActivityRow } from '../store/queries/activities.ts';
import { insertTimer } from '../store/queries/timers.ts';
import { admitEvent } from './admission.ts';
import { evaluateFeel } from './feel.ts';
import { attributeContext } from './performers.ts';
import type { RunContext } from './RunContext.ts';
import { systemCaller } from './systemCaller.ts';

export type TimerKind = 'boundary' | 'intermediate' | 'overdue';

/** Sets the timer of a timer event node (boundary or intermediate) for one activity. */
export async function startEventTimer(rc: RunContext, kind: 'boundary' | 'intermediate', activity: ActivityRow, timerNode: FlowNode): Promise<void> {
  await setTimer(rc, { kind, eventName: 'FireTimer', activityInstId: activity.id, due: await timerDueDate(rc, timerNode), nodeId: timerNode.id });
}

/** Sets the timer that marks a task Overdue at its DueDate. */
export async function startOverdueTimer(rc: RunContext, item: { work_item_id: string; activity_inst_id: string; due_date: number }): Promise<void> {
  await setTimer(rc, {
    kind: 'overdue',
    eventName: 'MarkWorkItemOverdue',
    activityInstId: item.activity_inst_id,
    due: item.due_date,
    workItemId: item.work_item_id,
  });
}

interface NewTimer {
  kind: TimerKind;
  eventName: 'FireTimer' | 'MarkWorkItemOverdue';
  activityInstId: string;
  due: number;
  /** The timer event node (boundary, intermediate timers). */
  nodeId?: string;
  /** The task that becomes Overdue (overdue timers). */
  workItemId?: string;
}

/**
 * A timer: its event, admitted Deferred until due, and its row. The event's fourth param names
 * what the timer is for: the node (`TimerEvent`) or the task (`WorkItemID`).
 */
async function setTimer(rc: RunContext, t: NewTimer): Promise<void> {
  const timerId = newId(rc.now);
  const event = await admitEvent(rc.trx, {
    eventName: t.eventName,
    instance: rc.instance,
    caller: systemCaller(rc.deps),
    now: rc.now,
    activityInstId: t.activityInstId,
    workItemId: t.workItemId,
    status: 'Deferred',
    params: { timerId },
    xmlParams: [
      ['ProcInstID', rc.instance.proc_inst_id],
      ['ActivityInstID', t.activityInstId],
      ['HighPriority', false],
      t.workItemId !== undefined ? ['WorkItemID', t.workItemId] : ['TimerEvent', t.nodeId ?? ''],
      ['DueDate', formatDate(t.due)],
    ],
  });
  await insertTimer(rc.trx, {
    timer_id: timerId,
    proc_inst_id: rc.instance.proc_inst_id,
    activity_inst_id: t.activityInstId,
    work_item_id: t.workItemId ?? '',
    node_id: t.nodeId ?? '',
    kind: t.kind,
    due_date: t.due,
    event_id: event.event_id,
    status: 'Waiting',
    created_date: rc.now,
    fired_date: null,
  });
}

/** When the timer of `node` is due, counted from now; an InvalidTimer error (an incident) when it has no usable time. */
export async function timerDueDate(rc: RunContext, node: FlowNode): Promise<number> {
  const timer = node.timer!;
  let text = timer.value;
  if (text.startsWith('=')) {
    let value: unknown;
    try {
      value = evaluateFeel(text.slice(1), await attributeContext(rc));
    } catch (e) {
      throw invalidTimer(node, `its ${timer.type} ${text} failed: ${(e as Error).message}`);
    }
    if (value === null || value === undefined) throw invalidTimer(node, `its ${timer.type} ${text} gave no value`);
    text = String(value);
  }
  const zone = rc.deps.timeZone;
  if (timer.type === 'timeDuration') {
    const problem = durationProblem(text);
    if (problem) throw invalidTimer(node, `its timeDuration "${text}" ${problem}`);
    return DateTime.fromMillis(rc.now, { zone }).plus(Duration.fromISO(text)).toMillis();
  }
  const problem = dateProblem(text);
  if (problem) throw invalidTimer(node, `its timeDate "${text}" ${problem}`);
  return DateTime.fromISO(text, { zone }).toMillis();
}

function invalidTimer(node: FlowNode, why: string): WaymarkError {
  return new WaymarkError('InvalidTimer', `Timer ${node.id} cannot be set: ${why}.`);
}
