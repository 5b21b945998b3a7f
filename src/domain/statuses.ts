/** Status values as they appear on the wire. `Canceled` is what we emit; `Cancelled` is accepted as input. */

export const EventStatus = {
  Sent: 'Sent',
  Processed: 'Processed',
  Failed: 'Failed',
  Canceled: 'Canceled',
  Deferred: 'Deferred',
} as const;
export type EventStatus = (typeof EventStatus)[keyof typeof EventStatus];
export const FINAL_EVENT_STATUSES: ReadonlySet<string> = new Set(['Processed', 'Failed', 'Canceled']);

export const WorkItemStatus = {
  New: 'New',
  Assigned: 'Assigned',
  Completed: 'Completed',
  Canceled: 'Canceled',
  Reassigned: 'Reassigned',
  Removed: 'Removed',
  Overdue: 'Overdue',
  Carbon: 'Carbon',
} as const;
export type WorkItemStatus = (typeof WorkItemStatus)[keyof typeof WorkItemStatus];
/** A work item in one of these statuses still waits for someone. */
export const OPEN_WORK_ITEM_STATUSES: readonly WorkItemStatus[] = ['New', 'Assigned', 'Overdue'];

export const ProcInstStatus = {
  Initiated: 'Initiated',
  Running: 'Running',
  Suspended: 'Suspended',
  Completed: 'Completed',
  Canceled: 'Canceled',
} as const;
export type ProcInstStatus = (typeof ProcInstStatus)[keyof typeof ProcInstStatus];
export const ACTIVE_PROC_INST_STATUSES: readonly ProcInstStatus[] = ['Initiated', 'Running', 'Suspended'];

export const AutoWorkItemStatus = {
  Running: 'Running',
  Waiting: 'Waiting',
  Completed: 'Completed',
  Overdue: 'Overdue',
  Canceled: 'Canceled',
} as const;
export type AutoWorkItemStatus = (typeof AutoWorkItemStatus)[keyof typeof AutoWorkItemStatus];

export const ProcDefStatus = {
  Created: 'Created',
  Released: 'Released',
  Archived: 'Archived',
} as const;
export type ProcDefStatus = (typeof ProcDefStatus)[keyof typeof ProcDefStatus];

/** Map input spellings onto the emitted one (`Cancelled` -> `Canceled`), case-insensitively. */
export function normalizeStatus<T extends string>(input: string, allowed: readonly T[]): T | null {
  const wanted = input.trim().toLowerCase() === 'cancelled' ? 'canceled' : input.trim().toLowerCase();
  return allowed.find((s) => s.toLowerCase() === wanted) ?? null;
}
