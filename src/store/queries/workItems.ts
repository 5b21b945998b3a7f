import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { reusableInsert, reusableInsertRows, reusableQuery, reusableStatement, reusableUpdate } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { AutomaticWorkItemsTable, WorkItemsTable } from '../schema.ts';
import { keptOrRead, keptRows } from '../transactionRows.ts';
import { forgetDependentsFlag, forgetPoolFlags, keepNewItemFlags, poolMembersAdded } from './workItemFlags.ts';

export type WorkItemRow = Selectable<WorkItemsTable>;
export type ProcedureRow = Selectable<AutomaticWorkItemsTable>;

const selectWorkItem = reusableQuery((db, id: string) => db.selectFrom('work_items').selectAll().where('work_item_id', '=', id));

/**
 * Inside a transaction on the single SQLite writer, an item read here or by
 * findWorkItemWithContext is kept, from one transaction to the next while nothing else writes
 * (transactionRows.ts), as instance rows are: every write to work_items goes through this file,
 * and each keeps the kept rows current (insertWorkItem, updateWorkItem) or forgets the ones it
 * changed (the rest). Why: the admission of
 * a work-item call reads the item, and applying its event in the same group commit read it
 * again (AssignWorkItem, UndoAssignWorkItem, CompleteWorkItem; docs/performance-log.md, nineteenth
 * round).
 */
export async function findWorkItem(db: Executor, id: string): Promise<WorkItemRow | undefined> {
  return keptOrRead(keptWorkItems(db), id, () => selectWorkItem(db, id), mayKeep);
}

/**
 * `Removed` items are never kept: deleteRemovedItemsOf deletes them by the item they were removed
 * from, and would otherwise have to look through every kept item.
 */
export function mayKeep(row: WorkItemRow): boolean {
  return row.status !== 'Removed';
}

/** The items kept on the connection of `db` (undefined where none are kept): see findWorkItem. */
export function keptWorkItems(db: Executor): Map<string, WorkItemRow> | undefined {
  return keptRows<WorkItemRow>(db, 'work_items');
}

const insertWorkItemRow = reusableInsert('work_items');

/**
 * A new item with every column named: those the row leaves out get the values the schema gives
 * them (migrations; test/store/keptWorkItems.test.ts compares the two), so that the row written is
 * the row kept. A literal of the 25 columns: `{ ...DEFAULTS, ...row }` took ~18 µs per item here
 * (V8's slow path for a spread followed by keys the first object lacks), the literal ~0.3 µs. It
 * fails to compile when work_items gains a column.
 */
function wholeWorkItem(r: Insertable<WorkItemsTable>): WorkItemRow {
  return {
    work_item_id: r.work_item_id, proc_inst_id: r.proc_inst_id, activity_inst_id: r.activity_inst_id, name: r.name, display_name: r.display_name,
    status: r.status, user_id: r.user_id ?? '', user_key: r.user_key ?? '', original_user_id: r.original_user_id ?? '',
    client_data: r.client_data ?? null, created_date: r.created_date, assigned_date: r.assigned_date ?? null, completed_date: r.completed_date ?? null,
    cancelled_date: r.cancelled_date ?? null, activated_date: r.activated_date ?? null, due_date: r.due_date ?? null,
    source_work_item_id: r.source_work_item_id ?? '', wait_work_performed: r.wait_work_performed ?? 0, session: r.session, priority: r.priority ?? '',
    pool_info: r.pool_info ?? '', last_modified_by: r.last_modified_by, last_modified_date: r.last_modified_date, independent: r.independent ?? 0,
    removed_from: r.removed_from ?? '',
  };
}

const isPlain = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint';

function allPlain(row: object): boolean {
  for (const v of Object.values(row)) if (!isPlain(v)) return false;
  return true;
}

export async function insertWorkItem(db: Executor, row: Insertable<WorkItemsTable>): Promise<void> {
  const whole = wholeWorkItem(row);
  await insertWorkItemRow(db, whole);
  const kept = keptWorkItems(db);
  // Kept from here on (its transaction and the next ones: AssignWorkItem's admission reads it
  // there), with its pool known to be empty until addPoolMembers fills it; never a Removed copy.
  if (kept && mayKeep(whole) && allPlain(whole)) {
    kept.set(whole.work_item_id, { ...whole });
    keepNewItemFlags(db, whole.work_item_id);
  } else kept?.delete(whole.work_item_id);
  forgetDependentsFlag(db, whole.source_work_item_id);
}

/** Statuses after which an item is never offered to its pool again. */
const FINISHED = new Set(['Completed', 'Canceled']);

export async function updateWorkItem(db: Executor, id: string, patch: Updateable<WorkItemsTable>): Promise<void> {
  await updateWorkItemRow(db, id, patch);
  const kept = keptWorkItems(db);
  const hit = kept?.get(id);
  // The columns that decide whether the item is an open dependent of its source (workItemFlags.ts).
  if (patch.status !== undefined || patch.wait_work_performed !== undefined || patch.source_work_item_id !== undefined) {
    forgetDependentsFlag(db, hit?.source_work_item_id);
    if (typeof patch.source_work_item_id === 'string') forgetDependentsFlag(db, patch.source_work_item_id);
  }
  if (hit) {
    // A value that is not a plain one (an expression) would leave the kept row unknown: drop it.
    const plain = allPlain(patch);
    if (plain && patch.status !== 'Removed') Object.assign(hit, patch);
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
  forgetPoolFlags(db, ids);
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
  // Which sources the canceled items depended on is not known here.
  if (ids.length > 0) forgetDependentsFlag(db, undefined);
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
  poolMembersAdded(db, workItemId, members.map((m) => m.key));
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
  // Nothing kept changes: Removed items are not kept (mayKeep), and one is never open and has no
  // pool (workItemFlags.ts).
}

// Compiled once (reusableQuery.ts): every undone assignment of a pooled item runs it.
const deleteRemoved = reusableStatement((db, pooledItemId: string) =>
  db.deleteFrom('work_items').where('removed_from', '=', pooledItemId).where('removed_from', '<>', sql.lit('')).where('status', '=', sql.lit('Removed')),
);
