import { startChildInstance } from '../childInstances.ts';
import type { Behaviour } from './Behaviour.ts';

/** Starts a child instance of the released version of calledElement and waits for it to complete. */
export const callActivity: Behaviour = {
  pending: () => true,
  async enter(rc, node, activity) {
    await startChildInstance(rc, node, activity);
    return { wait: true };
  },
};
