import { leaveAll, type Behaviour } from './Behaviour.ts';

/** Start events and boundary events (entered when their timer fires): pass the token on. */
export const passThrough: Behaviour = {
  rowUnused: true,
  pending: () => false,
  enter: async (_rc, node) => leaveAll(node),
};
