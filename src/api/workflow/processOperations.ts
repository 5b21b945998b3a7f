/** Workflow area: process instance control and process attributes. */
import type { Operation } from '../Operation.ts';
import { object, str } from '../schemas.ts';

const attributesBody = object(
  { attributes: { type: ['array', 'null'], maxItems: 1000, items: { type: 'object' }, description: 'NameValue list: [{"Name": ..., "Value": ...}]' } },
  ['attributes'],
);

export const processOperations: Operation[] = [
  {
    name: 'SuspendProcInst', area: 'Workflow', method: 'POST', params: ['processInstanceID'], reply: 'event',
    summary: 'Suspend a running instance (and its running children); its events wait Deferred until it is resumed.',
    run: ({ engine, caller, params }) => engine.suspendProcInst(caller, params.processInstanceID),
  },
  {
    name: 'ResumeProcInst', area: 'Workflow', method: 'POST', params: ['processInstanceID'], reply: 'event',
    summary: 'Resume a suspended instance (and its suspended children); its Deferred events are applied.',
    run: ({ engine, caller, params }) => engine.resumeProcInst(caller, params.processInstanceID),
  },
  {
    name: 'CancelActivityInst', area: 'Workflow', method: 'POST', params: ['activityInstanceID'], reply: 'event',
    summary: 'Cancel an active activity with its tasks; the token moves on to the next activity.',
    run: ({ engine, caller, params }) => engine.cancelActivityInst(caller, params.activityInstanceID),
  },
  {
    name: 'RollbackProcInst', area: 'Workflow', method: 'POST', params: ['activityInstanceID'], reply: 'event',
    summary: 'Cancel every active activity and start again at an activity the instance has been at.',
    run: ({ engine, caller, params }) => engine.rollbackProcInst(caller, params.activityInstanceID),
  },
  {
    name: 'GetProcInstAttrs', area: 'Workflow', method: 'GET', params: ['processInstanceID'], reply: 'wrapped',
    summary: "An instance's own attributes (DefID, Status, dates...) followed by its custom attributes, as NameValue pairs.",
    run: ({ engine, caller, params }) => engine.getProcInstAttrs(caller, params.processInstanceID),
  },
  {
    name: 'GetProcInstAttr', area: 'Workflow', method: 'GET', params: ['processInstanceID', 'attributeName'], reply: 'wrapped',
    summary: 'One attribute of an instance as {Name, Value}.',
    run: ({ engine, caller, params }) => engine.getProcInstAttr(caller, params.processInstanceID, params.attributeName),
  },
  {
    name: 'UpdateProcInst', area: 'Workflow', method: 'POST', params: ['processInstanceID'], body: attributesBody, reply: 'empty',
    summary: 'Set custom attributes of an active instance (process data read by conditions and performers).',
    run: ({ engine, caller, params, body }) => engine.updateProcInst(caller, params.processInstanceID, body.attributes),
  },
  {
    name: 'SetCustomAttrs', area: 'Workflow', method: 'POST', params: ['customID'], body: attributesBody, reply: 'empty',
    summary: 'Set custom attributes kept under a CustomID.',
    run: ({ engine, caller, params, body }) => engine.setCustomAttrs(caller, params.customID, body.attributes),
  },
  {
    name: 'GetCustomAttrsbyID', area: 'Workflow', method: 'GET', params: ['customID'], reply: 'wrapped', resultKey: 'GetCustomAttrsByIDResult',
    summary: 'The custom attributes kept under a CustomID, as an XML ArrayOfNameValue string.',
    run: ({ engine, caller, params }) => engine.getCustomAttrsByID(caller, params.customID),
  },
  {
    name: 'RemoveCustomAttrs', area: 'Workflow', method: 'POST', params: ['customID'], reply: 'empty',
    body: object({ namesArray: str(64 * 1024, 'attribute names separated by ;') }, ['namesArray']),
    summary: 'Remove custom attributes kept under a CustomID.',
    run: ({ engine, caller, params, body }) => engine.removeCustomAttrs(caller, params.customID, body.namesArray),
  },
];
