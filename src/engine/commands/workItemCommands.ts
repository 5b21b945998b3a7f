/**
 * Admission of the task operations: CreateLinkedWorkItem, UndoAssignWorkItem, AssignWorkItem,
 * CompleteWorkItem. Each checks rights and the state it can see now, then writes a Sent event.
 */
import { WaymarkError } from '../../domain/errors.ts';
import { formatExpectedTime, parseLength, parseUnit } from '../../domain/timeUnits.ts';
import { OPEN_WORK_ITEM_STATUSES, type WorkItemStatus } from '../../domain/statuses.ts';
import { findInstance, type InstanceRow } from '../../store/queries/instances.ts';
import { findUser } from '../../store/queries/users.ts';
import { findWorkItem, type WorkItemRow } from '../../store/queries/workItems.ts';
import { findWorkItemWithContext, type WorkItemReadOptions } from '../../store/queries/workItemWithContext.ts';
import type { Executor } from '../../store/Store.ts';
import type { EventRow } from '../../store/queries/events.ts';
import { authorize, type Caller } from '../accessPolicy.ts';
import { admitEvent, workItemXmlParams } from '../admission.ts';
import type { EngineDeps } from '../context.ts';
import type { CreateLinkedParams } from '../handlers/createWorkItem.ts';
import { requireNoOpenDependents } from '../handlers/workItemEvents.ts';
import { LIMITS, optionalBoolean, optionalString, requireId, requireString, requireUserName } from '../validate.ts';
import { newId } from '../../domain/ids.ts';

export interface CreateLinkedWorkItemInput {
  SourceWorkItemID?: unknown;
  WorkToPerform?: unknown;
  UserID?: unknown;
  Length?: unknown;
  Unit?: unknown;
  BusinessTime?: unknown;
  bDependent?: unknown;
  ClientData?: unknown;
}

/**
 * These admissions read (one joined statement, two for CreateLinkedWorkItem) and then write one
 * row, the event (admitEvent): on SQLite they need no savepoint of their own (GroupCommitter).
 * AssignWorkItem went from six statements (savepoint, item, pool, instance, insert, release) to two.
 */
const SINGLE_WRITE = { singleWrite: true } as const;

export async function createLinkedWorkItem(deps: EngineDeps, caller: Caller, input: CreateLinkedWorkItemInput): Promise<EventRow> {
  await authorize(caller, 'CreateLinkedWorkItem');
  const sourceId = requireId(input.SourceWorkItemID, 'SourceWorkItemID');
  const workToPerform = requireString(input.WorkToPerform, 'WorkToPerform', LIMITS.workToPerform);
  const user = requireUserName(input.UserID, 'UserID');
  const length = parseLength(input.Length);
  if (length === null) throw new WaymarkError('InvalidRequest', `Length must be a positive whole number written as a string, e.g. "2"; got ${JSON.stringify(input.Length ?? null)}.`);
  const unit = parseUnit(input.Unit);
  if (unit === null) throw new WaymarkError('InvalidUnit', `Unit must be one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR; got ${JSON.stringify(input.Unit ?? null)}.`);
  const businessTime = optionalBoolean(input.BusinessTime, 'BusinessTime', false);
  const dependent = optionalBoolean(input.bDependent, 'bDependent', false);
  const clientData = optionalString(input.ClientData, 'ClientData', LIMITS.clientData);

  return deps.store.grouped(async (trx) => {
    const { item: source, instance: found } = await existingWorkItemWithInstance(trx, sourceId, FOR_EVENT);
    requireOpen(source);
    const participant = await findUser(trx, user.key);
    if (!participant) throw new WaymarkError('UserNotFound', `User ${user.name} is not registered.`);
    const instance = requireActive(found, source.proc_inst_id);
    const workItemId = newId(deps.now());
    const params: CreateLinkedParams = { userName: participant.user_name, userKey: user.key, workToPerform, length, unit, businessTime, dependent, clientData };
    return admitEvent(trx, {
      eventName: 'CreateWorkItem',
      instance,
      caller,
      now: deps.now(),
      activityInstId: source.activity_inst_id,
      workItemId,
      sourceWorkItemId: source.work_item_id,
      userId: participant.user_name,
      params,
      xmlParams: [
        ...workItemXmlParams(instance.proc_inst_id, source.activity_inst_id, false, workItemId),
        ['ExpectedTime', formatExpectedTime(length, unit, businessTime)],
        ['workPerformer', workToPerform],
        ['SourceWorkItemID', source.work_item_id],
        ['UserID', participant.user_name],
        ['waitWorkPerformed', dependent],
        ['Carbon', false],
      ],
    });
  }, SINGLE_WRITE);
}

export async function undoAssignWorkItem(deps: EngineDeps, caller: Caller, workItemId: unknown, clientDataIn: unknown): Promise<EventRow> {
  const id = requireId(workItemId, 'workItemID');
  const clientData = optionalString(clientDataIn, 'clientData', LIMITS.clientData);
  return deps.store.grouped(async (trx) => {
    // The pool's size too, which only the application uses (as AssignWorkItem's admission does):
    // kept with the item, it spares the application its own count (forty-second round).
    const { item, instance: found } = await existingWorkItemWithInstance(trx, id, POOL_SIZE_FOR_EVENT);
    await authorize(caller, 'UndoAssignWorkItem', { assignee: item.user_key !== '' && item.user_key === caller.userKey });
    if (item.status !== 'Assigned' && item.status !== 'Overdue') {
      throw new WaymarkError('WorkItemNotAssigned', `Work item ${id} is ${item.status}; only an Assigned item can be released to its pool.`);
    }
    const instance = requireActive(found, item.proc_inst_id);
    return workItemEvent(deps, trx, caller, 'UndoAssignWorkItem', instance, item, { clientData });
  }, SINGLE_WRITE);
}

