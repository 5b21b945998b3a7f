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
  | 'scriptTask';

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
  /** End events only: a terminateEventDefinition ends the whole instance. */
  terminate?: boolean;
}

export interface SequenceFlow {
  id: string;
  sourceRef: string;
  targetRef: string;
  /** FEEL condition text, when the flow has a conditionExpression. */
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
  /** Ids of the none start events (exactly one in this release). */
  startNodeIds: readonly string[];
}
