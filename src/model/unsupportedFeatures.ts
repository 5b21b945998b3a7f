/**
 * Attributes and extension elements that would change how an element runs, but that Waymark does
 * not honour: they are refused at deploy time instead of being silently ignored. Tooling-only
 * attributes (forms, history settings, async hints of another engine) are accepted and ignored.
 */
import type { BpmnElement } from './bpmnElement.ts';
import { describe, elementTypeName } from './bpmnElement.ts';
import { attributesIn, CAMUNDA_NS } from './extensionAttributes.ts';
import { invalid } from './invalid.ts';

/** camunda: attributes that only tools read; they do not change what Waymark does. */
const IGNORED_CAMUNDA = new Set([
  'historyTimeToLive', 'versionTag', 'isStartableInTasklist', 'candidateStarterGroups', 'candidateStarterUsers',
  'jobPriority', 'taskPriority', 'asyncBefore', 'asyncAfter', 'exclusive', 'async',
  'formKey', 'formRef', 'formRefBinding', 'formRefVersion', 'modelerTemplate', 'modelerTemplateVersion',
]);

const SERVICE_HINT =
  'Waymark does not call services or run scripts: a service, send or script task passes straight through, ' +
  'or waits for CompleteProcedure with waymark:wait="true"';

/** Why a camunda: attribute is refused, for the common ones. */
const CAMUNDA_REASONS: Readonly<Record<string, string>> = {
  class: SERVICE_HINT,
  expression: SERVICE_HINT,
  delegateExpression: SERVICE_HINT,
  type: SERVICE_HINT,
  topic: SERVICE_HINT,
  resultVariable: SERVICE_HINT,
  resource: SERVICE_HINT,
  dueDate: 'a task\'s due date is set with waymark:expectedTime="2 DAY"',
  followUpDate: 'Waymark has no follow-up dates',
  priority: 'Waymark does not read task priorities from the model',
  calledElementBinding: 'a call activity always runs the released version of its calledElement',
  calledElementVersion: 'a call activity always runs the released version of its calledElement',
  calledElementVersionTag: 'a call activity always runs the released version of its calledElement',
  initiator: 'the starting user is always available to conditions and performers as initiator',
};

/** camunda: extension elements that map data, run code or listen: Waymark does none of that. */
const REFUSED_EXTENSIONS: Readonly<Record<string, string>> = {
  'camunda:inputOutput': 'Waymark does not map input or output variables; conditions read the process attributes directly',
  'camunda:in': 'a child instance starts with a copy of every attribute of its parent',
  'camunda:out': 'every attribute of a completed child instance is copied back to its parent',
  'camunda:executionListener': 'Waymark runs no listeners or scripts',
  'camunda:taskListener': 'Waymark runs no listeners or scripts',
  'camunda:connector': SERVICE_HINT,
  'camunda:field': SERVICE_HINT,
};

/**
 * Refuses BPMN attributes Waymark does not run (compensation, quantities other than 1, event
 * sub-processes, parallel multiple events), camunda: attributes other than `reads` and the tooling
 * ones, and camunda: extension elements that would change how the element runs.
 */
export function checkUnsupportedFeatures(el: BpmnElement, reads: readonly string[]): void {
  if (el.isForCompensation === true) {
    throw invalid(`${describe(el)} is marked isForCompensation="true": this release runs no compensation.`);
  }
  for (const attribute of ['startQuantity', 'completionQuantity'] as const) {
    const value = el[attribute];
    if (value !== undefined && value !== 1) {
      throw invalid(`${describe(el)} has ${attribute}="${value}": this release runs every activity with one token in and one out.`);
    }
  }
  if (el.parallelMultiple === true) {
    throw invalid(`${describe(el)} is marked parallelMultiple="true", which this release does not run.`);
  }
  if (el.triggeredByEvent === true) {
    throw invalid(`${describe(el)} is an event sub-process (triggeredByEvent="true"), which this release does not run.`);
  }
  checkCamundaAttributes(el, reads);
  for (const extension of el.extensionElements?.values ?? []) {
    const reason = REFUSED_EXTENSIONS[extension.$type];
    if (reason) throw invalid(`${describe(el)} has the extension element ${extension.$type}, which Waymark does not run: ${reason}.`);
  }
}

function checkCamundaAttributes(el: BpmnElement, reads: readonly string[]): void {
  for (const [local, attribute] of attributesIn(el, CAMUNDA_NS)) {
    if (reads.includes(local) || IGNORED_CAMUNDA.has(local)) continue;
    const why =
      CAMUNDA_REASONS[local] ??
      (reads.length
        ? `on ${elementTypeName(el)} Waymark reads ${reads.map((r) => `camunda:${r}`).join(', ')} and ignores tooling attributes such as camunda:formKey`
        : `on ${elementTypeName(el)} Waymark reads no camunda: attribute and ignores tooling attributes such as camunda:formKey`);
    throw invalid(`${describe(el)} has ${attribute.qualifiedName}="${attribute.value}", which Waymark does not run: ${why}.`);
  }
}
