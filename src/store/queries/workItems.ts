import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { reusableInsert, reusableInsertRows, reusableQuery, reusableStatement, reusableUpdate, type ReusableQuery } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { AutomaticWorkItemsTable, WorkItemsTable } from '../schema.ts';
import { keptRows } from '../transactionRows.ts';
import { workItemJson, workListSql } from '../wireJson.ts';
import type { InstanceRow } from './instances.ts';

export type WorkItemRow = Selectable<WorkItemsTable>;
export type ProcedureRow = Selectable<AutomaticWorkItemsTable>;

const selectWorkItem = reusableQuery((db, id: string) => db.selectFrom('work_items').selectAll().where('work_item_id', '=', id));

/**
 * Inside a transaction on the single SQLite writer, an item read here or by
 * findWorkItemWithContext is kept for the rest of the transaction (transactionRows.ts), as
 * instance rows are: every write to work_items goes through this file, and each keeps the kept
 * rows current (updateWorkItem) or forgets the ones it changed (the rest). Why: the admission of
 * a work-item call reads the item, and applying its event in the same group commit read it
 * again (AssignWorkItem, UndoAssignWorkItem, CompleteWorkItem; docs/performance.md, nineteenth
 * round).
 */
export async function findWorkItem(db: Executor, id: string): Promise<WorkItemRow | undefined> {
  const kept = keptWorkItems(db);
  const hit = kept?.get(id);
  if (hit) return { ...hit };
  const row = (await selectWorkItem(db, id))[0];
  if (row && kept) kept.set(id, { ...row });
  return row;
}

/** The items kept for the transaction `db` (undefined where none are kept): see findWorkItem. */
export function keptWorkItems(db: Executor): Map<string, WorkItemRow> | undefined {
  return keptRows<WorkItemRow>(db, 'work_items');
}

/** The instance fields a work item's wire record shows, under a `p_` prefix (see splitItemRow). */
const INSTANCE_FIELDS = [
  'p.proc_inst_id as p_proc_inst_id',
  'p.def_id as p_def_id',
  'p.def_name as p_def_name',
  'p.proc_inst_name as p_proc_inst_name',
  'p.status as p_status',
  'p.work_object_id as p_work_object_id',
] as const;

// Compiled once (reusableQuery.ts): GetWorkItem.
const selectWorkItemWithInstance = reusableQuery((db, id: string) =>
  db
    .selectFrom('work_items as w')
    .leftJoin('process_instances as p', 'p.proc_inst_id', 'w.proc_inst_id')
    .selectAll('w')
    .select(INSTANCE_FIELDS)
    .where('w.work_item_id', '=', id),
);

type ItemWithFields = WorkItemRow & {
  p_proc_inst_id: string | null;
  p_def_id: string | null;
  p_def_name: string | null;
  p_proc_inst_name: string | null;
  p_status: string | null;
  p_work_object_id: string | null;
};

function splitItemRow(row: ItemWithFields): { item: WorkItemRow; instance: WorkItemInstanceFields | undefined } {
  const { p_proc_inst_id, p_def_id, p_def_name, p_proc_inst_name, p_status, p_work_object_id, ...item } = row;
  const instance =
    p_proc_inst_id === null
      ? undefined
      : { def_id: p_def_id ?? '', def_name: p_def_name ?? '', proc_inst_name: p_proc_inst_name ?? '', status: p_status ?? '', work_object_id: p_work_object_id ?? '' };
  return { item, instance };
}

/** The fields of its process instance that a work item's wire record shows. */
export type WorkItemInstanceFields = Pick<InstanceRow, 'def_id' | 'def_name' | 'proc_inst_name' | 'status' | 'work_object_id'>;

/**
 * A work item with the fields of its instance it shows, in one statement: GetWorkItem read the
 * item and then the whole instance row (two statements, two awaits per call).
 */
export async function findWorkItemWithInstance(
  db: Executor,
  id: string,
): Promise<{ item: WorkItemRow; instance: WorkItemInstanceFields | undefined } | undefined> {
  const [row] = await selectWorkItemWithInstance(db, id);
  return row ? splitItemRow(row as ItemWithFields) : undefined;
}

// GetWorkItem's record as JSON text written by SQLite (wireJson.ts), for `now`.
const selectWorkItemJson = reusableQuery((db, id: string) =>
  db
    .selectFrom('work_items as w')
    .leftJoin('process_instances as p', 'p.proc_inst_id', 'w.proc_inst_id')
    .select(workItemJson())
    .where('w.work_item_id', '=', id),
);

/**
 * GetWorkItem's record as JSON text at once, where the database reads synchronously
 * (ReusableQuery.now): `{ json }` (json undefined: no such work item), or undefined where it does not.
 */
