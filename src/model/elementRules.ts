/**
 * The BPMN elements Waymark runs, one table entry each. Supporting a new element type means
 * adding an entry here (and a NodeKind plus an engine behaviour), not changing the parser.
 */
import type { BpmnElement } from './bpmnElement.ts';
import { booleanAttribute, type AttributesOf } from './extensionAttributes.ts';
import { parseExpectedTime } from './expectedTime.ts';
import { parsePerformers } from './performers.ts';
import type { FlowNode, NodeKind } from './ProcessModel.ts';

/** What one element's own attributes give the node (everything except id, name, kind, flows). */
export type NodeDetails = Partial<Pick<FlowNode, 'performers' | 'expectedTime' | 'wait' | 'terminate'>>;

export interface ExtensionAttributesOf {
  camunda: AttributesOf;
  waymark: AttributesOf;
}

export interface ElementRule {
  kind: NodeKind;
  /** Most sequence flows that may come in / go out; 0 means none may. A gateway would allow any number. */
  maxIncoming: number;
  maxOutgoing: number;
  /** False only where a path may end (end events). */
  needsOutgoing: boolean;
  /**
   * Event definitions the element may carry, by moddle type, with what each sets on the node.
   * An element with no definition is the "none" variant; a definition not listed is rejected.
   */
  eventDefinitions: Readonly<Record<string, NodeDetails>>;
  /** Local names of the waymark: attributes it accepts; any other is rejected. */
  waymarkAttributes: readonly string[];
  /** Reads the element's own settings. Throws InvalidProcessDefinition naming the element. */
  details(el: BpmnElement, attributes: ExtensionAttributesOf): NodeDetails;
}

/** Said in the message for every element type the table does not list. Keep in step with the table. */
export const SUPPORTED_SUMMARY =
  'Waymark runs start and end events, user, manual, service, send and script tasks joined by sequence flows';

/** Flow elements a modeler may add that do not take part in running the process. */
export const IGNORED_FLOW_ELEMENTS: ReadonlySet<string> = new Set([
  'bpmn:DataObject',
  'bpmn:DataObjectReference',
  'bpmn:DataStoreReference',
]);

/** userTask, manualTask: a work item for people. */
function humanTask(kind: NodeKind): ElementRule {
  return {
    kind,
    maxIncoming: 1,
    maxOutgoing: 1,
    needsOutgoing: true,
    eventDefinitions: {},
    waymarkAttributes: ['expectedTime', 'businessTime'],
    details: (el, { camunda, waymark }) => {
      const expectedTime = parseExpectedTime(el, waymark);
      return { performers: parsePerformers(el, camunda), ...(expectedTime ? { expectedTime } : {}) };
    },
  };
}

/**
 * serviceTask, sendTask, scriptTask: a system activity that passes straight through, or waits
 * for CompleteProcedure with waymark:wait="true". Waymark never runs a script body or calls a service itself.
 */
function systemTask(kind: NodeKind): ElementRule {
  return {
    kind,
    maxIncoming: 1,
    maxOutgoing: 1,
    needsOutgoing: true,
    eventDefinitions: {},
    waymarkAttributes: ['wait'],
    details: (el, { waymark }) => ({ wait: booleanAttribute(el, waymark.get('wait')) ?? false }),
  };
}

export const ELEMENT_RULES: Readonly<Record<string, ElementRule>> = {
  'bpmn:StartEvent': {
    kind: 'startEvent',
    maxIncoming: 0,
    maxOutgoing: 1,
    needsOutgoing: true,
    eventDefinitions: {},
    waymarkAttributes: [],
    details: () => ({}),
  },
  'bpmn:EndEvent': {
    kind: 'endEvent',
    maxIncoming: 1,
    maxOutgoing: 0,
    needsOutgoing: false,
    eventDefinitions: { 'bpmn:TerminateEventDefinition': { terminate: true } },
    waymarkAttributes: [],
    details: () => ({ terminate: false }),
  },
  'bpmn:UserTask': humanTask('userTask'),
  'bpmn:ManualTask': humanTask('manualTask'),
  'bpmn:ServiceTask': systemTask('serviceTask'),
  'bpmn:SendTask': systemTask('sendTask'),
  'bpmn:ScriptTask': systemTask('scriptTask'),
};
