/** The read operations of the Workflow area. They write nothing. */
import { WaymarkError } from '../../domain/errors.ts';
import { JsonText } from '../../domain/jsonText.ts';
import { newId } from '../../domain/ids.ts';
import { normalizeStatus } from '../../domain/statuses.ts';
import type { QueryExprInput } from '../../domain/queryExpr.ts';
import { queryExprToWhere } from '../../domain/sqlWhereHelper.ts';
import { PROCEDURE_COLUMNS, queryProcedureRows } from '../../store/queries/queryRecords.ts';
import { catalogueOf } from '../../store/queries/queryWhere.ts';
import { findActivityJsonNow, findActivityWire, listActivitiesOfInstance, listActivitiesOfInstanceJsonNow } from '../../store/queries/activities.ts';
import { findReleasedByName, listDefinitions, listReleasedDefinitions } from '../../store/queries/definitions.ts';
import { findEvent, listEventsOfInstance } from '../../store/queries/events.ts';
import { findInstance, type InstanceRow } from '../../store/queries/instances.ts';
import { findWorkItemJsonNow, findWorkItemWithInstance, listWorkOfUser, listWorkOfUserJsonNow } from '../../store/queries/workItemRecords.ts';
import { findProcedure, isParticipant, isPoolMember } from '../../store/queries/workItems.ts';
import { allowedAtOnce, authorize, holdsRight, type Caller } from '../accessPolicy.ts';
import type { EngineDeps } from '../context.ts';
import {
  toActivityInstance,
  toProcedure,
  toProcessDefinition,
  toProcessInstance,
  toWFEvent,
  toWorkItem,
  type WireRecord,
} from '../records.ts';
import { requireId, requireString, requireUserName } from '../validate.ts';

/** Upper bound of rows one query answers. */
export const MAX_QUERY_ROWS = 10_000;

const WORK_ITEM_STATUSES = ['New', 'Assigned', 'Completed', 'Canceled', 'Reassigned', 'Removed', 'Overdue', 'Carbon'] as const;

export async function getActivityInstsByPIID(deps: EngineDeps, caller: Caller, procInstIdIn: unknown): Promise<WireRecord[]> {
  const id = requireId(procInstIdIn, 'processInstanceID');
  const db = deps.store.db;
  // The list first: activity rows reference their instance, so a non-empty list proves it exists
  // and the existence query runs only for an empty one (one statement per call instead of two).
  // The order of the answers is unchanged: 404 before 403, 403 before any row is shown.
  const activities = await listActivitiesOfInstance(db, id);
  if (activities.length === 0 && !(await findInstance(db, id))) throw instanceNotFound(id);
  await authorize(caller, 'GetActivityInstsByPIID', { participant: () => isParticipant(db, id, caller.userKey) });
  return activities.map(toActivityInstance);
}