export function findWorkItemJsonNow(db: Executor, id: string): { json: string | undefined } | undefined {
  const rows = selectWorkItemJson.now(db, id);
  return rows && { json: rows[0]?.json };
}

const insertWorkItemRow = reusableInsert('work_items');

export async function insertWorkItem(db: Executor, row: Insertable<WorkItemsTable>): Promise<void> {
  await insertWorkItemRow(db, row);
  // Not kept: columns the row leaves out take the database's defaults. (A new id was not kept.)
  keptWorkItems(db)?.delete(row.work_item_id);
}

/** Statuses after which an item is never offered to its pool again. */
const FINISHED = new Set(['Completed', 'Canceled']);

export async function updateWorkItem(db: Executor, id: string, patch: Updateable<WorkItemsTable>): Promise<void> {
  await updateWorkItemRow(db, id, patch);
  const kept = keptWorkItems(db);
  const hit = kept?.get(id);
  if (hit) {
    // A value that is not a plain one (an expression) would leave the kept row unknown: drop it.
    const plain = Object.values(patch).every((v) => v === null || ['string', 'number', 'bigint'].includes(typeof v));
    if (plain) Object.assign(hit, patch);
    else kept!.delete(id);
  }
  if (typeof patch.status === 'string' && FINISHED.has(patch.status)) await dropPools(db, [id]);
}

/**
 * A finished item's pool is dropped: pools are read on every work-list call ("which New items
 * may I take?"), and a pool table that kept every finished item would make that call slower
 * with every task ever done. Who took part stays in `participants`.
 */
async function dropPools(db: Executor, ids: string[]): Promise<void> {
  if (ids.length === 1) {
    await deletePool(db, ids[0]);
    return;
  }
  for (let i = 0; i < ids.length; i += 500) {
    await db.deleteFrom('work_item_pool').where('work_item_id', 'in', ids.slice(i, i + 500)).execute();
  }
}

/** Open items that were linked to `sourceId` with bDependent true: they block completing the source. */
export function findOpenDependents(db: Executor, sourceId: string): Promise<WorkItemRow[]> {
  return db
    .selectFrom('work_items')
    .selectAll()
    .where('source_work_item_id', '=', sourceId)
    // The partial index's condition (migration 0004); sourceId is a work item id, never ''.
    .where('source_work_item_id', '<>', sql.lit(''))
    .where('wait_work_performed', '=', 1)
    .where('status', 'in', ['New', 'Assigned', 'Overdue'])
    .orderBy('work_item_id')
    .execute();
}

export function listOpenWorkItemsOfActivity(db: Executor, activityInstId: string): Promise<WorkItemRow[]> {
  return db
    .selectFrom('work_items')
    .selectAll()
    .where('activity_inst_id', '=', activityInstId)
    .where('status', 'in', ['New', 'Assigned', 'Overdue'])
    .execute();
}

export function cancelOpenWorkItemsOfInstance(db: Executor, procInstId: string, now: number, by: string): Promise<string[]> {
  return cancelOpenWorkItems(db, 'proc_inst_id', procInstId, now, by);
}

/** Work items that ending their instance or activity cancels: the open ones and carbon copies. */
export const CANCELABLE_WORK_ITEM_STATUSES = ['New', 'Assigned', 'Overdue', 'Carbon'];
/** Automatic work items that ending their instance or activity cancels. */
export const WAITING_PROCEDURE_STATUSES = ['Running', 'Waiting', 'Overdue'];

/** Cancel the open work items of an instance or of one activity; drops their pools; returns their ids. */
async function cancelOpenWorkItems(
  db: Executor,
  column: 'proc_inst_id' | 'activity_inst_id',
  value: string,
  now: number,
  by: string,
): Promise<string[]> {
  const rows = await (column === 'proc_inst_id' ? cancelOpenOfInstance : cancelOpenOfActivity)(db, now, by, now, value);
  const ids = rows.map((r) => r.work_item_id);
  const kept = keptWorkItems(db);
  for (const id of ids) kept?.delete(id);
  if (ids.length > 0) await dropPools(db, ids);
  return ids;
}

/** Compiled once per column (reusableQuery.ts): every canceled instance or activity runs one. */
function cancelOpenBy(column: 'proc_inst_id' | 'activity_inst_id') {
  return reusableStatement((db, now: number, by: string, modified: number, value: string) =>
    db
      .updateTable('work_items')
      .set({ status: sql.lit('Canceled'), cancelled_date: now, last_modified_by: by, last_modified_date: modified })
      .where(column, '=', value)
      .where('status', 'in', CANCELABLE_WORK_ITEM_STATUSES.map((s) => sql.lit(s)))
      .returning('work_item_id'),
  );
}
const cancelOpenOfInstance = cancelOpenBy('proc_inst_id');
const cancelOpenOfActivity = cancelOpenBy('activity_inst_id');

