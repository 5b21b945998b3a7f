/**
 * Admission of a state-changing call: checks that can be made now are made by the command; this
 * writes the WFEvent row with Status `Sent` (the durable promise that the event will be applied).
 */
import type { Transaction } from 'kysely';
import { newId } from '../domain/ids.ts';
import { packParamsXml, type ParamValue } from '../domain/paramsXml.ts';
import { insertEvent, type EventRow } from '../store/queries/events.ts';
import type { InstanceRow } from '../store/queries/instances.ts';
import type { DB } from '../store/schema.ts';
import type { Caller } from './accessPolicy.ts';

export interface NewEvent {
  eventName: string;
  instance: InstanceRow;
  caller: Caller;
  now: number;
  activityInstId?: string;
  workItemId?: string;
  sourceWorkItemId?: string;
  userId?: string;
  highPriority?: boolean;
  autoStart?: boolean;
  /**
   * Normally left out: `Sent`, or `Deferred` while the instance is Suspended (high-priority events
   * such as cancel and resume are always `Sent`). Timers admit their event `Deferred` until due.
   */
  status?: 'Sent' | 'Deferred';
  /** What the handler needs, as JSON. */
  params?: object;
  /** ParamsXml params, in their fixed order per EventName. */
  xmlParams: ReadonlyArray<readonly [string, ParamValue]>;
}

/**
 * The events admitted Sent in each transaction, in order (a WeakMap: gone with the transaction):
 * where nodes share the database, the group commit applies them before it commits
 * (Dispatcher.inlineTail). An entry can outlive its row (a job's savepoint rolled back after it):
 * whoever applies them reads each event again first.
 */
const admittedIn = new WeakMap<object, EventRow[]>();

/** The events admitted Sent in the transaction `trx` so far (see admittedIn). */
export function admittedEvents(trx: Transaction<DB>): readonly EventRow[] {
  return admittedIn.get(trx) ?? [];
}

export async function admitEvent(trx: Transaction<DB>, e: NewEvent): Promise<EventRow> {
  const row: EventRow = {
    seq: 0,
    event_id: newId(e.now),
    event_name: e.eventName,
    status: e.status ?? (e.instance.status === 'Suspended' && !e.highPriority ? 'Deferred' : 'Sent'),
    proc_inst_id: e.instance.proc_inst_id,
    activity_inst_id: e.activityInstId ?? '',
    work_item_id: e.workItemId ?? '',
    source_work_item_id: e.sourceWorkItemId ?? '',
    user_id: e.userId ?? '',
    sender: e.caller.userName,
    sent_date: e.now,
    end_date: null,
    entries: 0,
    error_code: null,
    error_message: null,
    high_priority: e.highPriority ? 1 : 0,
    auto_start: e.autoStart ? 1 : 0,
    params: JSON.stringify(e.params ?? {}),
    params_xml_packed: '',
    proc_def_id: e.instance.def_id,
    proc_inst_name: e.instance.proc_inst_name,
    parent_proc_inst_id: e.instance.super_proc_inst_id,
    work_object_id: e.instance.work_object_id,
    work_object_info: e.instance.work_object_info,
    claimed_by: null,
    claimed_at: null,
  };
  // Stored packed: params equal to a column of this row are one letter (≈ 880 bytes less per
  // simple instance); toWFEvent renders the same ParamsXml text.
  row.params_xml_packed = packParamsXml(e.xmlParams, row);
  const { seq: _seq, ...values } = row;
  row.seq = await insertEvent(trx, values);
  if (row.status === 'Sent') {
    const list = admittedIn.get(trx);
    if (list) list.push(row);
    else admittedIn.set(trx, [row]);
  }
  return row;
}

/** The four params every work-item event starts with. */
export function workItemXmlParams(procInstId: string, activityInstId: string, highPriority: boolean, workItemId: string) {
  return [
    ['ProcInstID', procInstId],
    ['ActivityInstID', activityInstId],
    ['HighPriority', highPriority],
    ['WorkItemID', workItemId],
  ] as const;
}
