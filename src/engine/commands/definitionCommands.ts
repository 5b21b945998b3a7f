/** Deploying BPMN: CreateProcDef (a new version, Created) and ReleaseProcDef. */
import { WaymarkError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { parseProcessModel } from '../../model/parseProcessModel.ts';
import { insertAudit } from '../../store/queries/audit.ts';
import {
  findDefinition,
  insertDefinition,
  latestVersionOf,
  releaseDefinition,
  type DefinitionSummary,
} from '../../store/queries/definitions.ts';
import { authorize, type Caller } from '../accessPolicy.ts';
import type { EngineDeps } from '../context.ts';
import { AuditCategory } from '../RunContext.ts';
import { requireId } from '../validate.ts';

const MAX_XML = 1024 * 1024;

export async function createProcDef(deps: EngineDeps, caller: Caller, xml: unknown): Promise<DefinitionSummary> {
  await authorize(caller, 'CreateProcDef');
  if (typeof xml !== 'string' || xml.trim() === '') {
    throw new WaymarkError('InvalidRequest', 'Xml is required: the BPMN 2.0 document as a string.');
  }
  if (xml.length > MAX_XML) throw new WaymarkError('ValueTooLong', `Xml is ${xml.length} characters long; at most ${MAX_XML} are allowed.`);
  const model = await parseProcessModel(xml);
  const summary = await deps.store.grouped(async (trx) => {
    const nameKey = model.name.toLowerCase();
    const previous = await latestVersionOf(trx, nameKey);
    const now = deps.now();
    const row = {
      def_id: newId(now),
      base_def_id: previous?.base_def_id ?? newId(now),
      def_name: model.name,
      def_name_key: nameKey,
      version: (previous?.version ?? 0) + 1,
      status: 'Created',
      description: model.description,
      xml,
      created_by: caller.userName,
      created_date: now,
      release_date: null,
    };
    await insertDefinition(trx, row);
    await insertAudit(trx, defAudit(row.def_id, row.def_name, caller, now, 'Create process definition', `Version ${row.version} created.`));
    const { xml: _xml, ...rest } = row;
    return rest;
  });
  deps.models.put(summary.def_id, model);
  return summary;
}

export async function releaseProcDef(deps: EngineDeps, caller: Caller, defIdIn: unknown): Promise<DefinitionSummary> {
  await authorize(caller, 'ReleaseProcDef');
  const defId = requireId(defIdIn, 'DefID');
  return deps.store.grouped(async (trx) => {
    const def = await findDefinition(trx, defId);
    if (!def) throw new WaymarkError('ProcessDefinitionNotFound', `Process definition ${defId} does not exist.`);
    if (def.status === 'Released') {
      const { xml: _xml, ...rest } = def;
      return rest;
    }
    if (def.status !== 'Created') {
      throw new WaymarkError('ProcessDefinitionNotCreated', `Process definition ${defId} is ${def.status}; only a Created version can be released.`);
    }
    const now = deps.now();
    await releaseDefinition(trx, defId, def.def_name_key, now);
    await insertAudit(trx, defAudit(defId, def.def_name, caller, now, 'Release process definition', `Version ${def.version} released.`));
    const { xml: _xml, ...rest } = def;
    return { ...rest, status: 'Released', release_date: now };
  });
}

function defAudit(defId: string, name: string, caller: Caller, now: number, purpose: string, description: string) {
  return {
    category: AuditCategory.ProcessDefinition,
    date_occurred: now,
    description,
    object_id: defId,
    object_info: name,
    performer: caller.userName,
    purpose,
    status: 0,
    event_id: null,
  };
}
