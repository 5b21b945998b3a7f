import { chooseFlows } from '../conditions.ts';
import type { Behaviour } from './Behaviour.ts';

/** The first outgoing flow whose condition holds, else the default flow, else an incident. Tokens merge without waiting. */
export const exclusiveGateway: Behaviour = {
  rowUnused: true,
  pending: () => false,
  enter: async (rc, node) => ({ leave: await chooseFlows(rc, node, true) }),
};
