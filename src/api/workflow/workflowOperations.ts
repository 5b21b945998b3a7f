/** Workflow area: the spec's task and instance operations plus their companions. */
import type { Operation } from '../Operation.ts';
import { bool, clientDataBody, object, str, strOrNull } from '../schemas.ts';
import { processOperations } from './processOperations.ts';
import { taskOperations } from './taskOperations.ts';

const createLinkedWorkItemBody = object(
  {
    SourceWorkItemID: str(256, 'the task the new task is linked to (32 hex characters)'),
    WorkToPerform: str(1024, 'name or text of the work'),
    UserID: str(256, 'participant, DOMAIN\\user'),
    Length: { type: ['string', 'integer'], maxLength: 16, description: 'positive whole number of Units, e.g. "2"' },
    Unit: str(16, 'SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR'),
    BusinessTime: bool('count Length in business time (default false)'),
    bDependent: bool('true: the source task cannot complete before the new one (default false)'),
    ClientData: strOrNull(64 * 1024),
  },
  ['SourceWorkItemID', 'WorkToPerform', 'UserID', 'Length', 'Unit'],
);

const createProcInstBody = object(
  {
    ProcessID: str(256, 'DefID of a released process definition'),
    ProcessInstID: strOrNull(256, 'optional 32-hex id; generated when null'),
    ProcInstName: strOrNull(1024, 'unique name; generated when null'),
    WorkObjID: strOrNull(256),
    WorkObjInfo: strOrNull(1024),
    SuperProcInstID: strOrNull(256, 'parent process instance'),
    Initiator: strOrNull(256, 'DOMAIN\\user; the caller when null'),
    CustomID: strOrNull(256, 'key of the instance attributes; the ProcInstID when null'),
    Attributes: { type: ['array', 'null'], maxItems: 1000, items: { type: 'object' } },
    blnStartImmediately: bool('legacy; ignored (instances always start)'),
  },
  ['ProcessID'],
);

