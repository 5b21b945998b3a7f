/**
 * The parsed, validated and immutable form of one BPMN process definition.
 * Produced by `parseProcessModel` at deploy time; shared by every running instance.
 * Running state never lives here: it is data in the database.
 */

/** Element kinds the engine runs. Adding one adds a behaviour file in src/engine/behaviours. */
export type NodeKind =
  | 'startEvent'
  | 'endEvent'
  | 'userTask'
  | 'manualTask'
  | 'serviceTask'
  | 'sendTask'
  | 'scriptTask'
  | 'exclusiveGateway'
  | 'parallelGateway'
  | 'inclusiveGateway'
  | 'callActivity'
  | 'subProcess'
  | 'intermediateCatchEvent'
  | 'boundaryEvent';

/** Who a human task is for. Values may be FEEL expressions (strings that start with `=`), kept verbatim. */
export interface Performers {
  /** One user the work item is assigned to directly (humanPerformer or camunda:assignee). */
  assignee?: string;
  /** Pool candidates (potentialOwner `user(...)` entries or camunda:candidateUsers). */
  candidateUsers: string[];
  /** Pool candidate groups (potentialOwner `group(...)`, camunda:candidateGroups). */
  candidateGroups: string[];
  /** Pool candidate roles (potentialOwner `role(...)`). */
  candidateRoles: string[];
}

export interface ExpectedTime {
  length: number;
  /** One of SECOND MINUTE HOUR DAY WEEK MONTH YEAR (upper case). */
  unit: string;
  businessTime: boolean;
}

/**
 * A timerEventDefinition: `timeDuration` (ISO 8601 duration such as PT2H, P3D) counted from the
 * moment the timer starts, or `timeDate` (ISO 8601 date-time). A value that starts with `=` is a
 * FEEL expression over the process attributes that gives such a text when the timer starts.
 */
export interface TimerDefinition {
  type: 'timeDuration' | 'timeDate';
  value: string;
}

export interface FlowNode {
  /** BPMN element id; becomes the activity instance's Name. */
  id: string;
  /** BPMN `name`, or the id when the element has none; becomes DisplayName. */
  name: string;
  kind: NodeKind;
  /** Sequence flow ids, in document order. */
  incoming: readonly string[];
  outgoing: readonly string[];
  /** Human tasks only. */
  performers?: Performers;
  /** Human tasks only, from waymark:expectedTime / waymark:businessTime. */
  expectedTime?: ExpectedTime;
  /** System tasks only: true when `waymark:wait="true"` (an automatic work item waits for CompleteProcedure). */
  wait?: boolean;
  /** End events only: a terminateEventDefinition ends the whole instance (or its embedded sub-process). */
  terminate?: boolean;
  /** Nodes inside an embedded subProcess: that subProcess's id. Absent at process level. */
  scope?: string;
  /** Exclusive and inclusive gateways: the flow taken when no condition holds. */
  defaultFlow?: string;
  /** callActivity: the DefName whose released version runs as the child instance. */
  calledElement?: string;
  /** subProcess: its none start event. */
  startNodeId?: string;
  /** Timer events (intermediate catch, boundary). */
  timer?: TimerDefinition;
  /** boundaryEvent: the activity it is attached to, and whether firing cancels that activity. */
  attachedTo?: string;
  cancelActivity?: boolean;
  /** Activities with boundary events: their ids, in document order. */
  boundaryEvents?: readonly string[];
}

export interface SequenceFlow {
  id: string;
  sourceRef: string;
  targetRef: string;
  /** FEEL condition text (without a leading `=`), when the flow leaves a gateway with a condition. */
  condition?: string;
}

export interface ProcessModel {
  /** BPMN process id. */
  processId: string;
  /** BPMN process `name`, or its id when it has none: the definition's DefName. */
  name: string;
  /** Process-level documentation text, or ''. */
  description: string;
  nodes: ReadonlyMap<string, FlowNode>;
  flows: ReadonlyMap<string, SequenceFlow>;
  /** Id of the process-level none start event (exactly one). Sub-processes name theirs in startNodeId. */
  startNodeIds: readonly string[];
}
