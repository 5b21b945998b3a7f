import { startEventTimer } from '../timerSchedule.ts';
import type { Behaviour } from './Behaviour.ts';

/** Intermediate timer catch event: waits until its timer fires (a FireTimer event). */
export const timerCatchEvent: Behaviour = {
  pending: () => true,
  async enter(rc, node, activity) {
    await startEventTimer(rc, 'intermediate', activity, node);
    return { wait: true };
  },
};
