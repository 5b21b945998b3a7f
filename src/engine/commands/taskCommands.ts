/**
 * Admission of ReassignWorkItem, CancelWorkItem, CreateWorkItem, ActivateWorkItem and
 * UpdateWorkItem: rights and the state visible now; the handlers re-check when they apply. Each
 * reads, then writes one row (the event): `singleWrite` spares it a savepoint on SQLite (two of
 * its statements; GroupCommitter).
 */
import { WaymarkError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { formatExpectedTime, parseLength, parseUnit, type TimeUnit } from '../../domain/timeUnits.ts';
import { findActivity } from '../../store/queries/activities.ts';
import type { EventRow } from '../../store/queries/events.ts';
import { authorize, type Caller } from '../accessPolicy.ts';
import { admitEvent, workItemXmlParams } from '../admission.ts';
import type { EngineDeps } from '../context.ts';
import { registeredUser } from '../registeredUser.ts';
import type { CreateLinkedParams } from '../handlers/createWorkItem.ts';
import type { ReassignParams } from '../handlers/taskEvents.ts';
import { LIMITS, optionalBoolean, optionalString, requireId, requireString, requireUserName } from '../validate.ts';
import { activeInstance, existingWorkItem, workItemEvent } from './workItemCommands.ts';


const OPEN = ['New', 'Assigned', 'Overdue'];

export interface ReassignInput {
  WorkItemID?: unknown;
  UserName?: unknown;
  ClientData?: unknown;
}

export async function reassignWorkItem(deps: EngineDeps, caller: Caller, input: ReassignInput): Promise<EventRow> {
  await authorize(caller, 'ReassignWorkItem');
  const id = requireId(input.WorkItemID, 'WorkItemID');
  const user = requireUserName(input.UserName, 'UserName');
  const clientData = optionalString(input.ClientData, 'ClientData', LIMITS.clientData);
  return deps.store.grouped(async (trx) => {
    const item = await existingWorkItem(trx, id);
    if (!OPEN.includes(item.status)) {
      throw new WaymarkError('WorkItemClosed', `Work item ${id} is ${item.status}; only a New, Assigned or Overdue item can be reassigned.`);
    }
    const participant = await registeredUser(trx, user.key, user.name);
    if (item.user_key === user.key) {
      throw new WaymarkError('InvalidRequest', `Work item ${id} is already assigned to ${participant}; name another user.`);
    }
    const instance = await activeInstance(trx, item.proc_inst_id);
    const newWorkItemId = newId(deps.now());
    const params: ReassignParams = { newWorkItemId, userName: participant, userKey: user.key, clientData };
    return admitEvent(trx, {
      eventName: 'ReassignWorkItem',
      instance,
      caller,
      now: deps.now(),
      activityInstId: item.activity_inst_id,
      workItemId: id,
      userId: participant,
      params,
      xmlParams: [...workItemXmlParams(instance.proc_inst_id, item.activity_inst_id, false, id), ['UserID', participant], ['NewWorkItemID', newWorkItemId]],
    });
  }, { singleWrite: true });
}

export async function cancelWorkItem(deps: EngineDeps, caller: Caller, idIn: unknown, clientDataIn: unknown): Promise<EventRow> {
  await authorize(caller, 'CancelWorkItem');
  const id = requireId(idIn, 'workItemID');
  const clientData = optionalString(clientDataIn, 'clientData', LIMITS.clientData);
  return deps.store.grouped(async (trx) => {
    const item = await existingWorkItem(trx, id);
    if (![...OPEN, 'Carbon'].includes(item.status)) {
      throw new WaymarkError('WorkItemClosed', `Work item ${id} is ${item.status}; only a New, Assigned, Overdue or Carbon item can be canceled.`);
    }
    const instance = await activeInstance(trx, item.proc_inst_id);
    return workItemEvent(deps, trx, caller, 'CancelWorkItem', instance, item, { clientData });
  }, { singleWrite: true });
}

/** `activate`: the path segment true / false (any case). */
export async function activateWorkItem(deps: EngineDeps, caller: Caller, idIn: unknown, activateIn: unknown, clientDataIn: unknown): Promise<EventRow> {
  const id = requireId(idIn, 'workItemID');
  const activate = typeof activateIn === 'string' ? activateIn.trim().toLowerCase() : '';
  if (activate !== 'true' && activate !== 'false') {
    throw new WaymarkError('InvalidRequest', `activate must be true or false; got ${JSON.stringify(activateIn)}.`);
  }
  const clientData = optionalString(clientDataIn, 'clientData', LIMITS.clientData);
  return deps.store.grouped(async (trx) => {
    const item = await existingWorkItem(trx, id);
    await authorize(caller, 'ActivateWorkItem', { assignee: item.user_key !== '' && item.user_key === caller.userKey });
    if (item.status !== 'Assigned' && item.status !== 'Overdue') {
      throw new WaymarkError('WorkItemNotAssigned', `Work item ${id} is ${item.status}; only an Assigned item can be activated.`);
    }
    const instance = await activeInstance(trx, item.proc_inst_id);
    return workItemEvent(deps, trx, caller, 'ActivateWorkItem', instance, item, { activate: activate === 'true', clientData, userKey: caller.userKey });
  }, { singleWrite: true });
}

export interface CreateWorkItemInput {
  ActivityInstanceID?: unknown;
  WorkToPerform?: unknown;
  UserID?: unknown;
  Length?: unknown;
  Unit?: unknown;
  BusinessTime?: unknown;
  ClientData?: unknown;
}

/** An independent extra task in an active activity instance (EventName CreateWorkItem, no SourceWorkItemID). */
export async function createWorkItem(deps: EngineDeps, caller: Caller, input: CreateWorkItemInput): Promise<EventRow> {
  await authorize(caller, 'CreateWorkItem');
  const activityId = requireId(input.ActivityInstanceID, 'ActivityInstanceID');
  const workToPerform = requireString(input.WorkToPerform, 'WorkToPerform', LIMITS.workToPerform);
  const user = requireUserName(input.UserID, 'UserID');
  const { length, unit } = parseTaskTime(input.Length, input.Unit);
  const businessTime = optionalBoolean(input.BusinessTime, 'BusinessTime', false);
  const clientData = optionalString(input.ClientData, 'ClientData', LIMITS.clientData);
  return deps.store.grouped(async (trx) => {
    const activity = await findActivity(trx, activityId);
    if (!activity) throw new WaymarkError('ActivityInstanceNotFound', `Activity instance ${activityId} does not exist.`);
    if (activity.status !== 'Active') {
      throw new WaymarkError('ActivityNotActive', `Activity instance ${activityId} (${activity.name}) is ${activity.status}; a task can be added only to an active one.`);
    }
    const participant = await registeredUser(trx, user.key, user.name);
    const instance = await activeInstance(trx, activity.proc_inst_id);
    const workItemId = newId(deps.now());
    const params: CreateLinkedParams = { userName: participant, userKey: user.key, workToPerform, length, unit, businessTime, dependent: false, clientData };
    return admitEvent(trx, {
      eventName: 'CreateWorkItem',
      instance,
      caller,
      now: deps.now(),
      activityInstId: activityId,
      workItemId,
      userId: participant,
      params,
      xmlParams: [
        ...workItemXmlParams(instance.proc_inst_id, activityId, false, workItemId),
        ['ExpectedTime', formatExpectedTime(length, unit, businessTime)],
        ['workPerformer', workToPerform],
        ['SourceWorkItemID', ''],
        ['UserID', participant],
        ['waitWorkPerformed', false],
        ['Carbon', false],
      ],
    });
  }, { singleWrite: true });
}

export function parseTaskTime(lengthIn: unknown, unitIn: unknown): { length: number; unit: TimeUnit } {
  const length = parseLength(lengthIn);
  if (length === null) throw new WaymarkError('InvalidRequest', `Length must be a positive whole number written as a string, e.g. "2"; got ${JSON.stringify(lengthIn ?? null)}.`);
  const unit = parseUnit(unitIn);
  if (unit === null) throw new WaymarkError('InvalidUnit', `Unit must be one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR; got ${JSON.stringify(unitIn ?? null)}.`);
  return { length, unit };
}