export const workflowOperations: Operation[] = [
  {
    name: 'CreateLinkedWorkItem', area: 'Workflow', method: 'POST', body: createLinkedWorkItemBody, reply: 'event',
    summary: 'Create a human task linked to another human task (EventName CreateWorkItem).',
    run: ({ engine, caller, body }) => engine.createLinkedWorkItem(caller, body),
  },
  {
    name: 'UndoAssignWorkItem', area: 'Workflow', method: 'POST', params: ['workItemID'], body: clientDataBody, reply: 'event',
    summary: 'Release an assigned human task back to its pool.',
    run: ({ engine, caller, params, body }) => engine.undoAssignWorkItem(caller, params.workItemID, body.clientData),
  },
  {
    name: 'CancelProcInst', area: 'Workflow', method: 'POST', params: ['processInstanceID'], reply: 'event',
    summary: 'Cancel a process instance with its tasks, system activities and child instances.',
    run: ({ engine, caller, params }) => engine.cancelProcInst(caller, params.processInstanceID),
  },
  {
    name: 'GetActivityInstsByPIID', area: 'Workflow', method: 'GET', params: ['processInstanceID'], reply: 'wrapped',
    summary: 'Every activity instance of a process instance.',
    run: ({ engine, caller, params }) => engine.getActivityInstsByPIID(caller, params.processInstanceID),
    runNow: ({ engine, caller, params }) => engine.getActivityInstsByPIIDNow(caller, params.processInstanceID),
  },
  {
    name: 'GetActivityInst', area: 'Workflow', method: 'GET', params: ['activityInstanceID'], reply: 'wrapped',
    summary: 'One activity instance.',
    run: ({ engine, caller, params }) => engine.getActivityInst(caller, params.activityInstanceID),
    runNow: ({ engine, caller, params }) => engine.getActivityInstNow(caller, params.activityInstanceID),
  },
  {
    name: 'CreateProcDef', area: 'Workflow', method: 'POST', body: object({ Xml: str(1024 * 1024, 'BPMN 2.0 XML') }, ['Xml']), reply: 'bare',
    summary: 'Deploy a BPMN file as a new process definition version (Status Created).',
    run: ({ engine, caller, body }) => engine.createProcDef(caller, body.Xml),
  },
  {
    name: 'ReleaseProcDef', area: 'Workflow', method: 'POST', params: ['DefID'], reply: 'bare',
    summary: 'Release a process definition version; the previous released version is Archived.',
    run: ({ engine, caller, params }) => engine.releaseProcDef(caller, params.DefID),
  },
  {
    name: 'GetProcDefs', area: 'Workflow', method: 'GET', reply: 'wrapped',
    summary: 'Every process definition version.',
    run: ({ engine, caller }) => engine.getProcDefs(caller),
  },
  {
    name: 'GetReleasedPID', area: 'Workflow', method: 'GET', params: ['processDefinitionName'], reply: 'wrapped',
    summary: 'DefID of the released version of a process definition, by name.',
    run: ({ engine, caller, params }) => engine.getReleasedPID(caller, params.processDefinitionName),
  },
  {
    name: 'GetReleasedProcDefs', area: 'Workflow', method: 'GET', reply: 'wrapped',
    summary: 'Released process definitions as {Key: DefID, Value: DefName}.',
    run: ({ engine, caller }) => engine.getReleasedProcDefs(caller),
  },
  {
    name: 'GetUUID', area: 'Workflow', method: 'GET', reply: 'wrapped',
    summary: 'A new 32-hex id.',
    run: ({ engine, caller }) => engine.getUUID(caller),
  },
  {
    name: 'CreateProcInst', area: 'Workflow', method: 'POST', body: createProcInstBody, reply: 'event',
    summary: 'Start a process instance of a released definition (EventName CreateProcessInstance).',
    run: ({ engine, caller, body }) => engine.createProcInst(caller, body),
  },
  {
    name: 'GetProcInst', area: 'Workflow', method: 'GET', params: ['processInstanceID'], reply: 'wrapped',
    summary: 'One process instance.',
    run: ({ engine, caller, params }) => engine.getProcInst(caller, params.processInstanceID),
  },
  {
    name: 'GetWorkItem', area: 'Workflow', method: 'GET', params: ['workItemID'], reply: 'wrapped',
    summary: 'One human task.',
    run: ({ engine, caller, params }) => engine.getWorkItem(caller, params.workItemID),
    runNow: ({ engine, caller, params }) => engine.getWorkItemNow(caller, params.workItemID),
  },
  {
    name: 'GetWorkListByUserID', area: 'Workflow', method: 'POST', reply: 'bare',
    body: object({ UserName: strOrNull(256, 'DOMAIN\\user; the caller when null'), Status: strOrNull(256, 'one status or a ;-list; all when null') }),
    summary: "A user's tasks; pooled New tasks appear for every pool member.",
    run: ({ engine, caller, body }) => engine.getWorkListByUserID(caller, body),
    runNow: ({ engine, caller, body }) => engine.getWorkListByUserIDNow(caller, body),
  },
  {
    name: 'AssignWorkItem', area: 'Workflow', method: 'POST', params: ['workItemID'], body: clientDataBody, reply: 'event',
    summary: 'Take a pooled (New) task.',
    run: ({ engine, caller, params, body }) => engine.assignWorkItem(caller, params.workItemID, body.clientData),
  },
  {
    name: 'CompleteWorkItem', area: 'Workflow', method: 'POST', params: ['workItemID'], body: clientDataBody, reply: 'event',
    summary: 'Complete an assigned task (null when it is already completed).',
    run: ({ engine, caller, params, body }) => engine.completeWorkItem(caller, params.workItemID, body.clientData),
  },
  {
    name: 'GetEvent', area: 'Workflow', method: 'GET', params: ['eventID'], reply: 'wrapped',
    summary: 'One event, to follow Sent -> Processed / Failed / Canceled.',
    run: ({ engine, caller, params }) => engine.getEvent(caller, params.eventID),
  },
  {
    name: 'GetEventsByProcInstID', area: 'Workflow', method: 'GET', params: ['processInstanceID'], reply: 'wrapped',
    summary: 'Every event of a process instance, in admission order.',
    run: ({ engine, caller, params }) => engine.getEventsByProcInstID(caller, params.processInstanceID),
  },
  {
    name: 'GetProcedure', area: 'Workflow', method: 'GET', params: ['workItemID'], reply: 'wrapped',
    summary: 'One automatic work item (a waiting service task).',
    run: ({ engine, caller, params }) => engine.getProcedure(caller, params.workItemID),
  },
  {
    name: 'QueryProcedureList', area: 'Workflow', method: 'POST', reply: 'bare',
    body: object(
      {
        ColumnName: str(64, 'WORK_ITEM_ID, PROC_INST_ID, ACTIVITY_INST_ID, STATUS, PROCEDURE_INFO, SESSION, CREATED_DATE, DUE_DATE, COMPLETED_DATE'),
        Operator: { type: ['string', 'integer'], maxLength: 8, description: 'EQ NE LT LE GT GE LIKE IN, or the codes 0-7' },
        WhereClause: { type: ['string', 'integer'], maxLength: 64 * 1024, description: 'the value (IN: a comma-separated list)' },
        IsValue: bool('true (default): WhereClause is a value; false: it names another column'),
      },
      ['ColumnName', 'Operator', 'WhereClause'],
    ),
    summary: 'Automatic work items matching one condition (at most 10,000, oldest first).',
    run: ({ engine, caller, body }) => engine.queryProcedureList(caller, body),
  },
  {
    name: 'CompleteProcedure', area: 'Workflow', method: 'POST', params: ['workItemID'], reply: 'event',
    summary: 'Report a waiting service task as done.',
    run: ({ engine, caller, params }) => engine.completeProcedure(caller, params.workItemID),
  },
  ...processOperations,
  ...taskOperations,
];
