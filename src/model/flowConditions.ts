/**
 * Conditions on sequence flows and default flows of gateways. A condition is FEEL (an optional
 * leading `=` is accepted, as Camunda 8 writes it) and may only sit on a flow that leaves an
 * exclusive or inclusive gateway; the default flow of such a gateway has none.
 */
import type { BpmnElement } from './bpmnElement.ts';
import { elementTypeName } from './bpmnElement.ts';
import { feelSyntaxError } from './feel.ts';
import type { NodeDraft } from './graph.ts';
import { invalid } from './invalid.ts';
import type { SequenceFlow } from './ProcessModel.ts';

const DECIDING_GATEWAYS: ReadonlySet<string> = new Set(['exclusiveGateway', 'inclusiveGateway']);

/** The FEEL text of a flow's conditionExpression, without a leading `=`; undefined when it has none. */
export function readCondition(flow: BpmnElement): string | undefined {
  const expression = flow.conditionExpression;
  if (!expression) return undefined;
  // A tFormalExpression has `language`; a plain expression keeps the attribute in $attrs.
  const language = (expression.language ?? expression.$attrs?.language)?.trim();
  if (language && !/feel/i.test(language)) {
    throw invalid(`Sequence flow ${flow.id} has a condition in the language "${language}": Waymark evaluates FEEL conditions such as amount > 1000.`);
  }
  let text = expression.body?.trim() ?? '';
  if (text.startsWith('${') || text.startsWith('#{')) {
    throw invalid(`Sequence flow ${flow.id} has the condition "${text}": Waymark evaluates FEEL, e.g. amount > 1000.`);
  }
  if (text.startsWith('=')) text = text.slice(1).trim();
  if (text === '') throw invalid(`Sequence flow ${flow.id} has an empty condition.`);
  const error = feelSyntaxError(text);
  if (error) throw invalid(`Sequence flow ${flow.id} has the condition "${text}", but ${error}.`);
  return text;
}

/**
 * Conditions only where a gateway decides; the default flow leaves its own gateway and has no
 * condition. Runs after the flows are linked to their nodes.
 */
export function checkConditions(byId: ReadonlyMap<string, NodeDraft>, flows: ReadonlyMap<string, SequenceFlow>): void {
  for (const flow of flows.values()) {
    if (flow.condition === undefined) continue;
    const source = byId.get(flow.sourceRef)!;
    if (!DECIDING_GATEWAYS.has(source.rule.kind)) {
      throw invalid(
        `Sequence flow ${flow.id} has a condition (${flow.condition}), but it leaves ${source.id} (${elementTypeName(source.element)}): ` +
          'conditions choose between paths only where they leave an exclusive or inclusive gateway.',
      );
    }
  }
  for (const node of byId.values()) {
    const defaultFlow = node.element.default?.id;
    if (!defaultFlow || !DECIDING_GATEWAYS.has(node.rule.kind)) continue;
    const flow = flows.get(defaultFlow);
    if (!flow || flow.sourceRef !== node.id) {
      throw invalid(`Element ${node.id} (${elementTypeName(node.element)}) names ${defaultFlow} as its default flow, but that is not one of its outgoing sequence flows.`);
    }
    if (flow.condition !== undefined) {
      throw invalid(`Sequence flow ${flow.id} is the default flow of ${node.id} and has a condition; the default flow is taken when no condition holds, so it has none.`);
    }
  }
}
