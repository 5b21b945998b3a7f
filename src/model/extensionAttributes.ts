/**
 * Attributes from other namespaces (camunda:, waymark:). bpmn-moddle, loaded without extension
 * descriptors, keeps them in `$attrs`. readBpmn hands EXTENSION_PREFIXES to the XML reader, which
 * then names every attribute of these namespaces with the prefix below, whatever prefix the file
 * declared (and renames a foreign namespace that borrows one of these prefixes to ns0, ns1...).
 * Resolving prefixes here instead would not work: the reader already rewrites prefixes globally.
 */
import type { BpmnElement } from './bpmnElement.ts';
import { invalid } from './invalid.ts';
import { describe, withArticle } from './bpmnElement.ts';

export const CAMUNDA_NS = 'http://camunda.org/schema/1.0/bpmn';
export const WAYMARK_NS = 'http://waymark.dev/schema/bpmn';

/** Namespace URI -> the prefix attributes of that namespace carry in `$attrs`. */
export const EXTENSION_PREFIXES: Readonly<Record<string, string>> = {
  [CAMUNDA_NS]: 'camunda',
  [WAYMARK_NS]: 'waymark',
};

export interface ExtensionAttribute {
  /** `waymark:wait`, `camunda:assignee`: the canonical name, used in messages. */
  qualifiedName: string;
  value: string;
}

/** The attributes of one element in one namespace, by local name. */
export type AttributesOf = ReadonlyMap<string, ExtensionAttribute>;

export function attributesIn(el: BpmnElement, namespace: string): AttributesOf {
  const prefix = `${EXTENSION_PREFIXES[namespace]}:`;
  const found = new Map<string, ExtensionAttribute>();
  for (const [qualifiedName, value] of Object.entries(el.$attrs ?? {})) {
    if (qualifiedName.startsWith(prefix)) {
      found.set(qualifiedName.slice(prefix.length), { qualifiedName, value: String(value) });
    }
  }
  return found;
}

/** Rejects any waymark: attribute that `allowed` does not list. */
export function checkWaymarkAttributes(el: BpmnElement, waymark: AttributesOf, allowed: readonly string[], what: string): void {
  for (const [local, attribute] of waymark) {
    if (!allowed.includes(local)) {
      const known = allowed.length
        ? `Waymark knows ${allowed.map((name) => `waymark:${name}`).join(' and ')} there`
        : 'Waymark knows no waymark: attribute there';
      throw invalid(`${describe(el)} has the unknown attribute ${attribute.qualifiedName} on ${withArticle(what)}: ${known}.`);
    }
  }
}

/** `true` / `false` (any case); undefined when the attribute is absent. */
export function booleanAttribute(el: BpmnElement, attribute: ExtensionAttribute | undefined): boolean | undefined {
  if (!attribute) return undefined;
  const value = attribute.value.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalid(`${describe(el)} has ${attribute.qualifiedName}="${attribute.value}": the value must be "true" or "false".`);
}
