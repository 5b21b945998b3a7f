/** Which outgoing flows of an exclusive or inclusive gateway a token may take: FEEL over the process attributes. */
import { WaymarkError } from '../domain/errors.ts';
import type { FlowNode } from '../model/ProcessModel.ts';
import { evaluateFeel } from './feel.ts';
import { attributeContext } from './performers.ts';
import type { RunContext } from './RunContext.ts';

/**
 * The outgoing flows (other than the default flow) whose condition holds, in document order. A
 * flow without a condition always holds. A condition that is not `true` (false, null because an
 * attribute is missing, a non-boolean) does not hold.
 */
async function flowsThatHold(rc: RunContext, node: FlowNode, firstOnly: boolean): Promise<string[]> {
  let context: Record<string, unknown> | undefined;
  const taken: string[] = [];
  for (const flowId of node.outgoing) {
    if (flowId === node.defaultFlow) continue;
    const flow = rc.model.flows.get(flowId)!;
    if (flow.condition !== undefined) {
      context ??= await attributeContext(rc);
      if (!holds(flow.id, flow.condition, context)) continue;
    }
    taken.push(flowId);
    if (firstOnly) break;
  }
  return taken;
}

/** The flows a deciding gateway sends the token along: those that hold, else its default flow; none is an incident. */
export async function chooseFlows(rc: RunContext, node: FlowNode, firstOnly: boolean): Promise<string[]> {
  const taken = await flowsThatHold(rc, node, firstOnly);
  if (taken.length > 0) return taken;
  if (node.defaultFlow) return [node.defaultFlow];
  const conditions = node.outgoing.map((id) => rc.model.flows.get(id)?.condition).filter((c) => c !== undefined);
  throw new WaymarkError(
    'NoMatchingFlow',
    `Gateway ${node.id} has no outgoing flow to take: none of its conditions (${conditions.join('; ')}) is true and it has no default flow.`,
  );
}

function holds(flowId: string, condition: string, context: Record<string, unknown>): boolean {
  try {
    return evaluateFeel(condition, context) === true;
  } catch (e) {
    throw new WaymarkError('NoMatchingFlow', `The condition ${condition} of sequence flow ${flowId} cannot be evaluated: ${(e as Error).message}.`);
  }
}
