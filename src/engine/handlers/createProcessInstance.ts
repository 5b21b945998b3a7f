import { WaymarkError } from '../../domain/errors.ts';
import { startInstance } from '../executor.ts';
import type { EventHandler } from './EventHandler.ts';

export const createProcessInstance: EventHandler = {
  eventName: 'CreateProcessInstance',
  async apply(rc) {
    if (rc.instance.status !== 'Initiated') {
      throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${rc.instance.proc_inst_id} is ${rc.instance.status}, not Initiated.`);
    }
    await startInstance(rc);
  },
};
