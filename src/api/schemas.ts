/** JSON-schema building blocks for request bodies (validation and the OpenAPI document). */
import type { JsonSchemaObject } from './bodies.ts';

export const str = (maxLength = 256, description?: string) => ({ type: 'string', maxLength, ...(description ? { description } : {}) });
export const strOrNull = (maxLength = 256, description?: string) => ({ type: ['string', 'null'], maxLength, ...(description ? { description } : {}) });
export const bool = (description?: string) => ({ type: ['boolean', 'null'], ...(description ? { description } : {}) });
export const dateIn = (description?: string) => ({ type: ['string', 'null'], maxLength: 64, ...(description ? { description } : {}) });

export function object(properties: JsonSchemaObject['properties'], required: string[] = []): JsonSchemaObject {
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

export const clientDataBody = object({
  clientData: strOrNull(64 * 1024, 'null keeps the stored client data; any string (also "") replaces it'),
});

export const userNameBody = object({ userName: str(256, 'DOMAIN\\user') }, ['userName']);

/** Response schemas (documentation only: responses are serialised by hand, alphabetically). */
export const wfEventSchema = {
  type: 'object',
  description: 'WFEvent: the event sent to the engine (Status Sent on admission).',
  properties: Object.fromEntries(
    [
      ['ActivityInstID', 'string'], ['AutoStart', 'boolean'], ['CustomAttributes', 'null'], ['Diagnostic', 'boolean'],
      ['EndDate', 'string'], ['Entries', 'integer'], ['Error', ['object', 'null']], ['EventID', 'string'], ['EventName', 'string'],
      ['HighPriority', 'boolean'], ['ParamsXml', 'string'], ['ParentProcInstID', 'string'], ['ProcDefID', 'string'],
      ['ProcInstID', 'string'], ['ProcInstName', 'string'], ['Sender', 'string'], ['SentDate', 'string'],
      ['SourceWorkItemID', 'string'], ['Status', 'string'], ['UserID', 'string'], ['WorkItemID', 'string'],
      ['WorkObjectID', 'string'], ['WorkObjectInfo', 'string'],
    ].map(([name, type]) => [name, { type }]),
  ),
};
