import { ACTIVE_PROC_INST_STATUSES, type ProcInstStatus } from '../../domain/statuses.ts';
import { WaymarkError } from '../../domain/errors.ts';
import { cancelPendingEventsOfInstance } from '../../store/queries/events.ts';
import { listChildInstances, type InstanceRow } from '../../store/queries/instances.ts';
import { endInstance } from '../executor.ts';
import type { RunContext } from '../RunContext.ts';
import type { EventHandler } from './EventHandler.ts';

/**
 * Cancels the instance, every open human task, every waiting system activity and every child
 * instance (recursively); events of those instances not yet applied become Canceled.
 */
export const cancelProcessInstance: EventHandler = {
  eventName: 'CancelProcessInstance',
  async apply(rc) {
    if (!isActive(rc.instance)) {
      throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${rc.instance.proc_inst_id} is already ${rc.instance.status}.`);
    }
    await cancelTree(rc, rc.instance, `Canceled by ${rc.event.sender}.`);
  },
};

async function cancelTree(rc: RunContext, instance: InstanceRow, why: string): Promise<void> {
  const scoped: RunContext = { ...rc, instance };
  await endInstance(scoped, 'Canceled', why);
  rc.audit = scoped.audit;
  const canceled = await cancelPendingEventsOfInstance(rc.trx, instance.proc_inst_id, rc.event.event_id, rc.now);
  rc.finalized.push(...canceled);
  for (const child of await listChildInstances(rc.trx, instance.proc_inst_id)) {
    if (isActive(child)) await cancelTree(rc, child, `Parent ${instance.proc_inst_id} was canceled.`);
  }
}

function isActive(p: InstanceRow): boolean {
  return ACTIVE_PROC_INST_STATUSES.includes(p.status as ProcInstStatus);
}
