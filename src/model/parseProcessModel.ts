/**
 * BPMN 2.0 XML -> a validated, immutable ProcessModel, at deploy time.
 *
 * Everything the engine cannot run is rejected here with WaymarkError('InvalidProcessDefinition')
 * and a sentence naming the element. Which elements run, and how each is read, lives in
 * elementRules.ts; this file only walks the process and puts the pieces together.
 *
 * Incoming / outgoing flows are taken from the sequence flows' sourceRef / targetRef; the
 * optional <incoming>/<outgoing> children modelers also write are not relied on.
 */
import type { BpmnElement } from './bpmnElement.ts';
import { describe, elementTypeName, withArticle } from './bpmnElement.ts';
import { ELEMENT_RULES, IGNORED_FLOW_ELEMENTS, SUPPORTED_SUMMARY, type ElementRule } from './elementRules.ts';
import { attributesIn, CAMUNDA_NS, checkWaymarkAttributes, WAYMARK_NS } from './extensionAttributes.ts';
import { deepFreeze, frozenMap } from './freeze.ts';
import { checkConditions } from './flowConditions.ts';
import { checkCanEnd, checkReachable, linkBoundaryEvents, linkFlows, readFlows, type FlowElement, type NodeDraft } from './graph.ts';
import { invalid } from './invalid.ts';
import type { FlowNode, ProcessModel } from './ProcessModel.ts';
import { readBpmn } from './readBpmn.ts';
import { checkUnsupportedFeatures } from './unsupportedFeatures.ts';

export { MAX_DEFINITION_BYTES } from './readBpmn.ts';

export async function parseProcessModel(xml: string): Promise<ProcessModel> {
  const { definitions, references } = await readBpmn(xml);
  const process = pickProcess(definitions);
  const processId = process.id!;
  checkWaymarkAttributes(process, attributesIn(process, WAYMARK_NS), [], 'process');
  checkUnsupportedFeatures(process, []);

  const found: Collected = { drafts: [], details: new Map(), flowElements: [] };
  collectScope(process, undefined, found);
  const { drafts, details } = found;
  const draftsById = new Map(drafts.map((draft) => [draft.id, draft]));
  const flowList = readFlows(process, found.flowElements, draftsById, references);
  linkFlows(drafts, draftsById, flowList);
  linkBoundaryEvents(drafts, draftsById);
  const flows = frozenMap(flowList.map((flow) => [flow.id, deepFreeze(flow)] as const));
  checkConditions(draftsById, flows);

  const starts = new Map<string | undefined, string>();
  for (const scope of [undefined, ...drafts.filter((d) => d.rule.kind === 'subProcess').map((d) => d.id)]) {
    const startId = scopeStart(drafts, scope, processId);
    starts.set(scope, startId);
    checkReachable(drafts, draftsById, flows, startId);
    checkCanEnd(drafts, flows, scope);
  }

  const nodes = frozenMap(
    drafts.map((draft): [string, FlowNode] => [
      draft.id,
      deepFreeze({
        id: draft.id,
        name: draft.element.name?.trim() || draft.id,
        kind: draft.rule.kind,
        incoming: draft.incoming,
        outgoing: draft.outgoing,
        ...details.get(draft.id),
        ...(draft.scope !== undefined ? { scope: draft.scope } : {}),
        ...(draft.rule.kind === 'subProcess' ? { startNodeId: starts.get(draft.id)! } : {}),
        ...(draft.boundaryEvents.length ? { boundaryEvents: draft.boundaryEvents } : {}),
      }),
    ]),
  );

  return deepFreeze({
    processId,
    name: process.name?.trim() || processId,
    description: (process.documentation ?? [])
      .map((doc) => doc.text?.trim() ?? '')
      .filter(Boolean)
      .join('\n\n'),
    nodes,
    flows,
    startNodeIds: [starts.get(undefined)!],
  });
}

interface Collected {
  drafts: NodeDraft[];
  details: Map<string, Partial<FlowNode>>;
  flowElements: FlowElement[];
}

/** The flow elements of the process or of one embedded sub-process, and of the sub-processes inside. */
function collectScope(container: BpmnElement, scope: string | undefined, found: Collected): void {
  for (const el of container.flowElements ?? []) {
    if (!el.id) {
      throw invalid(`${scope ? `Sub-process ${scope}` : `Process ${container.id}`} has a ${elementTypeName(el)} without an id; every element needs one.`);
    }
    if (el.$type === 'bpmn:SequenceFlow') {
      found.flowElements.push({ element: el, scope });
      continue;
    }
    if (IGNORED_FLOW_ELEMENTS.has(el.$type)) continue;
    const rule = ELEMENT_RULES[el.$type];
    if (!rule) {
      throw invalid(`${describe(el)} is not supported in this release: ${SUPPORTED_SUMMARY}.`);
    }
    const { draft, fields } = readNode(el, rule, scope);
    found.drafts.push(draft);
    found.details.set(draft.id, fields);
    if (rule.kind === 'subProcess') collectScope(el, el.id, found);
  }
}

