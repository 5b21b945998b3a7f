import type { Behaviour } from './Behaviour.ts';

/** End events: the token ends here; a terminate end event ends every token of its scope. */
export const endEvent: Behaviour = {
  rowUnused: true,
  pending: () => false,
  enter: async (_rc, node) => (node.terminate ? { terminate: true } : { leave: [] }),
};
