import { newId } from '../../domain/ids.ts';
import { addParticipants, addPoolMembers, insertWorkItem } from '../../store/queries/workItems.ts';
import { updateActivity } from '../../store/queries/activities.ts';
import { dueDateOf } from '../dueDates.ts';
import { resolvePerformers } from '../performers.ts';
import { AuditCategory, audit } from '../RunContext.ts';
import { startOverdueTimer } from '../timerSchedule.ts';
import type { Behaviour } from './Behaviour.ts';

/**
 * userTask, manualTask: one work item (WFManualWorkItem), assigned directly (`Assigned`) or
 * offered to a pool (`New`, any pool member may take it).
 */
export const humanTask: Behaviour = {
  pending: () => true,
  async enter(rc, node, activity) {
    const performers = await resolvePerformers(rc, node.id, node.performers ?? emptyPerformers);
    const due = node.expectedTime ? dueDateOf(rc.deps, rc.now, node.expectedTime) : null;
    const id = newId(rc.now);
    const assignee = performers.assignee;
    await insertWorkItem(rc.trx, {
      work_item_id: id,
      proc_inst_id: rc.instance.proc_inst_id,
      activity_inst_id: activity.id,
      name: node.id,
      display_name: node.name,
      status: assignee ? 'Assigned' : 'New',
      user_id: assignee?.name ?? '',
      user_key: assignee?.key ?? '',
      original_user_id: assignee?.name ?? '',
      client_data: null,
      created_date: rc.now,
      assigned_date: assignee ? rc.now : null,
      due_date: due,
      session: activity.session,
      pool_info: assignee ? '' : performers.pool.map((m) => m.name).join(';'),
      last_modified_by: rc.event.sender,
      last_modified_date: rc.now,
    });
    await addPoolMembers(rc.trx, id, performers.pool);
    // The initiator is a participant from the instance's creation on (commands/instanceCommands.ts,
    // childInstances.ts) and participants are never removed: not written again.
    const keys = [...(assignee ? [assignee.key] : []), ...performers.pool.map((m) => m.key)];
    await addParticipants(rc.trx, rc.instance.proc_inst_id, keys.filter((k) => k !== rc.instance.initiator_key));
    if (due !== null) {
      await updateActivity(rc.trx, activity.id, { due_date: due });
      await startOverdueTimer(rc, { work_item_id: id, activity_inst_id: activity.id, due_date: due });
    }
    const to = assignee ? `assigned to ${assignee.name}` : `offered to ${performers.pool.length} pool member(s)`;
    audit(rc, AuditCategory.ManualWorkItem, id, 'Create work item', `${node.name} ${to}.`);
    return { wait: true };
  },
};

const emptyPerformers = { candidateUsers: [], candidateGroups: [], candidateRoles: [] };
