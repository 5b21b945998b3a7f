/**
 * The shape of the bpmn-moddle objects that src/model reads. Deliberately loose: only the
 * properties used here, all optional, because a BPMN file may omit any of them.
 */
export interface BpmnElement {
  readonly $type: string;
  readonly $parent?: BpmnElement;
  /** Attributes moddle does not know (other namespaces, xmlns declarations), by qualified name. */
  readonly $attrs?: Readonly<Record<string, string>>;
  readonly id?: string;
  readonly name?: string;
  // definitions / process
  readonly rootElements?: readonly BpmnElement[];
  readonly flowElements?: readonly BpmnElement[];
  readonly documentation?: readonly { readonly text?: string }[];
  readonly isExecutable?: boolean;
  // flow nodes
  readonly eventDefinitions?: readonly BpmnElement[];
  readonly eventDefinitionRefs?: readonly BpmnElement[];
  readonly loopCharacteristics?: BpmnElement;
  readonly resources?: readonly BpmnElement[];
  readonly extensionElements?: { readonly values?: readonly BpmnElement[] };
  readonly isForCompensation?: boolean;
  readonly startQuantity?: number;
  readonly completionQuantity?: number;
  readonly parallelMultiple?: boolean;
  // gateways, call activities, sub-processes, boundary events
  readonly default?: BpmnElement;
  readonly calledElement?: string;
  readonly triggeredByEvent?: boolean;
  readonly attachedToRef?: BpmnElement;
  readonly cancelActivity?: boolean;
  // timer event definitions
  readonly timeDuration?: BpmnElement;
  readonly timeDate?: BpmnElement;
  readonly timeCycle?: BpmnElement;
  // resource roles and expressions
  readonly resourceRef?: BpmnElement;
  readonly resourceAssignmentExpression?: BpmnElement;
  readonly expression?: BpmnElement;
  readonly body?: string;
  readonly language?: string;
  // sequence flows
  readonly sourceRef?: BpmnElement;
  readonly targetRef?: BpmnElement;
  readonly conditionExpression?: BpmnElement;
}

/** `bpmn:ExclusiveGateway` -> `exclusiveGateway`: the element name as written in a BPMN file. */
export function elementTypeName(el: { $type: string }): string {
  const local = el.$type.includes(':') ? el.$type.slice(el.$type.indexOf(':') + 1) : el.$type;
  return local.charAt(0).toLowerCase() + local.slice(1);
}

/** `Element Task_1 (userTask)`: how messages name an element. */
export function describe(el: BpmnElement): string {
  return `Element ${el.id} (${elementTypeName(el)})`;
}

/** `a userTask`, `an endEvent`. */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
