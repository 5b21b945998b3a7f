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
  const due = await timerDueDate(rc, timerNode);
  const timerId = newId(rc.now);
  const event = await admitEvent(rc.trx, {
    eventName: 'FireTimer',
    instance: rc.instance,
    caller: systemCaller(rc.deps),
    now: rc.now,
    activityInstId: activity.id,
    status: 'Deferred',
    params: { timerId },
    xmlParams: [
      ['ProcInstID', rc.instance.proc_inst_id],
      ['ActivityInstID', activity.id],
      ['HighPriority', false],
      ['TimerEvent', timerNode.id],
      ['DueDate', formatDate(due)],
    ],
  });
  await insertTimer(rc.trx, {
    timer_id: timerId,
    proc_inst_id: rc.instance.proc_inst_id,
    activity_inst_id: activity.id,
    node_id: timerNode.id,
    kind,
    due_date: due,
    event_id: event.event_id,
    status: 'Waiting',
    created_date: rc.now,
    fired_date: null,
  });
}

/** Sets the timer that marks a task Overdue at its DueDate. */
export async function startOverdueTimer(rc: RunContext, item: { work_item_id: string; activity_inst_id: string; due_date: number }): Promise<void> {
  const timerId = newId(rc.now);
  const event = await admitEvent(rc.trx, {
    eventName: 'MarkWorkItemOverdue',
    instance: rc.instance,
    caller: systemCaller(rc.deps),
    now: rc.now,
    activityInstId: item.activity_inst_id,
    workItemId: item.work_item_id,
    status: 'Deferred',
    params: { timerId },
    xmlParams: [
      ['ProcInstID', rc.instance.proc_inst_id],
      ['ActivityInstID', item.activity_inst_id],
      ['HighPriority', false],
      ['WorkItemID', item.work_item_id],
      ['DueDate', formatDate(item.due_date)],
    ],
  });
  await insertTimer(rc.trx, {
    timer_id: timerId,
    proc_inst_id: rc.instance.proc_inst_id,
    activity_inst_id: item.activity_inst_id,
    work_item_id: item.work_item_id,
    kind: 'overdue',
    due_date: item.due_date,
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
