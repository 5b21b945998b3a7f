import type { NodeKind } from '../../model/ProcessModel.ts';
import type { Behaviour } from './Behaviour.ts';
import { callActivity } from './callActivity.ts';
import { endEvent } from './endEvent.ts';
import { exclusiveGateway } from './exclusiveGateway.ts';
import { humanTask } from './humanTask.ts';
import { inclusiveGateway } from './inclusiveGateway.ts';
import { parallelGateway } from './parallelGateway.ts';
import { passThrough } from './passThrough.ts';
import { subProcess } from './subProcess.ts';
import { systemTask } from './systemTask.ts';
import { timerCatchEvent } from './timerCatchEvent.ts';

/** One behaviour per element kind; the executor never switches on kinds itself. */
export const BEHAVIOURS: Record<NodeKind, Behaviour> = {
  startEvent: passThrough,
  endEvent,
  userTask: humanTask,
  manualTask: humanTask,
  serviceTask: systemTask,
  sendTask: systemTask,
  scriptTask: systemTask,
  exclusiveGateway,
  parallelGateway,
  inclusiveGateway,
  callActivity,
  subProcess,
  intermediateCatchEvent: timerCatchEvent,
  boundaryEvent: passThrough,
};
