import { WaymarkError } from '../../domain/errors.ts';
import { notifyParent } from '../childInstances.ts';
import { cancelInstanceTree, isActive } from '../instanceEnd.ts';
import type { EventHandler } from './EventHandler.ts';

/**
 * Cancels the instance, every open human task, every waiting system activity and timer, and every
 * child instance (recursively); events of those instances not yet applied become Canceled. A child
 * canceled on its own tells its parent, whose call activity then shows an incident.
 */
export const cancelProcessInstance: EventHandler = {
  eventName: 'CancelProcessInstance',
  async apply(rc) {
    if (!isActive(rc.instance)) {
      throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${rc.instance.proc_inst_id} is already ${rc.instance.status}.`);
    }
    const instance = rc.instance;
    await cancelInstanceTree(rc, instance, `Canceled by ${rc.event.sender}.`);
    rc.instance = { ...instance, status: 'Canceled' };
    await notifyParent(rc, 'ChildProcessCanceled', `Child process ${instance.proc_inst_id} (${instance.proc_inst_name}) was canceled by ${rc.event.sender}.`);
  },
};
