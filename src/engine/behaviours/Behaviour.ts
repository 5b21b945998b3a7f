import type { FlowNode } from '../../model/ProcessModel.ts';
import type { ActivityRow } from '../../store/queries/activities.ts';
import type { RunContext } from '../RunContext.ts';

/**
 * What the generic lifecycle (executor.ts) does after an element ran:
 * - wait: the activity stays active until a handler completes it; `openScope` names the start
 *   event of an inner scope (embedded sub-process) that gets a token now;
 * - leave: the token follows these outgoing flows (none at an end event);
 * - terminate: every token of the scope the element is in is canceled.
 */
export type Step = { wait: true; openScope?: string } | { leave: readonly string[] } | { terminate: true };

/**
 * What one kind of BPMN element does inside the generic activity lifecycle of executor.ts.
 * Adding an element kind adds one file implementing this and one line in behaviours/index.ts.
 * A behaviour that cannot go on throws a WaymarkError with an incident code (incidents.ts).
 */
export interface Behaviour {
  /**
   * How tokens arriving over several incoming flows combine. Absent: every token runs the element.
   * `all`: a parallel join, runs once a token came over every incoming flow. `reachable`: an
   * inclusive join, runs once no other token of its scope can still reach it.
   */
  join?: 'all' | 'reachable';
  /** True when the activity waits for a person or another system (WFBaseActivityInstance.Pending). */
  pending(node: FlowNode): boolean;
  /**
   * True when `enter` neither writes nor reads the activity's row and never waits (events and
   * gateways that only choose flows): the executor then writes the row once, in the state the
   * element leaves it in, after `enter` (or before an incident or a wait, should one come).
   */
  rowUnused?: true;
  /** Runs when a token enters the node (the activity row exists already, unless rowUnused). */
  enter(rc: RunContext, node: FlowNode, activity: ActivityRow): Promise<Step>;
}

export const leaveAll = (node: FlowNode): Step => ({ leave: node.outgoing });
