/**
 * SuspendProcessInstance / ResumeProcessInstance. A suspended instance applies no event: the ones
 * not yet applied wait `Deferred` (timers that come due meanwhile too) and are `Sent` again on
 * resume. Suspending an instance suspends its running children; resuming resumes its suspended ones.
 */
import { WaymarkError } from '../../domain/errors.ts';
import { deferSentEventsOfInstance, releaseDeferredEventsOfInstance } from '../../store/queries/events.ts';
import { listChildInstances, type InstanceRow } from '../../store/queries/instances.ts';
import { writeInstance } from '../instanceWrites.ts';
import { AuditCategory, audit, type RunContext } from '../RunContext.ts';
import type { EventHandler } from './EventHandler.ts';

export const suspendProcessInstance: EventHandler = {
  eventName: 'SuspendProcessInstance',
  async apply(rc) {
    if (rc.instance.status !== 'Running') {
      throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${rc.instance.proc_inst_id} is ${rc.instance.status}; only a Running instance can be suspended.`);
    }
    await setTreeStatus(rc, rc.instance, 'Running', 'Suspended');
    rc.instance = { ...rc.instance, status: 'Suspended' };
  },
};

export const resumeProcessInstance: EventHandler = {
  eventName: 'ResumeProcessInstance',
  async apply(rc) {
    if (rc.instance.status !== 'Suspended') {
      throw new WaymarkError('ProcessInstanceNotSuspended', `Process instance ${rc.instance.proc_inst_id} is ${rc.instance.status}; only a Suspended instance can be resumed.`);
    }
    await setTreeStatus(rc, rc.instance, 'Suspended', 'Running');
    rc.instance = { ...rc.instance, status: 'Running' };
  },
};

async function setTreeStatus(rc: RunContext, instance: InstanceRow, from: string, to: 'Suspended' | 'Running'): Promise<void> {
  const id = instance.proc_inst_id;
  await writeInstance(rc, id, { status: to, last_modified_by: rc.event.sender, last_modified_date: rc.now });
  if (to === 'Suspended') await deferSentEventsOfInstance(rc.trx, id);
  else await releaseDeferredEventsOfInstance(rc.trx, id);
  const purpose = to === 'Suspended' ? 'Suspend process instance' : 'Resume process instance';
  audit({ ...rc, instance }, AuditCategory.ProcessInstance, id, purpose, `${to} by ${rc.event.sender}.`);
  for (const child of await listChildInstances(rc.trx, id)) {
    if (child.status === from) await setTreeStatus(rc, child, from, to);
  }
}
