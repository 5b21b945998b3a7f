import type { NodeKind } from '../../model/ProcessModel.ts';
import type { Behaviour } from './Behaviour.ts';
import { humanTask } from './humanTask.ts';
import { passThrough } from './passThrough.ts';
import { systemTask } from './systemTask.ts';

/** One behaviour per element kind; the executor never switches on kinds itself. */
export const BEHAVIOURS: Record<NodeKind, Behaviour> = {
  startEvent: passThrough,
  endEvent: passThrough,
  userTask: humanTask,
  manualTask: humanTask,
  serviceTask: systemTask,
  sendTask: systemTask,
  scriptTask: systemTask,
};
