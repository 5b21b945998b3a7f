/**
 * bpmn-moddle 10 ships types for its element model (`bpmn-moddle/types`) but none for its
 * entry point. This declares the small part of the entry point that src/model uses.
 */
declare module 'bpmn-moddle' {
  export interface ModdleReference {
    element: { id?: string; $type: string };
    property: string;
    id: string;
  }

  export interface ModdleParseResult {
    rootElement: unknown;
    references: ModdleReference[];
    warnings: { message: string }[];
    elementsById: Record<string, unknown>;
  }

  export class BpmnModdle {
    constructor(packages?: Record<string, unknown>, options?: Record<string, unknown>);
    fromXML(xml: string, typeName?: string): Promise<ModdleParseResult>;
  }
}
