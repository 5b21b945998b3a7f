/**
 * What one event's application writes to its instances' rows, gathered so that each instance row
 * is written once per event where it used to be written once per change: the activity ordinal
 * (one UPDATE ... RETURNING per activity before), `Running` at the start, the end. Also the
 * visits of an instance started by this event, which are all made here, so that an activity's
 * Session needs no count of earlier rows.
 *
 * `bench statements` (e2e, 64.5 statements per completed instance before): the three ordinal
 * updates, the separate `Running` update and two of the three visit counts were 6 statements of
 * each instance. Everything here lives in memory only until the event's savepoint is released:
 * the dispatcher calls flushInstanceWrites before it marks the event, and a savepoint rolled back
 * drops the whole object with the RunContext.
 */
import type { Updateable } from 'kysely';
import { countVisits } from '../store/queries/activities.ts';
import { updateInstance, type InstanceRow } from '../store/queries/instances.ts';
import type { ProcessInstancesTable } from '../store/schema.ts';
import type { RunContext } from './RunContext.ts';

type InstancePatch = Updateable<ProcessInstancesTable>;

export interface InstanceWrites {
  /** Columns of instance rows changed by this event and not written yet, by instance id. */
  pending: Map<string, InstancePatch>;
  /** The next activity ordinal of each instance this event took one from. */
  ordinals: Map<string, number>;
  /** For instances started by this event: how often each element was entered so far. */
  freshVisits: Map<string, Map<string, number>>;
}

export function newInstanceWrites(): InstanceWrites {
  return { pending: new Map(), ordinals: new Map(), freshVisits: new Map() };
}

/** A change to an instance's row, written with the next write of that row or when the event ends. */
export function deferInstanceUpdate(rc: RunContext, procInstId: string, patch: InstancePatch): void {
  const pending = rc.writes.pending.get(procInstId);
  // Object.assign, not `{ ...pending, ...patch }`: a spread that adds keys the first object does not
  // have takes V8 (Node 20) ~2.2 µs here, Object.assign ~0.25 (twenty-sixth round in
  // docs/performance-log.md).
  rc.writes.pending.set(procInstId, pending ? Object.assign({}, pending, patch) : patch);
}

/** Write a change to an instance's row now, together with what was deferred for it. */
export async function writeInstance(rc: RunContext, procInstId: string, patch: InstancePatch): Promise<void> {
  const pending = rc.writes.pending.get(procInstId);
  rc.writes.pending.delete(procInstId);
  await updateInstance(rc.trx, procInstId, pending ? Object.assign({}, pending, patch) : patch);
}

/** Writes every deferred change (the dispatcher, before it marks the event Processed). */
export async function flushInstanceWrites(rc: RunContext): Promise<void> {
  for (const [id, patch] of rc.writes.pending) await updateInstance(rc.trx, id, patch);
  rc.writes.pending.clear();
}

/**
 * The next activity ordinal of `instance` (its row as read in this event: the column changes only
 * here, so until this event takes one it is the stored value).
 */
export function takeActivityOrdinal(rc: RunContext, instance: InstanceRow): number {
  const id = instance.proc_inst_id;
  const ord = rc.writes.ordinals.get(id) ?? instance.next_activity_ord;
  rc.writes.ordinals.set(id, ord + 1);
  deferInstanceUpdate(rc, id, { next_activity_ord: ord + 1 });
  return ord;
}

/** The instance has no activity yet and gets all its first ones in this event (CreateProcessInstance). */
export function markStartedHere(rc: RunContext, procInstId: string): void {
  rc.writes.freshVisits.set(procInstId, new Map());
}

/** Session of a new activity of `nodeId`: 1 + how often the element was entered before. */
export async function nextVisit(rc: RunContext, procInstId: string, nodeId: string): Promise<number> {
  const fresh = rc.writes.freshVisits.get(procInstId);
  if (!fresh) return (await countVisits(rc.trx, procInstId, nodeId)) + 1;
  const n = (fresh.get(nodeId) ?? 0) + 1;
  fresh.set(nodeId, n);
  return n;
}
