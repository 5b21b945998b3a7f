/**
 * Admission of UpdateWorkItem: `attributes` name columns of the work item in upper snake case.
 * Only NAME, ORIGINAL_USER_ID, CLIENT_DATA, POOL_INFO, STATUS, USER_ID, PRIORITY and DUE_DATE may
 * change; STATUS only between Assigned and Overdue (the other statuses have their own operations).
 */
import { parseDate } from '../../domain/dates.ts';
import { WaymarkError } from '../../domain/errors.ts';
import { parseUserName } from '../../domain/userNames.ts';
import type { EventRow } from '../../store/queries/events.ts';
import type { Executor } from '../../store/Store.ts';
import { authorize, type Caller } from '../accessPolicy.ts';
import type { EngineDeps } from '../context.ts';
import type { WorkItemChanges } from '../handlers/updateWorkItem.ts';
import { LIMITS, requireUserName } from '../validate.ts';
import { parseAttributes } from './instanceCommands.ts';
import { registeredUser } from '../registeredUser.ts';
import { activeInstance, existingWorkItem, workItemEvent } from './workItemCommands.ts';
import { requireId } from '../validate.ts';

const STATUS_OPERATIONS: Readonly<Record<string, string>> = {
  new: 'UndoAssignWorkItem',
  completed: 'CompleteWorkItem',
  canceled: 'CancelWorkItem',
  cancelled: 'CancelWorkItem',
  reassigned: 'ReassignWorkItem',
};

const COLUMNS = ['NAME', 'ORIGINAL_USER_ID', 'CLIENT_DATA', 'POOL_INFO', 'STATUS', 'USER_ID', 'PRIORITY', 'DUE_DATE'];

export async function updateWorkItem(deps: EngineDeps, caller: Caller, idIn: unknown, attributesIn: unknown): Promise<EventRow> {
  await authorize(caller, 'UpdateWorkItem');
  const id = requireId(idIn, 'workItemID');
  const attributes = parseAttributes(attributesIn, 'attributes');
  if (attributes.length === 0) throw new WaymarkError('InvalidRequest', `attributes is empty: name at least one of ${COLUMNS.join(', ')}.`);
  return deps.store.grouped(async (trx) => {
    const changes = await readChanges(trx, attributes);
    const item = await existingWorkItem(trx, id);
    if (!['New', 'Assigned', 'Overdue'].includes(item.status)) {
      throw new WaymarkError('WorkItemClosed', `Work item ${id} is ${item.status}; only an open item (New, Assigned, Overdue) can be updated.`);
    }
    if (changes.status && item.status === 'New' && !changes.user) {
      throw new WaymarkError('WorkItemNotAssigned', `Work item ${id} is New; give it a USER_ID before setting STATUS ${changes.status}.`);
    }
    const instance = await activeInstance(trx, item.proc_inst_id);
    return workItemEvent(deps, trx, caller, 'UpdateWorkItem', instance, item, changes);
  }, { singleWrite: true });
}

async function readChanges(db: Executor, attributes: { name: string; value: string }[]): Promise<WorkItemChanges> {
  const changes: WorkItemChanges = { columns: [] };
  for (const { name, value } of attributes) {
    const column = name.trim().toUpperCase();
    if (!COLUMNS.includes(column)) {
      throw new WaymarkError('InvalidRequest', `UpdateWorkItem cannot change ${name}: it changes only ${COLUMNS.join(', ')}.`);
    }
    changes.columns.push(column);
    await readChange(db, changes, column, value);
  }
  return changes;
}

async function readChange(db: Executor, changes: WorkItemChanges, column: string, value: string): Promise<void> {
  switch (column) {
    case 'NAME':
      changes.name = limited(value, column, LIMITS.name, false);
      return;
    case 'ORIGINAL_USER_ID':
      if (value !== '' && !parseUserName(value)) throw new WaymarkError('InvalidUserName', `ORIGINAL_USER_ID must be empty or DOMAIN\\user; got ${JSON.stringify(value)}.`);
      changes.originalUserId = value;
      return;
    case 'CLIENT_DATA':
      changes.clientData = limited(value, column, LIMITS.clientData, true);
      return;
    case 'POOL_INFO':
      changes.poolInfo = limited(value, column, LIMITS.workToPerform, true);
      return;
    case 'PRIORITY':
      changes.priority = limited(value, column, LIMITS.name, true);
      return;
    case 'STATUS':
      changes.status = readStatus(value);
      return;
    case 'USER_ID': {
      const user = requireUserName(value, 'USER_ID');
      changes.user = { name: await registeredUser(db, user.key, user.name), key: user.key };
      return;
    }
    case 'DUE_DATE':
      changes.dueDate = value.trim() === '' ? null : parseDate(value);
      if (changes.dueDate === null && value.trim() !== '') {
        throw new WaymarkError('InvalidDate', `DUE_DATE must be a date such as /Date(1767225600000)/ or 2026-01-01T00:00:00Z, or empty; got ${JSON.stringify(value)}.`);
      }
  }
}

function readStatus(value: string): 'Assigned' | 'Overdue' {
  const status = value.trim().toLowerCase();
  if (status === 'assigned') return 'Assigned';
  if (status === 'overdue') return 'Overdue';
  const operation = STATUS_OPERATIONS[status];
  throw new WaymarkError(
    'InvalidRequest',
    operation
      ? `STATUS ${value} is set by ${operation}, not by UpdateWorkItem (which moves an item only between Assigned and Overdue).`
      : `STATUS must be Assigned or Overdue; got ${JSON.stringify(value)}.`,
  );
}

function limited(value: string, column: string, max: number, allowEmpty: boolean): string {
  if (!allowEmpty && value.trim() === '') throw new WaymarkError('InvalidRequest', `${column} cannot be empty.`);
  if (value.length > max) throw new WaymarkError('ValueTooLong', `${column} is ${value.length} characters long; at most ${max} are allowed.`);
  return value;
}
