/** Workflow area: the rest of the task lifecycle. */
import type { Operation } from '../Operation.ts';
import { bool, clientDataBody, object, str, strOrNull } from '../schemas.ts';

export const taskOperations: Operation[] = [
  {
    name: 'ReassignWorkItem', area: 'Workflow', method: 'POST', reply: 'event',
    body: object(
      { WorkItemID: str(256, 'the task (32 hex characters)'), UserName: str(256, 'the new assignee, DOMAIN\\user'), ClientData: strOrNull(64 * 1024) },
      ['WorkItemID', 'UserName'],
    ),
    summary: 'Give a task to another user: the old item becomes Reassigned, a new item is assigned to the user.',
    run: ({ engine, caller, body }) => engine.reassignWorkItem(caller, body),
  },
  {
    name: 'CancelWorkItem', area: 'Workflow', method: 'POST', params: ['workItemID'], body: clientDataBody, reply: 'event',
    summary: "Cancel a task; canceling an activity's own task moves the token on.",
    run: ({ engine, caller, params, body }) => engine.cancelWorkItem(caller, params.workItemID, body.clientData),
  },
  {
    name: 'CreateWorkItem', area: 'Workflow', method: 'POST', reply: 'event',
    body: object(
      {
        ActivityInstanceID: str(256, 'the active activity instance the task is added to'),
        WorkToPerform: str(1024, 'name or text of the work'),
        UserID: str(256, 'participant, DOMAIN\\user'),
        Length: { type: ['string', 'integer'], maxLength: 16, description: 'positive whole number of Units, e.g. "2"' },
        Unit: str(16, 'SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR'),
        BusinessTime: bool('count Length in business time (default false)'),
        ClientData: strOrNull(64 * 1024),
      },
      ['ActivityInstanceID', 'WorkToPerform', 'UserID', 'Length', 'Unit'],
    ),
    summary: 'Add an independent task to an active activity instance (EventName CreateWorkItem).',
    run: ({ engine, caller, body }) => engine.createWorkItem(caller, body),
  },
  {
    name: 'ActivateWorkItem', area: 'Workflow', method: 'POST', params: ['workItemID', 'activate'], body: clientDataBody, reply: 'event',
    summary: 'The assignee starts (true) or stops (false) working on a task: ActivatedDate is set or unset.',
    run: ({ engine, caller, params, body }) => engine.activateWorkItem(caller, params.workItemID, params.activate, body.clientData),
  },
  {
    name: 'UpdateWorkItem', area: 'Workflow', method: 'POST', params: ['workItemID'], reply: 'empty',
    body: object(
      { attributes: { type: ['array', 'null'], maxItems: 8, items: { type: 'object' }, description: 'NameValue list of columns: NAME, ORIGINAL_USER_ID, CLIENT_DATA, POOL_INFO, STATUS, USER_ID, PRIORITY, DUE_DATE' } },
      ['attributes'],
    ),
    summary: 'Change listed columns of a task; answers once the change is applied.',
    run: ({ engine, caller, params, body }) => engine.updateWorkItem(caller, params.workItemID, body.attributes),
  },
];
