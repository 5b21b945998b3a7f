import { WaymarkError } from '../../domain/errors.ts';
import { findProcedure, updateProcedure } from '../../store/queries/workItems.ts';
import { completeActivity } from '../executor.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { requireRunning, type EventHandler } from './EventHandler.ts';

/** An external system reports that a waiting service task is done. */
export const completeProcedure: EventHandler = {
  eventName: 'CompleteProcedure',
  async apply(rc) {
    requireRunning(rc);
    const item = await findProcedure(rc.trx, rc.event.work_item_id);
    if (!item) throw new WaymarkError('ProcedureNotFound', `Automatic work item ${rc.event.work_item_id} does not exist.`);
    if (item.status !== 'Waiting' && item.status !== 'Running' && item.status !== 'Overdue') {
      throw new WaymarkError('ProcedureNotWaiting', `Automatic work item ${item.work_item_id} is ${item.status}, not Waiting.`);
    }
    await updateProcedure(rc.trx, item.work_item_id, { status: 'Completed', completed_date: rc.now });
    audit(rc, AuditCategory.AutomaticWorkItem, item.work_item_id, 'Complete procedure', `Completed by ${rc.event.sender}.`);
    await completeActivity(rc, item.activity_inst_id);
  },
};
