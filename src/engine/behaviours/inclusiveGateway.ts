import { chooseFlows } from '../conditions.ts';
import type { Behaviour } from './Behaviour.ts';

/**
 * Split: a token on every outgoing flow whose condition holds, else on the default flow, else an
 * incident. Join: waits until no other token of its scope can still reach it.
 */
export const inclusiveGateway: Behaviour = {
  rowUnused: true,
  join: 'reachable',
  pending: () => false,
  enter: async (rc, node) => ({ leave: await chooseFlows(rc, node, false) }),
};
