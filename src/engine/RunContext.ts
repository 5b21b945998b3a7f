/**
 * Everything one event application needs, inside its transaction: the instance it works on, the
 * parsed model, the time, who sent it, and what it has written to the audit trail.
 */
import type { Insertable, Transaction } from 'kysely';
import type { ProcessModel } from '../model/ProcessModel.ts';
import type { AuditTrailTable, DB } from '../store/schema.ts';
import type { EventRow } from '../store/queries/events.ts';
import type { InstanceRow } from '../store/queries/instances.ts';
import type { EngineDeps } from './context.ts';
import type { InstanceWrites } from './instanceWrites.ts';

export interface RunContext {
  deps: EngineDeps;
  trx: Transaction<DB>;
  now: number;
  event: EventRow;
  instance: InstanceRow;
  model: ProcessModel;
  /** Events that reached a final status as a side effect (canceled with their instance). */
  finalized: string[];
  audit: Insertable<AuditTrailTable>[];
  /** Changes to instance rows gathered until the event ends (instanceWrites.ts); shared by scoped copies. */
  writes: InstanceWrites;
}

/** Audit trail categories (WFAuditTrailItem.Category). */
export const AuditCategory = {
  ProcessDefinition: 0,
  ProcessInstance: 1,
  ActivityInstance: 2,
  ManualWorkItem: 3,
  AutomaticWorkItem: 4,
  CustomAttributes: 5,
} as const;

/** Adds an audit trail row; `status` 1 marks a failure (an incident). */
export function audit(rc: RunContext, category: number, objectId: string, purpose: string, description: string, status: 0 | 1 = 0): void {
  rc.audit.push({
    category,
    date_occurred: rc.now,
    description,
    object_id: objectId,
    object_info: rc.instance.proc_inst_name,
    performer: rc.event.sender,
    purpose,
    status,
    event_id: rc.event.event_id,
  });
}
