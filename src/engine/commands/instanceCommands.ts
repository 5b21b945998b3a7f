/** Admission of CreateProcInst, CancelProcInst and CompleteProcedure. */
import { WaymarkError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { setAttributes } from '../../store/queries/attributes.ts';
import { findDefinitionSummary } from '../../store/queries/definitions.ts';
import type { EventRow } from '../../store/queries/events.ts';
import { findInstanceClash, insertInstanceUnlessTaken } from '../../store/queries/instances.ts';
import { addParticipants, findProcedure } from '../../store/queries/workItems.ts';
import { authorize, type Caller } from '../accessPolicy.ts';
import { admitEvent, workItemXmlParams } from '../admission.ts';
import type { EngineDeps } from '../context.ts';
import { LIMITS, optionalString, requireId, requireUserName } from '../validate.ts';
import { activeInstance } from './workItemCommands.ts';

export interface CreateProcInstInput {
  ProcessID?: unknown;
  ProcessInstID?: unknown;
  ProcInstName?: unknown;
  WorkObjID?: unknown;
  WorkObjInfo?: unknown;
  SuperProcInstID?: unknown;
  Initiator?: unknown;
  CustomID?: unknown;
  Attributes?: unknown;
}

export async function createProcInst(deps: EngineDeps, caller: Caller, input: CreateProcInstInput): Promise<EventRow> {
  await authorize(caller, 'CreateProcInst');
  const defId = requireId(input.ProcessID, 'ProcessID');
  const procInstId = input.ProcessInstID === undefined || input.ProcessInstID === null || input.ProcessInstID === ''
    ? newId(deps.now())
    : requireId(input.ProcessInstID, 'ProcessInstID');
  const name = optionalString(input.ProcInstName, 'ProcInstName', 1024);
  const initiator = input.Initiator === undefined || input.Initiator === null || input.Initiator === ''
    ? { name: caller.userName, key: caller.userKey }
    : requireUserName(input.Initiator, 'Initiator');
  const superId = input.SuperProcInstID ? requireId(input.SuperProcInstID, 'SuperProcInstID') : '';
  const workObjectId = optionalString(input.WorkObjID, 'WorkObjID') ?? '';
  const workObjectInfo = optionalString(input.WorkObjInfo, 'WorkObjInfo', LIMITS.workToPerform) ?? '';
  const customId = optionalString(input.CustomID, 'CustomID') || procInstId;
  const attributes = parseAttributes(input.Attributes);

  return deps.store.grouped(async (trx) => {
    const def = await findDefinitionSummary(trx, defId);
    if (!def) throw new WaymarkError('ProcessDefinitionNotFound', `Process definition ${defId} does not exist.`);
    if (def.status !== 'Released') {
      throw new WaymarkError('ProcessDefinitionNotReleased', `Process definition ${defId} (${def.def_name} version ${def.version}) is ${def.status}; only a released version can be started.`);
    }
    if (superId) await activeInstance(trx, superId);
    const procInstName = name ?? `${def.def_name}-${procInstId}`;
    const now = deps.now();
    const instance = {
      proc_inst_id: procInstId,
      proc_inst_name: procInstName,
      proc_inst_name_key: procInstName.toLowerCase(),
      def_id: def.def_id,
      def_name: def.def_name,
      version: def.version,
      status: 'Initiated',
      initiator: initiator.name,
      initiator_key: initiator.key,
      work_object_id: workObjectId,
      work_object_info: workObjectInfo,
      super_proc_inst_id: superId,
      custom_id: customId,
      started_date: now,
      completed_date: null,
      due_date: null,
      last_modified_by: caller.userName,
      last_modified_date: now,
      incident: null,
      next_activity_ord: 1,
      super_activity_inst_id: '',
      incident_activity_id: '',
    };
    // Both uniqueness checks in the insert: nothing is written when the id or the name is taken,
    // and only then is it asked which (the id is reported first, as before).
    if (!(await insertInstanceUnlessTaken(trx, instance))) {
      if ((await findInstanceClash(trx, procInstId, instance.proc_inst_name_key)) === 'name') {
        throw new WaymarkError('DuplicateProcessInstance', `A process instance named "${procInstName}" already exists; ProcInstName must be unique.`);
      }
      throw new WaymarkError('DuplicateProcessInstance', `Process instance ${procInstId} already exists.`);
    }
    await setAttributes(trx, customId, attributes);
    await addParticipants(trx, procInstId, [initiator.key]);
    return admitEvent(trx, {
      eventName: 'CreateProcessInstance',
      instance,
      caller,
      now,
      autoStart: true,
      userId: initiator.name,
      xmlParams: [
        ['ProcInstID', procInstId],
        ['ProcDefID', def.def_id],
        ['ProcInstName', procInstName],
        ['HighPriority', false],
        ['Initiator', initiator.name],
        ['SuperProcInstID', superId],
      ],
    });
    // Every check comes before the first write (the instance's insert writes nothing when it
    // fails one): on SQLite no savepoint, and should a write fail after another held, the batch
    // runs again with this job in one (JobOptions.optimistic).
  }, { optimistic: true });
}

export async function completeProcedure(deps: EngineDeps, caller: Caller, workItemIdIn: unknown): Promise<EventRow> {
  await authorize(caller, 'CompleteProcedure');
  const id = requireId(workItemIdIn, 'workItemID');
  return deps.store.grouped(async (trx) => {
    const item = await findProcedure(trx, id);
    if (!item) throw new WaymarkError('ProcedureNotFound', `Automatic work item ${id} does not exist.`);
    if (item.status !== 'Waiting' && item.status !== 'Running' && item.status !== 'Overdue') {
      throw new WaymarkError('ProcedureNotWaiting', `Automatic work item ${id} is ${item.status}, not Waiting.`);
    }
    const instance = await activeInstance(trx, item.proc_inst_id);
    return admitEvent(trx, {
      eventName: 'CompleteProcedure',
      instance,
      caller,
      now: deps.now(),
      activityInstId: item.activity_inst_id,
      workItemId: id,
      xmlParams: workItemXmlParams(instance.proc_inst_id, item.activity_inst_id, false, id),
    });
  }, { singleWrite: true }); // reads, then writes one row (the event): no savepoint on SQLite
}

/** `Attributes`: an array of {Name, Value}; values are stored as strings. */
export function parseAttributes(input: unknown, field = 'Attributes'): { name: string; value: string }[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw new WaymarkError('InvalidRequest', `${field} must be an array of {"Name": ..., "Value": ...}.`);
  if (input.length > 1000) throw new WaymarkError('InvalidRequest', `${field} has ${input.length} entries; at most 1000 are allowed.`);
  return input.map((a, i) => {
    const entry = (a ?? {}) as Record<string, unknown>;
    const name = entry.Name ?? entry.name;
    const value = entry.Value ?? entry.value;
    if (typeof name !== 'string' || name === '' || name.length > LIMITS.name) {
      throw new WaymarkError('InvalidRequest', `${field}[${i}].Name must be a non-empty string of at most ${LIMITS.name} characters.`);
    }
    if (value !== null && value !== undefined && typeof value === 'object') {
      throw new WaymarkError('InvalidRequest', `${field}[${i}].Value must be a string, number or boolean.`);
    }
    const text = value === null || value === undefined ? '' : String(value);
    if (text.length > LIMITS.clientData) throw new WaymarkError('ValueTooLong', `${field}[${i}].Value is longer than ${LIMITS.clientData} characters.`);
    return { name, value: text };
  });
}