export async function addPoolMembers(db: Executor, workItemId: string, members: { key: string; name: string }[]): Promise<void> {
  if (members.length === 0) return;
  await insertPoolRows(db, members.map((m) => ({ work_item_id: workItemId, member_key: m.key, member_name: m.name })));
}

const insertPoolRows = reusableInsertRows('work_item_pool', { ignoreConflicts: true });
const deletePool = reusableStatement((db, id: string) => db.deleteFrom('work_item_pool').where('work_item_id', '=', id));

const updateWorkItemRow = reusableUpdate('work_items', 'work_item_id');

const selectPoolMember = reusableQuery((db, workItemId: string, userKey: string) =>
  db.selectFrom('work_item_pool').select('member_key').where('work_item_id', '=', workItemId).where('member_key', '=', userKey),
);

export async function isPoolMember(db: Executor, workItemId: string, userKey: string): Promise<boolean> {
  return (await selectPoolMember(db, workItemId, userKey)).length > 0;
}

export async function countPoolMembers(db: Executor, workItemId: string): Promise<number> {
  const [r] = await selectPoolSize(db, workItemId);
  return Number(r.n);
}

// Compiled once (reusableQuery.ts): every assignment and undo of a pooled item counts its pool.
const selectPoolSize = reusableQuery((db, workItemId: string) =>
  db
    .selectFrom('work_item_pool')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('work_item_id', '=', workItemId),
);

/** A user's work list: items assigned to the user in `statuses`, plus pooled `New` items the user may take. */
/**
 * A user's work list: items assigned to them in one of `statuses`, and `New` items of pools they
 * are in (when `statuses` has New), each with the fields of its instance that the wire record
 * shows, ordered by id. Two statements compiled once (one per number of statuses for the first),
 * run on the read-only connection: GetWorkListByUserID built both through Kysely on every call and
 * read each item's instance with a statement of its own.
 */
export async function listWorkOfUser(
  db: Executor,
  userKey: string,
  statuses: readonly string[],
): Promise<{ item: WorkItemRow; instance: WorkItemInstanceFields | undefined }[]> {
  // No status asked for (`Status: ";"`): nothing matches (and `IN ()` is not valid everywhere).
  if (statuses.length === 0) return [];
  const own = (await ownItemsQuery(statuses.length)(db, userKey, ...statuses)) as ItemWithFields[];
  const pooled = statuses.includes('New') ? ((await selectPooledNew(db, userKey)) as ItemWithFields[]) : [];
  const seen = new Set(own.map((w) => w.work_item_id));
  return [...own, ...pooled.filter((w) => !seen.has(w.work_item_id))]
    .sort((a, b) => (a.work_item_id < b.work_item_id ? -1 : 1))
    .map(splitItemRow);
}

/**
 * The same work list as one JSON array text written by SQLite (wireJson.ts workListSql), at once
 * where the database reads synchronously (ReusableQuery.now), or undefined where it does not
 * (PostgreSQL, inside a transaction). GetWorkListByUserID is one of the four calls of `bench e2e`.
 */
export function listWorkOfUserJsonNow(db: Executor, userKey: string, statuses: readonly string[]): string | undefined {
  if (statuses.length === 0) return '[]';
  const withPooled = statuses.includes('New');
  const key = `${statuses.length}${withPooled ? '+pooled' : ''}`;
  let query = workListQueries.get(key);
  if (!query) {
    const n = statuses.length;
    // SQLite only (an aggregate ORDER BY), and only ever run through `now`, which PostgreSQL never reaches.
    query = reusableQuery((db, ...values: string[]) => ({
      compile: () => workListSql(values[0], values.slice(1, 1 + n), withPooled ? values[1 + n] : undefined).compile(db),
    }));
    workListQueries.set(key, query);
  }
  const values = withPooled ? [userKey, ...statuses, userKey] : [userKey, ...statuses];
  return query.now(db, ...values)?.[0]?.json;
}

const workListQueries = new Map<string, ReusableQuery<string[], { json: string }>>();

const ownItemsQueries = new Map<number, (db: Executor, ...values: string[]) => Promise<unknown[]>>();

function ownItemsQuery(statusCount: number): (db: Executor, ...values: string[]) => Promise<unknown[]> {
  let query = ownItemsQueries.get(statusCount);
  if (!query) {
    query = reusableQuery((db, userKey: string, ...statuses: string[]) =>
      db
        .selectFrom('work_items as w')
        .leftJoin('process_instances as p', 'p.proc_inst_id', 'w.proc_inst_id')
        .selectAll('w')
        .select(INSTANCE_FIELDS)
        .where('w.user_key', '=', userKey)
        .where('w.status', 'in', statuses),
    );
    ownItemsQueries.set(statusCount, query);
  }
  return query;
}

