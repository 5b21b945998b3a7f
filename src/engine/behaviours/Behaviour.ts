import type { FlowNode } from '../../model/ProcessModel.ts';
import type { ActivityRow } from '../../store/queries/activities.ts';
import type { RunContext } from '../RunContext.ts';

/**
 * What one kind of BPMN element does inside the generic activity lifecycle of executor.ts.
 * Adding an element kind adds one file implementing this and one line in behaviours/index.ts.
 */
export interface Behaviour {
  /** True when entering this node leaves the activity waiting for a person or another system. */
  waits(node: FlowNode): boolean;
  /** Runs when a token enters the node (the activity row exists already). */
  enter(rc: RunContext, node: FlowNode, activity: ActivityRow): Promise<void>;
}
