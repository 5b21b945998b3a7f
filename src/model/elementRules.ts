/**
 * The BPMN elements Waymark runs, one table entry each. Supporting a new element type means
 * adding an entry here (and a NodeKind plus an engine behaviour), not changing the parser.
 */
import type { BpmnElement } from './bpmnElement.ts';
import { describe } from './bpmnElement.ts';
import { booleanAttribute, type AttributesOf } from './extensionAttributes.ts';
import { parseExpectedTime } from './expectedTime.ts';
import { invalid } from './invalid.ts';
import { parsePerformers } from './performers.ts';
import type { FlowNode, NodeKind } from './ProcessModel.ts';
import { parseTimerDefinition } from './timerDefinition.ts';

/** What one element's own attributes give the node (everything except id, name, kind, flows). */
export type NodeDetails = Partial<
  Pick<FlowNode, 'performers' | 'expectedTime' | 'wait' | 'terminate' | 'defaultFlow' | 'calledElement' | 'timer' | 'attachedTo' | 'cancelActivity'>
>;

export interface ExtensionAttributesOf {
  camunda: AttributesOf;
  waymark: AttributesOf;
}

/** Reads one kind of event definition of an element. */
export type EventDefinitionReader = (el: BpmnElement, definition: BpmnElement) => NodeDetails;

export interface ElementRule {
  kind: NodeKind;
  /** Most sequence flows that may come in / go out; 0 means none may. */
  maxIncoming: number;
  maxOutgoing: number;
  /** False only where a path may end (end events). */
  needsOutgoing: boolean;
  /**
   * Event definitions the element may carry, by moddle type, with what each sets on the node.
   * An element with no definition is the "none" variant (unless one is required); a definition
   * not listed is rejected.
   */
  eventDefinitions: Readonly<Record<string, EventDefinitionReader>>;
  /** True when the element has no "none" variant (timer catch and boundary events). */
  eventDefinitionRequired?: boolean;
  /** Local names of the waymark: attributes it accepts; any other is rejected. */
  waymarkAttributes: readonly string[];
  /** Local names of the camunda: attributes it reads; others are rejected unless only tools read them. */
  camundaAttributes: readonly string[];
  /** Reads the element's own settings. Throws InvalidProcessDefinition naming the element. */
  details(el: BpmnElement, attributes: ExtensionAttributesOf): NodeDetails;
}

/** Said in the message for every element type the table does not list. Keep in step with the table. */
export const SUPPORTED_SUMMARY =
  'Waymark runs start and end events, user, manual, service, send and script tasks, exclusive, parallel and inclusive ' +
  'gateways, call activities, embedded sub-processes, and timer catch and boundary events, joined by sequence flows';

/** Flow elements a modeler may add that do not take part in running the process. */
export const IGNORED_FLOW_ELEMENTS: ReadonlySet<string> = new Set([
  'bpmn:DataObject',
  'bpmn:DataObjectReference',
  'bpmn:DataStoreReference',
]);

const MANY = Number.POSITIVE_INFINITY;
const timer: EventDefinitionReader = (el, definition) => ({ timer: parseTimerDefinition(el, definition) });

/** Defaults of a rule: any number of flows in, one out, nothing special. */
function rule(kind: NodeKind, overrides: Partial<ElementRule> = {}): ElementRule {
  return {
    kind,
    maxIncoming: MANY,
    maxOutgoing: 1,
    needsOutgoing: true,
    eventDefinitions: {},
    waymarkAttributes: [],
    camundaAttributes: [],
    details: () => ({}),
    ...overrides,
  };
}

/** userTask, manualTask: a work item for people. */
function humanTask(kind: NodeKind): ElementRule {
  return rule(kind, {
    waymarkAttributes: ['expectedTime', 'businessTime'],
    camundaAttributes: ['assignee', 'candidateUsers', 'candidateGroups'],
    details: (el, { camunda, waymark }) => {
      const expectedTime = parseExpectedTime(el, waymark);
      return { performers: parsePerformers(el, camunda), ...(expectedTime ? { expectedTime } : {}) };
    },
  });
}

/**
 * serviceTask, sendTask, scriptTask: a system activity that passes straight through, or waits
 * for CompleteProcedure with waymark:wait="true". Waymark never runs a script body or calls a service itself.
 */
function systemTask(kind: NodeKind): ElementRule {
  return rule(kind, {
    waymarkAttributes: ['wait'],
    details: (el, { waymark }) => ({ wait: booleanAttribute(el, waymark.get('wait')) ?? false }),
  });
}

/** exclusiveGateway, inclusiveGateway: any flows in and out, optionally a default flow. */
function decidingGateway(kind: NodeKind): ElementRule {
  return rule(kind, {
    maxOutgoing: MANY,
    details: (el) => (el.default?.id ? { defaultFlow: el.default.id } : {}),
  });
}

export const ELEMENT_RULES: Readonly<Record<string, ElementRule>> = {
  'bpmn:StartEvent': rule('startEvent', { maxIncoming: 0 }),
  'bpmn:EndEvent': rule('endEvent', {
    maxOutgoing: 0,
    needsOutgoing: false,
    eventDefinitions: { 'bpmn:TerminateEventDefinition': () => ({ terminate: true }) },
    details: () => ({ terminate: false }),
  }),
  'bpmn:UserTask': humanTask('userTask'),
  'bpmn:ManualTask': humanTask('manualTask'),
  'bpmn:ServiceTask': systemTask('serviceTask'),
  'bpmn:SendTask': systemTask('sendTask'),
  'bpmn:ScriptTask': systemTask('scriptTask'),
  'bpmn:ExclusiveGateway': decidingGateway('exclusiveGateway'),
  'bpmn:InclusiveGateway': decidingGateway('inclusiveGateway'),
  'bpmn:ParallelGateway': rule('parallelGateway', { maxOutgoing: MANY }),
  'bpmn:CallActivity': rule('callActivity', {
    details: (el) => {
      const called = el.calledElement?.trim();
      if (!called) throw invalid(`${describe(el)} has no calledElement: name the process (its DefName) the call activity starts.`);
      return { calledElement: called };
    },
  }),
  'bpmn:SubProcess': rule('subProcess'),
  'bpmn:IntermediateCatchEvent': rule('intermediateCatchEvent', {
    eventDefinitions: { 'bpmn:TimerEventDefinition': timer },
    eventDefinitionRequired: true,
  }),
  'bpmn:BoundaryEvent': rule('boundaryEvent', {
    maxIncoming: 0,
    eventDefinitions: { 'bpmn:TimerEventDefinition': timer },
    eventDefinitionRequired: true,
    details: (el) => {
      if (!el.attachedToRef?.id) throw invalid(`${describe(el)} is not attached to an activity (attachedToRef).`);
      return { attachedTo: el.attachedToRef.id, cancelActivity: el.cancelActivity !== false };
    },
  }),
};