export async function assignWorkItem(deps: EngineDeps, caller: Caller, workItemId: unknown, clientDataIn: unknown): Promise<EventRow> {
  const id = requireId(workItemId, 'workItemID');
  const clientData = optionalString(clientDataIn, 'clientData', LIMITS.clientData);
  return deps.store.grouped(async (trx) => {
    // The pool's size too, which only the application uses: it is then kept with the item for the
    // application in the same group commit (workItemFlags.ts), which runs no statement of its own.
    const { item, instance: found, poolMember: member } = await existingWorkItemWithInstance(trx, id, { poolMemberKey: caller.userKey, poolSize: true, forEvent: true });
    await authorize(caller, 'AssignWorkItem', { poolMember: member });
    if (item.status !== 'New') {
      const holder = item.user_id ? ` by ${item.user_id}` : '';
      throw new WaymarkError('WorkItemNotAvailable', `Work item ${id} is ${item.status}${holder}; only a New item can be taken.`);
    }
    const instance = requireActive(found, item.proc_inst_id);
    const params = { clientData, userName: caller.userName, userKey: caller.userKey, viaRight: !member };
    return workItemEvent(deps, trx, caller, 'AssignWorkItem', instance, item, params);
  }, SINGLE_WRITE);
}

/** Returns null (and sends nothing) when the item is already Completed, as the interface does. */
export async function completeWorkItem(deps: EngineDeps, caller: Caller, workItemId: unknown, clientDataIn: unknown): Promise<EventRow | null> {
  const id = requireId(workItemId, 'workItemID');
  const clientData = optionalString(clientDataIn, 'clientData', LIMITS.clientData);
  return deps.store.grouped(async (trx) => {
    const { item, instance: found, openDependents } = await existingWorkItemWithInstance(trx, id, { openDependents: true, forEvent: true });
    await authorize(caller, 'CompleteWorkItem', { assignee: item.user_key !== '' && item.user_key === caller.userKey });
    if (item.status === 'Completed') return null;
    if (item.status !== 'Assigned' && item.status !== 'Overdue') {
      throw new WaymarkError('WorkItemClosed', `Work item ${id} is ${item.status}; only an Assigned item can be completed.`);
    }
    // The joined read only says whether one exists; this names them in the error.
    if (openDependents) await requireNoOpenDependents({ trx }, id);
    // A Suspended instance takes the event Deferred and applies it when resumed.
    const instance = requireActive(found, item.proc_inst_id);
    if (instance.status === 'Initiated') {
      throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${instance.proc_inst_id} is ${instance.status}, not Running.`);
    }
    return workItemEvent(deps, trx, caller, 'CompleteWorkItem', instance, item, { clientData, userKey: caller.userKey });
  }, SINGLE_WRITE);
}

export function workItemEvent(
  deps: EngineDeps,
  trx: Parameters<typeof admitEvent>[0],
  caller: Caller,
  eventName: string,
  instance: InstanceRow,
  item: WorkItemRow,
  params: object,
): Promise<EventRow> {
  return admitEvent(trx, {
    eventName,
    instance,
    caller,
    now: deps.now(),
    activityInstId: item.activity_inst_id,
    workItemId: item.work_item_id,
    sourceWorkItemId: item.source_work_item_id,
    userId: item.user_id,
    params,
    xmlParams: workItemXmlParams(instance.proc_inst_id, item.activity_inst_id, false, item.work_item_id),
  });
}

export async function existingWorkItem(db: Executor, id: string): Promise<WorkItemRow> {
  const item = await findWorkItem(db, id);
  if (!item) throw new WaymarkError('WorkItemNotFound', `Work item ${id} does not exist.`);
  return item;
}

/** For an admission: where row locks exist, the read locks the instance and draws the event's seq (workItemWithContext.ts). */
const FOR_EVENT: WorkItemReadOptions = { forEvent: true };
const POOL_SIZE_FOR_EVENT: WorkItemReadOptions = { poolSize: true, forEvent: true };

/** The item and its instance in one statement (workItemWithContext.ts); WorkItemNotFound when there is no item. */
async function existingWorkItemWithInstance(db: Executor, id: string, opts?: WorkItemReadOptions) {
  const found = await findWorkItemWithContext(db, id, opts);
  if (!found) throw new WaymarkError('WorkItemNotFound', `Work item ${id} does not exist.`);
  return found;
}

function requireOpen(item: WorkItemRow): void {
  if (!OPEN_WORK_ITEM_STATUSES.includes(item.status as WorkItemStatus)) {
    throw new WaymarkError('WorkItemClosed', `Work item ${item.work_item_id} is ${item.status}; a task can be linked only to an open one.`);
  }
}

/** The instance of an item, which must not be finished. */
export async function activeInstance(db: Executor, procInstId: string): Promise<InstanceRow> {
  return requireActive(await findInstance(db, procInstId), procInstId);
}

/** `instance` (read as `procInstId`) must exist and must not be finished. */
export function requireActive(instance: InstanceRow | undefined, procInstId: string): InstanceRow {
  if (!instance) throw new WaymarkError('ProcessInstanceNotFound', `Process instance ${procInstId} does not exist.`);
  if (instance.status === 'Completed' || instance.status === 'Canceled') {
    throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${procInstId} is ${instance.status}.`);
  }
  return instance;
}
