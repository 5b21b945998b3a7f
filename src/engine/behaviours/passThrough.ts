import type { Behaviour } from './Behaviour.ts';

/** Start events, none end events: nothing to do but pass the token on. */
export const passThrough: Behaviour = {
  waits: () => false,
  enter: async () => {},
};
