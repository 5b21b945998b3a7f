/**
 * Process attributes: GetProcInstAttrs / GetProcInstAttr (the instance's own facts, then its custom
 * attributes), UpdateProcInst (custom attributes of an instance), and the custom-attribute store
 * keyed by CustomID: SetCustomAttrs, GetCustomAttrsbyID, RemoveCustomAttrs. Attributes are process
 * data, not workflow state: writes take effect at once (no event) and are audited (category 5).
 */
import { WaymarkError } from '../../domain/errors.ts';
import { buildNameValueXml } from '../../domain/nameValueXml.ts';
import { insertAudit } from '../../store/queries/audit.ts';
import { listAttributes, removeAttributes, setAttributes } from '../../store/queries/attributes.ts';
import { findInstance, listInstancesByCustomId, type InstanceRow } from '../../store/queries/instances.ts';
import { isParticipant } from '../../store/queries/workItems.ts';
import type { Executor } from '../../store/Store.ts';
import { authorize, type Caller, type OperationName } from '../accessPolicy.ts';
import type { EngineDeps } from '../context.ts';
import { AuditCategory } from '../RunContext.ts';
import { requireId, requireString } from '../validate.ts';
import { parseAttributes } from './instanceCommands.ts';

export interface NameValue {
  Name: string;
  Value: string;
}

/** The instance's own attributes, in this order; they cannot be set with UpdateProcInst. */
function builtIns(p: InstanceRow): NameValue[] {
  return [
    ['DefID', p.def_id],
    ['DefName', p.def_name],
    ['ProcInstName', p.proc_inst_name],
    ['Status', p.status],
    ['SuperProcInstID', p.super_proc_inst_id],
    ['workObjectID', p.work_object_id],
    ['WorkObjectInfo', p.work_object_info],
    ['Initiator', p.initiator],
    ['StartDate', formatIsoDate(p.started_date)],
    ['DueDate', formatIsoDate(p.due_date)],
    ['CompletedDate', formatIsoDate(p.completed_date)],
    ['LastModifiedDate', formatIsoDate(p.last_modified_date)],
    ['SourceProcInstID', ''],
    ['TargetProcInstID', ''],
  ].map(([Name, Value]) => ({ Name, Value }));
}

/** Dates among the attributes: ISO 8601 in UTC, '' when unset. */
function formatIsoDate(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString();
}

const BUILT_IN_NAMES = new Set(
  ['DefID', 'DefName', 'ProcInstName', 'Status', 'SuperProcInstID', 'workObjectID', 'WorkObjectInfo', 'Initiator', 'StartDate', 'DueDate', 'CompletedDate', 'LastModifiedDate', 'SourceProcInstID', 'TargetProcInstID'].map((n) => n.toLowerCase()),
);

