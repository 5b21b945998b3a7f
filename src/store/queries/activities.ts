import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { reusableInsert, reusableQuery, reusableStatement, reusableUpdate } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { ActivityInstancesTable } from '../schema.ts';
import { activityInstanceJson, activityInstanceListSql } from '../wireJson.ts';

export type ActivityRow = Selectable<ActivityInstancesTable>;

/**
 * The columns an ActivityInstance record shows (12 of 17). The reads select only these: every
 * text column costs a new JavaScript string per row, and GetActivityInstsByPIID reads ten rows
 * per call (bench reads, tenth round in docs/performance.md).
 */
export const ACTIVITY_WIRE_COLUMNS = [
  'id', 'proc_inst_id', 'name', 'display_name', 'started_date', 'completed_date', 'due_date', 'in_stack', 'pending', 'session', 'token_pos', 'tokens',
] as const;
export type ActivityWireRow = Pick<ActivityRow, (typeof ACTIVITY_WIRE_COLUMNS)[number]>;

const selectActivity = reusableQuery((db, id: string) => db.selectFrom('activity_instances').selectAll().where('id', '=', id));
// Compiled once (reusableQuery.ts): these two answer GetActivityInst and GetActivityInstsByPIID.
const selectActivityWire = reusableQuery((db, id: string) => db.selectFrom('activity_instances').select(ACTIVITY_WIRE_COLUMNS).where('id', '=', id));
const selectActivitiesOfInstance = reusableQuery((db, procInstId: string) =>
  db.selectFrom('activity_instances').select(ACTIVITY_WIRE_COLUMNS).where('proc_inst_id', '=', procInstId).orderBy('ord'),
);

export async function findActivity(db: Executor, id: string): Promise<ActivityRow | undefined> {
  return (await selectActivity(db, id))[0];
}

/** An activity instance's shown columns (GetActivityInst). */
export async function findActivityWire(db: Executor, id: string): Promise<ActivityWireRow | undefined> {
  return (await selectActivityWire(db, id))[0];
}

/** The shown columns of an instance's activity instances, in the order they were entered. */
export function listActivitiesOfInstance(db: Executor, procInstId: string): Promise<ActivityWireRow[]> {
  return selectActivitiesOfInstance(db, procInstId);
}

// The same two reads with each record as JSON text written by SQLite (wireJson.ts), for `now`.
const selectActivityJson = reusableQuery((db, id: string) => db.selectFrom('activity_instances').select(activityInstanceJson()).where('id', '=', id));
// SQLite only (`indexed by`), and only ever run through `now`, which PostgreSQL never reaches.
const selectActivitiesOfInstanceJson = reusableQuery((db, procInstId: string) => ({ compile: () => activityInstanceListSql(procInstId).compile(db) }));

/**
 * GetActivityInst's record as JSON text at once, where the database reads synchronously
 * (ReusableQuery.now): `{ json }` (json undefined: no such activity instance), or undefined where
 * it does not.
 */
export function findActivityJsonNow(db: Executor, id: string): { json: string | undefined } | undefined {
  const rows = selectActivityJson.now(db, id);
  return rows && { json: rows[0]?.json };
}

/**
 * The records of an instance's activity instances as one JSON array text, in order (`[]`: none),
 * at once; or undefined (as above).
 */
export function listActivitiesOfInstanceJsonNow(db: Executor, procInstId: string): string | undefined {
  return selectActivitiesOfInstanceJson.now(db, procInstId)?.[0]?.json;
}

export function listActiveActivities(db: Executor, procInstId: string): Promise<ActivityRow[]> {
  return selectActivitiesInStatus(db, procInstId, 'Active');
}

const selectActivitiesInStatus = reusableQuery((db, procInstId: string, status: string) =>
  db.selectFrom('activity_instances').selectAll().where('proc_inst_id', '=', procInstId).where('status', '=', status).orderBy('ord'),
);

/** How many times an element has been entered in an instance (for Session). */
export async function countVisits(db: Executor, procInstId: string, name: string): Promise<number> {
  const [r] = await selectVisits(db, procInstId, name);
  return Number(r.n);
}

const selectVisits = reusableQuery((db, procInstId: string, name: string) =>
  db
    .selectFrom('activity_instances')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('proc_inst_id', '=', procInstId)
    .where('name', '=', name),
);

const insertActivityRow = reusableInsert('activity_instances');

export async function insertActivity(db: Executor, row: Insertable<ActivityInstancesTable>): Promise<void> {
  await insertActivityRow(db, row);
}

export function updateActivity(db: Executor, id: string, patch: Updateable<ActivityInstancesTable>): Promise<void> {
  return updateActivityRow(db, id, patch);
}

const updateActivityRow = reusableUpdate('activity_instances', 'id');

/** Cancel every active activity of an instance. */
export async function cancelActiveActivities(db: Executor, procInstId: string, now: number): Promise<void> {
  await cancelActive(db, now, procInstId);
}

// Compiled once (reusableQuery.ts): every canceled instance runs it.
const cancelActive = reusableStatement((db, now: number, procInstId: string) =>
  db
    .updateTable('activity_instances')
    .set({ status: sql.lit('Canceled'), in_stack: sql.lit(0), pending: sql.lit(0), token_pos: sql.lit(0), completed_date: now })
    .where('proc_inst_id', '=', procInstId)
    .where('status', '=', sql.lit('Active')),
);

/** Active activities of one element in one scope, oldest first (the rows a joining token may join). */
export function listActiveOfNode(db: Executor, procInstId: string, name: string, scopeId: string): Promise<ActivityRow[]> {
  return db
    .selectFrom('activity_instances')
    .selectAll()
    .where('proc_inst_id', '=', procInstId)
    .where('status', '=', 'Active')
    .where('name', '=', name)
    .where('scope_id', '=', scopeId)
    .orderBy('ord')
    .execute();
}

/** Cancel one activity: it stops where it is (TokenPos 0, not in stack). */
export async function cancelActivityRow(db: Executor, id: string, now: number): Promise<void> {
  await db
    .updateTable('activity_instances')
    .set({ status: 'Canceled', in_stack: 0, pending: 0, token_pos: 0, completed_date: now })
    .where('id', '=', id)
    .where('status', '=', 'Active')
    .execute();
}
