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
import { checkReachable, linkFlows, readFlows, type NodeDraft } from './graph.ts';
import { invalid } from './invalid.ts';
import type { FlowNode, ProcessModel } from './ProcessModel.ts';
import { readBpmn } from './readBpmn.ts';

export { MAX_DEFINITION_BYTES } from './readBpmn.ts';

export async function parseProcessModel(xml: string): Promise<ProcessModel> {
  const { definitions, references } = await readBpmn(xml);
  const process = pickProcess(definitions);
  const processId = process.id!;
  checkWaymarkAttributes(process, attributesIn(process, WAYMARK_NS), [], 'process');

  const drafts: NodeDraft[] = [];
  const details = new Map<string, Partial<FlowNode>>();
  const flowElements: BpmnElement[] = [];
  for (const el of process.flowElements ?? []) {
    if (!el.id) {
      throw invalid(`Process ${processId} has a ${elementTypeName(el)} without an id; every element needs one.`);
    }
    if (el.$type === 'bpmn:SequenceFlow') {
      flowElements.push(el);
      continue;
    }
    if (IGNORED_FLOW_ELEMENTS.has(el.$type)) continue;
    const rule = ELEMENT_RULES[el.$type];
    if (!rule) {
      throw invalid(`${describe(el)} is not supported in this release: ${SUPPORTED_SUMMARY}.`);
    }
    const { draft, fields } = readNode(el, rule);
    drafts.push(draft);
    details.set(draft.id, fields);
  }

  const draftsById = new Map(drafts.map((draft) => [draft.id, draft]));
  const flowList = readFlows(process, flowElements, draftsById, references);
  linkFlows(drafts, draftsById, flowList);

  const starts = drafts.filter((draft) => draft.rule.kind === 'startEvent' && !draft.eventDefinition);
  if (starts.length !== 1) {
    throw invalid(
      starts.length === 0
        ? `Process ${processId} has no start event: it needs exactly one start event without an event definition.`
        : `Process ${processId} has ${starts.length} start events (${starts.map((s) => s.id).join(', ')}): ` +
            'this release runs exactly one start event per process.',
    );
  }
  const flows = frozenMap(flowList.map((flow) => [flow.id, deepFreeze(flow)] as const));
  checkReachable(drafts, draftsById, flows, starts[0].id);

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
    startNodeIds: [starts[0].id],
  });
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
function readNode(el: BpmnElement, rule: ElementRule): { draft: NodeDraft; fields: Partial<FlowNode> } {
  const typeName = elementTypeName(el);
  const definitions = [...(el.eventDefinitions ?? []), ...(el.eventDefinitionRefs ?? [])];
  const allowed = Object.keys(rule.eventDefinitions);
  const options = ['no event definition', ...allowed.map((type) => withArticle(elementTypeName({ $type: type })))].join(' or ');
  if (definitions.length > 1) {
    throw invalid(`${describe(el)} has ${definitions.length} event definitions; this release runs ${withArticle(typeName)} with ${options}.`);
  }
  const definition = definitions[0];
  if (definition && !allowed.includes(definition.$type)) {
    throw invalid(
      `${describe(el)} has a ${elementTypeName(definition)}, which this release does not run: ${withArticle(typeName)} may have ${options}.`,
    );
  }
  if (el.loopCharacteristics) {
    throw invalid(
      `${describe(el)} has ${elementTypeName(el.loopCharacteristics)}, which this release does not run: each task runs once.`,
    );
  }
  const waymark = attributesIn(el, WAYMARK_NS);
  checkWaymarkAttributes(el, waymark, rule.waymarkAttributes, typeName);
  const fields = {
    ...rule.details(el, { camunda: attributesIn(el, CAMUNDA_NS), waymark }),
    ...(definition ? rule.eventDefinitions[definition.$type] : {}),
  };
  const draft: NodeDraft = { element: el, rule, id: el.id!, incoming: [], outgoing: [] };
  if (definition) draft.eventDefinition = definition.$type;
  return { draft, fields };
}
