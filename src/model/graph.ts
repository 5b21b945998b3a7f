/**
 * Sequence flows and the shape of the graph: every flow joins two nodes of the process,
 * every node has no more flows than its rule allows, and everything is reachable from the start.
 */
import type { ModdleReference } from 'bpmn-moddle';
import type { BpmnElement } from './bpmnElement.ts';
import { describe, elementTypeName, withArticle } from './bpmnElement.ts';
import type { ElementRule } from './elementRules.ts';
import { attributesIn, checkWaymarkAttributes, WAYMARK_NS } from './extensionAttributes.ts';
import { invalid } from './invalid.ts';
import type { SequenceFlow } from './ProcessModel.ts';

/** A node being built: flows are filled in by linkFlows. */
export interface NodeDraft {
  element: BpmnElement;
  rule: ElementRule;
  id: string;
  /** The moddle type of its event definition, when it has one. */
  eventDefinition?: string;
  incoming: string[];
  outgoing: string[];
}

export function readFlows(
  process: BpmnElement,
  flowElements: readonly BpmnElement[],
  nodes: ReadonlyMap<string, NodeDraft>,
  references: readonly ModdleReference[],
): SequenceFlow[] {
  return flowElements.map((el) => {
    checkWaymarkAttributes(el, attributesIn(el, WAYMARK_NS), [], 'sequenceFlow');
    if (el.conditionExpression) {
      const text = el.conditionExpression.body?.trim();
      throw invalid(
        `Sequence flow ${el.id} has a condition${text ? ` (${text})` : ''}: conditions choose between paths at a gateway, which this release does not run.`,
      );
    }
    const sourceRef = endpoint(process, el, 'source', nodes, references);
    const targetRef = endpoint(process, el, 'target', nodes, references);
    return { id: el.id!, sourceRef, targetRef };
  });
}

function endpoint(
  process: BpmnElement,
  flow: BpmnElement,
  end: 'source' | 'target',
  nodes: ReadonlyMap<string, NodeDraft>,
  references: readonly ModdleReference[],
): string {
  const property = end === 'source' ? 'sourceRef' : 'targetRef';
  const ref = flow[property];
  if (!ref) {
    const unresolved = references.find(
      (r) => (r.element === flow || r.element.id === flow.id) && r.property === `bpmn:${property}`,
    );
    throw invalid(
      unresolved
        ? `Sequence flow ${flow.id} has ${property}="${unresolved.id}", but no element has the id ${unresolved.id}.`
        : `Sequence flow ${flow.id} has no ${property}: a sequence flow must join two elements.`,
    );
  }
  const node = ref.id === undefined ? undefined : nodes.get(ref.id);
  if (!node || node.element !== ref) {
    throw invalid(
      `Sequence flow ${flow.id} ${end === 'source' ? 'starts at' : 'leads to'} ${ref.id} (${elementTypeName(ref)}), ` +
        `which is not a start event, end event or task of process ${process.id}.`,
    );
  }
  return node.id;
}

/** Fills in incoming / outgoing (in document order of the flows) and checks each node against its rule. */
export function linkFlows(nodes: readonly NodeDraft[], byId: ReadonlyMap<string, NodeDraft>, flows: readonly SequenceFlow[]): void {
  for (const flow of flows) {
    byId.get(flow.sourceRef)!.outgoing.push(flow.id);
    byId.get(flow.targetRef)!.incoming.push(flow.id);
  }
  for (const node of nodes) {
    const { rule, element } = node;
    const typeName = elementTypeName(element);
    if (node.outgoing.length > rule.maxOutgoing) {
      throw invalid(
        rule.maxOutgoing === 0
          ? `${describe(element)} has an outgoing sequence flow (${node.outgoing.join(', ')}), but nothing may follow ${withArticle(typeName)}.`
          : `${describe(element)} has ${node.outgoing.length} outgoing sequence flows (${node.outgoing.join(', ')}), ` +
              'which needs a gateway to split paths; this release does not run gateways.',
      );
    }
    if (node.incoming.length > rule.maxIncoming) {
      throw invalid(
        rule.maxIncoming === 0
          ? `${describe(element)} has an incoming sequence flow (${node.incoming.join(', ')}), but nothing may lead into ${withArticle(typeName)}.`
          : `${describe(element)} has ${node.incoming.length} incoming sequence flows (${node.incoming.join(', ')}), ` +
              'which needs a gateway to join paths; this release does not run gateways.',
      );
    }
    if (rule.needsOutgoing && node.outgoing.length === 0) {
      throw invalid(`${describe(element)} has no outgoing sequence flow: every path must lead on to an end event.`);
    }
  }
}

/** Rejects the first node (in document order) that no path from the start event reaches. */
export function checkReachable(nodes: readonly NodeDraft[], byId: ReadonlyMap<string, NodeDraft>, flows: ReadonlyMap<string, SequenceFlow>, startId: string): void {
  const reached = new Set<string>([startId]);
  const queue = [startId];
  while (queue.length) {
    for (const flowId of byId.get(queue.shift()!)!.outgoing) {
      const next = flows.get(flowId)!.targetRef;
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  const unreached = nodes.find((node) => !reached.has(node.id));
  if (unreached) {
    throw invalid(`${describe(unreached.element)} cannot be reached from the start event ${startId}: no path of sequence flows leads to it.`);
  }
}