export async function getProcInstAttrs(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<NameValue[]> {
  const instance = await readableInstance(deps, caller, idIn, 'GetProcInstAttrs');
  const custom = await listAttributes(deps.store.db, instance.custom_id);
  return [...builtIns(instance), ...custom.map((a) => ({ Name: a.name, Value: a.value }))];
}

/** A built-in attribute by name in any case, else a custom attribute by its exact name. */
export async function getProcInstAttr(deps: EngineDeps, caller: Caller, idIn: unknown, nameIn: unknown): Promise<NameValue> {
  const name = requireString(nameIn, 'attributeName');
  const instance = await readableInstance(deps, caller, idIn, 'GetProcInstAttr');
  const builtIn = builtIns(instance).find((a) => a.Name.toLowerCase() === name.toLowerCase());
  if (builtIn) return builtIn;
  const custom = (await listAttributes(deps.store.db, instance.custom_id)).find((a) => a.name === name);
  if (!custom) throw new WaymarkError('AttributeNotFound', `Process instance ${instance.proc_inst_id} has no attribute named "${name}".`);
  return { Name: custom.name, Value: custom.value };
}

/** Sets custom attributes of an active instance. */
export async function updateProcInst(deps: EngineDeps, caller: Caller, idIn: unknown, attributesIn: unknown): Promise<void> {
  const id = requireId(idIn, 'processInstanceID');
  const attributes = parseAttributes(attributesIn, 'attributes');
  const builtIn = attributes.find((a) => BUILT_IN_NAMES.has(a.name.toLowerCase()));
  if (builtIn) {
    throw new WaymarkError('InvalidRequest', `${builtIn.name} is one of the instance's own attributes, which UpdateProcInst cannot change; choose another name.`);
  }
  await deps.store.grouped(async (trx) => {
    const instance = await findInstance(trx, id);
    if (!instance) throw new WaymarkError('ProcessInstanceNotFound', `Process instance ${id} does not exist.`);
    await authorize(caller, 'UpdateProcInst', { participant: () => isParticipant(trx, id, caller.userKey) });
    if (instance.status === 'Completed' || instance.status === 'Canceled') {
      throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${id} is ${instance.status}; its attributes can no longer change.`);
    }
    await setAttributes(trx, instance.custom_id, attributes);
    await auditAttributes(trx, caller, deps.now(), instance.custom_id, 'Update process instance', `Set ${names(attributes)} of ${id}.`);
  });
}

export async function setCustomAttrs(deps: EngineDeps, caller: Caller, customIdIn: unknown, attributesIn: unknown): Promise<void> {
  const customId = requireString(customIdIn, 'customID');
  const attributes = parseAttributes(attributesIn, 'attributes');
  await deps.store.grouped(async (trx) => {
    await authorizeCustom(trx, caller, 'SetCustomAttrs', customId);
    await setAttributes(trx, customId, attributes);
    await auditAttributes(trx, caller, deps.now(), customId, 'Set custom attributes', `Set ${names(attributes)}.`);
  });
}

/** The XML ArrayOfNameValue of every attribute under `customId` (empty when there is none). */
export async function getCustomAttrsByID(deps: EngineDeps, caller: Caller, customIdIn: unknown): Promise<string> {
  const customId = requireString(customIdIn, 'customID');
  await authorizeCustom(deps.store.db, caller, 'GetCustomAttrsbyID', customId);
  return buildNameValueXml(await listAttributes(deps.store.db, customId));
}

/** `namesArray`: attribute names separated by `;`. Names that do not exist are ignored. */
export async function removeCustomAttrs(deps: EngineDeps, caller: Caller, customIdIn: unknown, namesIn: unknown): Promise<void> {
  const customId = requireString(customIdIn, 'customID');
  const list = requireString(namesIn, 'namesArray', 64 * 1024)
    .split(';')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  await deps.store.grouped(async (trx) => {
    await authorizeCustom(trx, caller, 'RemoveCustomAttrs', customId);
    const removed = await removeAttributes(trx, customId, list);
    await auditAttributes(trx, caller, deps.now(), customId, 'Remove custom attributes', `Removed ${removed} of ${list.join(', ')}.`);
  });
}

async function readableInstance(deps: EngineDeps, caller: Caller, idIn: unknown, op: OperationName): Promise<InstanceRow> {
  const id = requireId(idIn, 'processInstanceID');
  const instance = await findInstance(deps.store.db, id);
  if (!instance) throw new WaymarkError('ProcessInstanceNotFound', `Process instance ${id} does not exist.`);
  await authorize(caller, op, { participant: () => isParticipant(deps.store.db, id, caller.userKey) });
  return instance;
}

/** The right, or taking part in an instance whose attributes are kept under `customId`. */
async function authorizeCustom(db: Executor, caller: Caller, op: OperationName, customId: string): Promise<void> {
  await authorize(caller, op, {
    participant: async () => {
      for (const instance of await listInstancesByCustomId(db, customId)) {
        if (await isParticipant(db, instance.proc_inst_id, caller.userKey)) return true;
      }
      return false;
    },
  });
}

function names(attributes: { name: string }[]): string {
  return attributes.length ? attributes.map((a) => a.name).join(', ') : 'no attribute';
}

function auditAttributes(db: Executor, caller: Caller, now: number, customId: string, purpose: string, description: string): Promise<void> {
  return insertAudit(db, {
    category: AuditCategory.CustomAttributes,
    date_occurred: now,
    description,
    object_id: customId,
    object_info: '',
    performer: caller.userName,
    purpose,
    status: 0,
    event_id: null,
  });
}