/** The one none start event of a scope. */
function scopeStart(drafts: readonly NodeDraft[], scope: string | undefined, processId: string): string {
  const starts = drafts.filter((draft) => draft.scope === scope && draft.rule.kind === 'startEvent' && !draft.eventDefinition);
  const where = scope ? `Sub-process ${scope}` : `Process ${processId}`;
  if (starts.length === 1) return starts[0].id;
  throw invalid(
    starts.length === 0
      ? `${where} has no start event: it needs exactly one start event without an event definition.`
      : `${where} has ${starts.length} start events (${starts.map((s) => s.id).join(', ')}): ` +
          'this release runs exactly one start event per process or sub-process.',
  );
}

/**
 * The one process Waymark runs: the process marked isExecutable="true", or, when none is
 * marked, the only process in the file (bpmn.io writes isExecutable="false" by default).
 */
function pickProcess(definitions: BpmnElement): BpmnElement {
  const processes = (definitions.rootElements ?? []).filter((el) => el.$type === 'bpmn:Process');
  const executable = processes.filter((p) => p.isExecutable === true);
  const ids = (list: BpmnElement[]) => list.map((p) => p.id ?? '(no id)').join(', ');
  let chosen: BpmnElement;
  if (executable.length === 1) chosen = executable[0];
  else if (executable.length > 1) {
    throw invalid(
      `The file has ${executable.length} executable processes (${ids(executable)}); Waymark deploys one executable process per file.`,
    );
  } else if (processes.length === 1) chosen = processes[0];
  else if (processes.length === 0) {
    throw invalid('The file has no <process>: a BPMN process definition needs exactly one executable process.');
  } else {
    throw invalid(
      `The file has ${processes.length} processes (${ids(processes)}) and none is marked isExecutable="true": ` +
        'mark the one Waymark should run.',
    );
  }
  if (!chosen.id) throw invalid('The process has no id; a BPMN process needs one.');
  return chosen;
}

/** One flow node's own checks and settings, from its rule. */
function readNode(el: BpmnElement, rule: ElementRule, scope: string | undefined): { draft: NodeDraft; fields: Partial<FlowNode> } {
  const typeName = elementTypeName(el);
  const definitions = [...(el.eventDefinitions ?? []), ...(el.eventDefinitionRefs ?? [])];
  const allowed = Object.keys(rule.eventDefinitions);
  const variants = allowed.map((type) => withArticle(elementTypeName({ $type: type })));
  const options = (rule.eventDefinitionRequired ? variants : ['no event definition', ...variants]).join(' or ');
  if (definitions.length > 1) {
    throw invalid(`${describe(el)} has ${definitions.length} event definitions; this release runs ${withArticle(typeName)} with ${options}.`);
  }
  const definition = definitions[0];
  if (definition && !allowed.includes(definition.$type)) {
    throw invalid(
      `${describe(el)} has a ${elementTypeName(definition)}, which this release does not run: ${withArticle(typeName)} may have ${options}.`,
    );
  }
  if (!definition && rule.eventDefinitionRequired) {
    throw invalid(`${describe(el)} has no event definition; this release runs ${withArticle(typeName)} with ${options}.`);
  }
  if (el.loopCharacteristics) {
    throw invalid(
      `${describe(el)} has ${elementTypeName(el.loopCharacteristics)}, which this release does not run: each task runs once per token ` +
        '(draw a loop with a gateway to repeat it).',
    );
  }
  const waymark = attributesIn(el, WAYMARK_NS);
  checkWaymarkAttributes(el, waymark, rule.waymarkAttributes, typeName);
  checkUnsupportedFeatures(el, rule.camundaAttributes);
  const fields = {
    ...rule.details(el, { camunda: attributesIn(el, CAMUNDA_NS), waymark }),
    ...(definition ? rule.eventDefinitions[definition.$type](el, definition) : {}),
  };
  const draft: NodeDraft = { element: el, rule, id: el.id!, incoming: [], outgoing: [], boundaryEvents: [] };
  if (scope !== undefined) draft.scope = scope;
  if (definition) draft.eventDefinition = definition.$type;
  return { draft, fields };
}