const selectPooledNew = reusableQuery((db, userKey: string) =>
  db
    .selectFrom('work_item_pool as m')
    .innerJoin('work_items as w', 'w.work_item_id', 'm.work_item_id')
    .leftJoin('process_instances as p', 'p.proc_inst_id', 'w.proc_inst_id')
    .selectAll('w')
    .select(INSTANCE_FIELDS)
    .where('m.member_key', '=', userKey)
    .where('w.status', '=', sql.lit('New')),
);

export async function addParticipants(db: Executor, procInstId: string, userKeys: Iterable<string>): Promise<void> {
  const values = [...new Set(userKeys)].filter((k) => k !== '').map((user_key) => ({ proc_inst_id: procInstId, user_key }));
  if (values.length === 0) return;
  await insertParticipantRows(db, values);
}

const insertParticipantRows = reusableInsertRows('participants', { ignoreConflicts: true });

export async function isParticipant(db: Executor, procInstId: string, userKey: string): Promise<boolean> {
  const r = await db
    .selectFrom('participants')
    .select('user_key')
    .where('proc_inst_id', '=', procInstId)
    .where('user_key', '=', userKey)
    .executeTakeFirst();
  return r !== undefined;
}

export function findProcedure(db: Executor, id: string): Promise<ProcedureRow | undefined> {
  return db.selectFrom('automatic_work_items').selectAll().where('work_item_id', '=', id).executeTakeFirst();
}

export async function insertProcedure(db: Executor, row: Insertable<AutomaticWorkItemsTable>): Promise<void> {
  await db.insertInto('automatic_work_items').values(row).execute();
}

export async function updateProcedure(db: Executor, id: string, patch: Updateable<AutomaticWorkItemsTable>): Promise<void> {
  await db.updateTable('automatic_work_items').set(patch).where('work_item_id', '=', id).execute();
}

export async function cancelWaitingProceduresOfInstance(db: Executor, procInstId: string, now: number): Promise<void> {
  await db
    .updateTable('automatic_work_items')
    .set({ status: 'Canceled', completed_date: now })
    .where('proc_inst_id', '=', procInstId)
    .where('status', 'in', WAITING_PROCEDURE_STATUSES)
    .execute();
}

/** Cancel the open work items of an activity; returns their ids. */
export function cancelOpenWorkItemsOfActivity(db: Executor, activityInstId: string, now: number, by: string): Promise<string[]> {
  return cancelOpenWorkItems(db, 'activity_inst_id', activityInstId, now, by);
}

export async function cancelWaitingProceduresOfActivity(db: Executor, activityInstId: string, now: number): Promise<void> {
  await db
    .updateTable('automatic_work_items')
    .set({ status: 'Canceled', completed_date: now })
    .where('activity_inst_id', '=', activityInstId)
    .where('status', 'in', WAITING_PROCEDURE_STATUSES)
    .execute();
}

/** The members of a work item's pool. */
export function listPoolMembers(db: Executor, workItemId: string): Promise<{ member_key: string; member_name: string }[]> {
  return selectPoolMembers(db, workItemId);
}

const selectPoolMembers = reusableQuery((db, workItemId: string) =>
  db.selectFrom('work_item_pool').select(['member_key', 'member_name']).where('work_item_id', '=', workItemId).orderBy('member_key'),
);

/** `Removed` items made for the pool members of `pooledItemId` when someone else took it. */
export function listRemovedItemsOf(db: Executor, pooledItemId: string): Promise<WorkItemRow[]> {
  return selectRemovedItemsOf(db, pooledItemId);
}

// `<> ''` here and below: the partial index's condition (migration 0004); the id is never ''.
const selectRemovedItemsOf = reusableQuery((db, pooledItemId: string) =>
  db.selectFrom('work_items').selectAll().where('removed_from', '=', pooledItemId).where('removed_from', '<>', sql.lit('')),
);

/** The pooled item went back to its pool: its members are no longer `Removed` from it. */
export async function deleteRemovedItemsOf(db: Executor, pooledItemId: string): Promise<void> {
  await deleteRemoved(db, pooledItemId);
  const kept = keptWorkItems(db);
  if (kept) for (const [id, row] of kept) if (row.removed_from === pooledItemId && row.status === 'Removed') kept.delete(id);
}

// Compiled once (reusableQuery.ts): every undone assignment of a pooled item runs it.
const deleteRemoved = reusableStatement((db, pooledItemId: string) =>
  db.deleteFrom('work_items').where('removed_from', '=', pooledItemId).where('removed_from', '<>', sql.lit('')).where('status', '=', sql.lit('Removed')),
);
