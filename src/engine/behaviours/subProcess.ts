import type { Behaviour } from './Behaviour.ts';

/**
 * Embedded sub-process: a token on its start event, in a scope of its own (the activity's id). The
 * executor completes the sub-process once no activity is active in that scope.
 */
export const subProcess: Behaviour = {
  pending: () => false,
  enter: async (_rc, node) => ({ wait: true, openScope: node.startNodeId! }),
};
