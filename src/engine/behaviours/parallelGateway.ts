import { leaveAll, type Behaviour } from './Behaviour.ts';

/** Fork: a token on every outgoing flow. Join: waits for a token on every incoming flow. */
export const parallelGateway: Behaviour = {
  rowUnused: true,
  join: 'all',
  pending: () => false,
  enter: async (_rc, node) => leaveAll(node),
};