export async function getActivityInst(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<WireRecord> {
  const id = requireId(idIn, 'activityInstanceID');
  const activity = await findActivityWire(deps.store.db, id);
  if (!activity) throw new WaymarkError('ActivityInstanceNotFound', `Activity instance ${id} does not exist.`);
  await authorize(caller, 'GetActivityInst', { participant: () => isParticipant(deps.store.db, activity.proc_inst_id, caller.userKey) });
  return toActivityInstance(activity);
}

/*
 * The same three reads answered at once, without a promise, when nothing needs one: the caller
 * holds the operation's right (no participant or pool query decides) and the store reads
 * synchronously (SQLite, outside a transaction). Otherwise they answer undefined and the caller
 * awaits the functions above, which decide in the same order (400, 404, 403). Measured with
 * `npm run bench -- instructions` (docs/performance-log.md, sixteenth round): the promises of one
 * GetActivityInst, each also running AsyncLocalStorage's hook, were an eighth of its request's
 * instructions (228 → 200 thousand; GetWorkItem 290 → 261, GetActivityInstsByPIID 533 → 486).
 * Their records come as JSON text that SQLite wrote (store/wireJson.ts, the seventeenth round).
 */

export function getActivityInstsByPIIDNow(deps: EngineDeps, caller: Caller, procInstIdIn: unknown): JsonText | undefined {
  if (!holdsRight(caller, 'GetActivityInstsByPIID')) return undefined;
  const activities = listActivitiesOfInstanceJsonNow(deps.store.db, requireId(procInstIdIn, 'processInstanceID'));
  // An empty list leaves "no such instance" (404) to the awaited read, which asks.
  return activities !== undefined && activities !== '[]' ? new JsonText(activities) : undefined;
}

export function getActivityInstNow(deps: EngineDeps, caller: Caller, idIn: unknown): JsonText | undefined {
  if (!holdsRight(caller, 'GetActivityInst')) return undefined;
  const id = requireId(idIn, 'activityInstanceID');
  const read = findActivityJsonNow(deps.store.db, id);
  if (!read) return undefined;
  if (read.json === undefined) throw new WaymarkError('ActivityInstanceNotFound', `Activity instance ${id} does not exist.`);
  return new JsonText(read.json);
}

export function getWorkItemNow(deps: EngineDeps, caller: Caller, idIn: unknown): JsonText | undefined {
  if (!holdsRight(caller, 'GetWorkItem')) return undefined;
  const id = requireId(idIn, 'workItemID');
  const read = findWorkItemJsonNow(deps.store.db, id);
  if (!read) return undefined;
  if (read.json === undefined) throw new WaymarkError('WorkItemNotFound', `Work item ${id} does not exist.`);
  return new JsonText(read.json);
}

/**
 * GetWorkListByUserID at once: the caller asks for its own list or holds the right (the awaited
 * read decides in the same order: 400 for the user name, 403, 400 for the statuses), and the
 * list comes as one JSON array SQLite wrote (`[]` is an answer here: an empty list, not a 404).
 */
export function getWorkListByUserIDNow(deps: EngineDeps, caller: Caller, input: WorkListInput): JsonText | undefined {
  const user = workListUser(caller, input);
  if (!allowedAtOnce(caller, 'GetWorkListByUserID', { self: user.key === caller.userKey })) return undefined;
  const list = listWorkOfUserJsonNow(deps.store.db, user.key, parseStatusList(input.Status));
  return list === undefined ? undefined : new JsonText(list);
}

export async function getProcInst(deps: EngineDeps, caller: Caller, procInstIdIn: unknown): Promise<WireRecord> {
  return toProcessInstance(await readableInstance(deps, caller, procInstIdIn, 'GetProcInst'));
}

export async function getEventsByProcInstID(deps: EngineDeps, caller: Caller, procInstIdIn: unknown): Promise<WireRecord[]> {
  const instance = await readableInstance(deps, caller, procInstIdIn, 'GetEventsByProcInstID');
  return (await listEventsOfInstance(deps.store.db, instance.proc_inst_id)).map(toWFEvent);
}

export async function getEvent(deps: EngineDeps, caller: Caller, eventIdIn: unknown): Promise<WireRecord> {
  const id = requireId(eventIdIn, 'eventID');
  const event = await findEvent(deps.store.db, id);
  if (!event) throw new WaymarkError('EventNotFound', `Event ${id} does not exist.`);
  await authorize(caller, 'GetEvent', {
    sender: event.sender.toLowerCase() === caller.userKey,
    participant: () => isParticipant(deps.store.db, event.proc_inst_id, caller.userKey),
  });
  return toWFEvent(event);
}

export async function getWorkItem(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<WireRecord> {
  const id = requireId(idIn, 'workItemID');
  // The item and its instance's fields in one statement (was the item, then the whole instance).
  const found = await findWorkItemWithInstance(deps.store.db, id);
  if (!found) throw new WaymarkError('WorkItemNotFound', `Work item ${id} does not exist.`);
  const { item, instance } = found;
  await authorize(caller, 'GetWorkItem', {
    participant: async () =>
      item.user_key === caller.userKey ||
      (await isPoolMember(deps.store.db, id, caller.userKey)) ||
      (await isParticipant(deps.store.db, item.proc_inst_id, caller.userKey)),
  });
  return toWorkItem(item, instance);
}

export async function getWorkListByUserID(deps: EngineDeps, caller: Caller, input: WorkListInput): Promise<WireRecord[]> {
  const user = workListUser(caller, input);
  await authorize(caller, 'GetWorkListByUserID', { self: user.key === caller.userKey });
  const statuses = parseStatusList(input.Status);
  return (await listWorkOfUser(deps.store.db, user.key, statuses)).map(({ item, instance }) => toWorkItem(item, instance));
}

type WorkListInput = { UserName?: unknown; Status?: unknown };

/** The user whose list is asked for: `UserName`, or the caller when it is absent or null. */
function workListUser(caller: Caller, input: WorkListInput): { key: string } {
  return input.UserName === undefined || input.UserName === null ? { key: caller.userKey } : requireUserName(input.UserName, 'UserName');
}

export async function getProcedure(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<WireRecord> {
  const id = requireId(idIn, 'workItemID');
  await authorize(caller, 'GetProcedure');
  const item = await findProcedure(deps.store.db, id);
  if (!item) throw new WaymarkError('ProcedureNotFound', `Automatic work item ${id} does not exist.`);
  return toProcedure(item);
}

/** Automatic work items matching one WFQueryExprHelper condition, e.g. PROC_INST_ID EQ <id>. */
export async function queryProcedureList(deps: EngineDeps, caller: Caller, input: QueryExprInput): Promise<WireRecord[]> {
  await authorize(caller, 'QueryProcedureList');
  const condition = queryExprToWhere(input, catalogueOf(PROCEDURE_COLUMNS));
  return (await queryProcedureRows(deps.store.db, condition, MAX_QUERY_ROWS)).map(toProcedure);
}

export async function getProcDefs(deps: EngineDeps, caller: Caller): Promise<WireRecord[]> {
  await authorize(caller, 'GetProcDefs');
  return (await listDefinitions(deps.store.db)).map(toProcessDefinition);
}

export async function getReleasedProcDefs(deps: EngineDeps, caller: Caller): Promise<{ Key: string; Value: string }[]> {
  await authorize(caller, 'GetReleasedProcDefs');
  return (await listReleasedDefinitions(deps.store.db)).map((d) => ({ Key: d.def_id, Value: d.def_name }));
}

export async function getReleasedPID(deps: EngineDeps, caller: Caller, nameIn: unknown): Promise<string> {
  await authorize(caller, 'GetReleasedPID');
  const name = requireString(nameIn, 'processDefinitionName');
  const def = await findReleasedByName(deps.store.db, name.toLowerCase());
  if (!def) throw new WaymarkError('ProcessDefinitionNotFound', `No released process definition is named "${name}".`);
  return def.def_id;
}

export async function getUUID(deps: EngineDeps, caller: Caller): Promise<string> {
  await authorize(caller, 'GetUUID');
  return newId(deps.now());
}

async function readableInstance(
  deps: EngineDeps,
  caller: Caller,
  procInstIdIn: unknown,
  op: 'GetProcInst' | 'GetEventsByProcInstID',
): Promise<InstanceRow> {
  const id = requireId(procInstIdIn, 'processInstanceID');
  const instance = await findInstance(deps.store.db, id);
  if (!instance) throw instanceNotFound(id);
  await authorize(caller, op, { participant: () => isParticipant(deps.store.db, id, caller.userKey) });
  return instance;
}

function instanceNotFound(id: string): WaymarkError {
  return new WaymarkError('ProcessInstanceNotFound', `Process instance ${id} does not exist.`);
}

/** `Status`: one status or a `;` list; absent or empty means every status. */
function parseStatusList(input: unknown): string[] {
  if (input === undefined || input === null || input === '') return [...WORK_ITEM_STATUSES];
  if (typeof input !== 'string') throw new WaymarkError('InvalidRequest', 'Status must be a string such as "New;Assigned".');
  return input
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const status = normalizeStatus(s, WORK_ITEM_STATUSES);
      if (!status) throw new WaymarkError('InvalidRequest', `Status "${s}" is not one of ${WORK_ITEM_STATUSES.join(', ')}.`);
      return status;
    });
}
