import { WaymarkError } from '../../domain/errors.ts';
import { findWorkItemWithContext, type WorkItemReadOptions, type WorkItemWithContext } from '../../store/queries/workItemWithContext.ts';
import { findWorkItem, type WorkItemRow } from '../../store/queries/workItems.ts';
import type { RunContext } from '../RunContext.ts';

/** Applies one kind of event (by EventName) inside the dispatcher's transaction. */
export interface EventHandler {
  eventName: string;
  /** Apply the event. Throw a WaymarkError to reject it: the event becomes Failed with that code. */
  apply(rc: RunContext): Promise<void>;
}

export function paramsOf<T>(rc: RunContext): T {
  return JSON.parse(rc.event.params) as T;
}

/** Re-read the event's work item inside the transaction: the world may have moved since admission. */
export async function workItemOf(rc: RunContext): Promise<WorkItemRow> {
  const item = await findWorkItem(rc.trx, rc.event.work_item_id);
  if (!item) throw new WaymarkError('WorkItemNotFound', `Work item ${rc.event.work_item_id} does not exist.`);
  return item;
}

/** As workItemOf, with what `opts` asks about its pool and dependents in the same statement. */
export async function workItemWithContextOf(rc: RunContext, opts: WorkItemReadOptions): Promise<WorkItemWithContext> {
  const found = await findWorkItemWithContext(rc.trx, rc.event.work_item_id, opts);
  if (!found) throw new WaymarkError('WorkItemNotFound', `Work item ${rc.event.work_item_id} does not exist.`);
  return found;
}

export function requireRunning(rc: RunContext): void {
  if (rc.instance.status !== 'Running') {
    throw new WaymarkError(
      'ProcessInstanceNotActive',
      `Process instance ${rc.instance.proc_inst_id} is ${rc.instance.status}, not Running.`,
    );
  }
}

/** `clientData` rule of every work-item call: null keeps the stored value, any string replaces it. */
export function nextClientData(current: string | null, given: string | null | undefined): string | null {
  return given === null || given === undefined ? current : given;
}
