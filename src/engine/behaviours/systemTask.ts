import { newId } from '../../domain/ids.ts';
import { insertProcedure } from '../../store/queries/workItems.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { leaveAll, type Behaviour } from './Behaviour.ts';

/**
 * serviceTask, sendTask, scriptTask. With `waymark:wait="true"` an automatic work item waits for
 * CompleteProcedure; otherwise the task passes straight through.
 */
export const systemTask: Behaviour = {
  pending: (node) => node.wait === true,
  async enter(rc, node, activity) {
    if (!node.wait) return leaveAll(node);
    const id = newId(rc.now);
    await insertProcedure(rc.trx, {
      work_item_id: id,
      proc_inst_id: rc.instance.proc_inst_id,
      activity_inst_id: activity.id,
      status: 'Waiting',
      procedure_info: `#${node.kind}:${node.id}`,
      created_date: rc.now,
      completed_date: null,
      due_date: null,
      session: activity.session,
    });
    audit(rc, AuditCategory.AutomaticWorkItem, id, 'Create automatic work item', `${node.name} waits for CompleteProcedure.`);
    return { wait: true };
  },
};
