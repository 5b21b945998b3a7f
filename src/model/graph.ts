/**
 * Sequence flows and the shape of the graph: every flow joins two nodes of the same scope (the
 * process or one embedded sub-process), every node has no more flows than its rule allows,
 * boundary events sit on activities of their scope, and everything is reachable from the start.
 */
import type { ModdleReference } from 'bpmn-moddle';
import type { BpmnElement } from './bpmnElement.ts';
import { describe, elementTypeName, withArticle } from './bpmnElement.ts';
import type { ElementRule } from './elementRules.ts';
import { attributesIn, checkWaymarkAttributes, WAYMARK_NS } from './extensionAttributes.ts';
import { readCondition } from './flowConditions.ts';
import { invalid } from './invalid.ts';
import type { SequenceFlow } from './ProcessModel.ts';
import { checkUnsupportedFeatures } from './unsupportedFeatures.ts';

/** A node being built: flows are filled in by linkFlows, boundary events by linkBoundaryEvents. */
export interface NodeDraft {
  element: BpmnElement;
  rule: ElementRule;
  id: string;
  /** The embedded sub-process the node sits in; undefined at process level. */
  scope?: string;
  /** The moddle type of its event definition, when it has one. */
  eventDefinition?: string;
  incoming: string[];
  outgoing: string[];
  boundaryEvents: string[];
}

/** A sequence flow element with the scope it was written in. */
export interface FlowElement {
  element: BpmnElement;
  scope?: string;
}

/** Activities a boundary event may be attached to. */
const ACTIVITY_KINDS: ReadonlySet<string> = new Set([
  'userTask', 'manualTask', 'serviceTask', 'sendTask', 'scriptTask', 'callActivity', 'subProcess',
]);

export function readFlows(
  process: BpmnElement,
  flowElements: readonly FlowElement[],
  nodes: ReadonlyMap<string, NodeDraft>,
  references: readonly ModdleReference[],
): SequenceFlow[] {
  return flowElements.map(({ element: el, scope }) => {
    checkWaymarkAttributes(el, attributesIn(el, WAYMARK_NS), [], 'sequenceFlow');
    checkUnsupportedFeatures(el, []);
    const condition = readCondition(el);
    const sourceRef = endpoint(process, el, 'source', nodes, references);
    const targetRef = endpoint(process, el, 'target', nodes, references);
    for (const end of [sourceRef, targetRef]) {
      const nodeScope = nodes.get(end)!.scope;
      if (nodeScope !== scope) {
        throw invalid(
          `Sequence flow ${el.id} joins ${sourceRef} and ${targetRef}, which are not in the same ${scope ? `sub-process ${scope}` : 'process level'}: ` +
            'a sequence flow cannot cross the border of a sub-process.',
        );
      }
    }
    return { id: el.id!, sourceRef, targetRef, ...(condition !== undefined ? { condition } : {}) };
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
        `which is not a flow node Waymark runs in process ${process.id}.`,
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
              'which needs a gateway to split paths: draw a parallel, exclusive or inclusive gateway after it.',
      );
    }
    if (node.incoming.length > rule.maxIncoming) {
      throw invalid(
        `${describe(element)} has an incoming sequence flow (${node.incoming.join(', ')}), but nothing may lead into ${withArticle(typeName)}.`,
      );
    }
    if (rule.needsOutgoing && node.outgoing.length === 0) {
      throw invalid(`${describe(element)} has no outgoing sequence flow: every path must lead on to an end event.`);
    }
  }
}

/** Attaches every boundary event to its activity, which must be an activity of the same scope. */
export function linkBoundaryEvents(nodes: readonly NodeDraft[], byId: ReadonlyMap<string, NodeDraft>): void {
  for (const node of nodes) {
    if (node.rule.kind !== 'boundaryEvent') continue;
    const targetId = node.element.attachedToRef?.id;
    const target = targetId === undefined ? undefined : byId.get(targetId);
    if (!target || target.element !== node.element.attachedToRef || !ACTIVITY_KINDS.has(target.rule.kind)) {
      throw invalid(`${describe(node.element)} is attached to ${targetId ?? 'nothing'}, which is not a task, call activity or sub-process Waymark runs.`);
    }
    if (target.scope !== node.scope) {
      throw invalid(`${describe(node.element)} is attached to ${target.id}, which is in another scope; draw it on the border of ${target.id}.`);
    }
    target.boundaryEvents.push(node.id);
  }
}

/**
 * Rejects the first node (in document order) of the scope that no path from its start event
 * reaches. A path goes along sequence flows and from an activity to its boundary events.
 */
export function checkReachable(nodes: readonly NodeDraft[], byId: ReadonlyMap<string, NodeDraft>, flows: ReadonlyMap<string, SequenceFlow>, startId: string): void {
  const reached = new Set<string>([startId]);
  const queue = [startId];
  while (queue.length) {
    const node = byId.get(queue.shift()!)!;
    const next = [...node.outgoing.map((flowId) => flows.get(flowId)!.targetRef), ...node.boundaryEvents];
    for (const id of next) {
      if (!reached.has(id)) {
        reached.add(id);
        queue.push(id);
      }
    }
  }
  const scope = byId.get(startId)!.scope;
  const unreached = nodes.find((node) => node.scope === scope && !reached.has(node.id));
  if (unreached) {
    throw invalid(`${describe(unreached.element)} cannot be reached from the start event ${startId}: no path of sequence flows leads to it.`);
  }
}

/**
 * Rejects the first node of the scope from which no path leads to an end event of that scope: a
 * token there could never finish (a loop without a way out, a path into a dead end).
 */
export function checkCanEnd(nodes: readonly NodeDraft[], flows: ReadonlyMap<string, SequenceFlow>, scope: string | undefined): void {
  const inScope = nodes.filter((node) => node.scope === scope);
  const ends = inScope.filter((node) => node.rule.kind === 'endEvent');
  if (ends.length === 0) {
    throw invalid(`${scope ? `Sub-process ${scope}` : 'The process'} has no end event: every path must lead on to an end event.`);
  }
  const predecessors = new Map<string, string[]>();
  const addEdge = (from: string, to: string) => predecessors.set(to, [...(predecessors.get(to) ?? []), from]);
  for (const node of inScope) {
    for (const flowId of node.outgoing) addEdge(node.id, flows.get(flowId)!.targetRef);
    for (const boundaryId of node.boundaryEvents) addEdge(node.id, boundaryId);
  }
  const finishing = new Set(ends.map((end) => end.id));
  const queue = [...finishing];
  while (queue.length) {
    for (const from of predecessors.get(queue.shift()!) ?? []) {
      if (!finishing.has(from)) {
        finishing.add(from);
        queue.push(from);
      }
    }
  }
  const stuck = inScope.find((node) => !finishing.has(node.id));
  if (stuck) {
    throw invalid(`${describe(stuck.element)} cannot reach an end event: a token there could never finish; give the path a way out to an end event.`);
  }
}
