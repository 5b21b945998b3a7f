import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { reusableInsert, reusableQuery, reusableStatement, reusableUpdate } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { ActivityInstancesTable } from '../schema.ts';
import { keptRows } from '../transactionRows.ts';
import { activityInstanceJson, activityInstanceListSql } from '../wireJson.ts';

export type ActivityRow = Selectable<ActivityInstancesTable>;

/** Every column of activity_instances: an inserted row that names them all is kept whole. */
const ACTIVITY_COLUMNS = [
  'id', 'proc_inst_id', 'ord', 'name', 'display_name', 'kind', 'status', 'started_date', 'completed_date', 'due_date', 'in_stack', 'pending',
  'session', 'token_pos', 'tokens', 'scope_id', 'arrived',
] as const satisfies readonly (keyof ActivityRow)[];

/** Fails to compile when activity_instances gains a column that ACTIVITY_COLUMNS does not list. */
type MissingActivityColumn = Exclude<keyof ActivityRow, (typeof ACTIVITY_COLUMNS)[number]>;
const allActivityColumnsListed: [MissingActivityColumn] extends [never] ? true : never = true;
void allActivityColumnsListed;

/**
 * Activity rows kept by the single SQLite writer (transactionRows.ts), as instance rows and work
 * items are: every write to activity_instances goes through this file, and each keeps the kept
 * rows current or forgets them.
 *
 * An instance inserted while rows are kept (keepEveryActivityOf, called by insertInstance) has no
 * activity row but those written since, all of them kept: it is "whole", and its active activities
 * and visits are answered from memory (listActiveActivities, listActiveOfNode,
 * hasKeptActiveActivity, countVisits) for as long as the kept rows are. Why: CreateProcInst ran
 * `SELECT ... WHERE status = 'Active'` once its token came to rest, only to learn that the
 * instance it had just started was still running (twenty-fifth round in
 * docs/performance-log.md); and CompleteWorkItem read the task's row and counted the end event's
 * visits, which CreateProcInst had written in an earlier transaction (twenty-sixth round).
 */
function keptActivities(db: Executor): Map<string, ActivityRow> | undefined {
  return keptRows<ActivityRow>(db, 'activity_instances');
}

/** The kept rows of each instance that has any, by instance; `whole`: the instance has no other row. */
interface KeptOfInstance {
  ids: Set<string>;
  whole: boolean;
}

function byInstance(db: Executor): Map<string, KeptOfInstance> | undefined {
  return keptRows<KeptOfInstance>(db, 'activity_instances by instance');
}

/** `procInstId` was just inserted: every activity row it gets from here on is kept. */
export function keepEveryActivityOf(db: Executor, procInstId: string): void {
  byInstance(db)?.set(procInstId, { ids: new Set(), whole: true });
}

/** Keep `row` (a copy), indexed by its instance. */
function keepActivity(db: Executor, row: ActivityRow): void {
  const kept = keptActivities(db);
  const index = byInstance(db);
  if (!kept || !index) return;
  kept.set(row.id, { ...row });
  let of = index.get(row.proc_inst_id);
  if (!of) index.set(row.proc_inst_id, (of = { ids: new Set(), whole: false }));
  of.ids.add(row.id);
}

/** The kept rows of an instance whose every row is kept; undefined for any other instance. */
function wholeRows(db: Executor, procInstId: string): ActivityRow[] | undefined {
  const of = byInstance(db)?.get(procInstId);
  if (!of?.whole) return undefined;
  const kept = keptActivities(db)!;
  return [...of.ids].map((id) => kept.get(id)!);
}

/** The active rows of an instance whose every row is kept, oldest first (copies); undefined otherwise. */
function keptActiveOf(db: Executor, procInstId: string): ActivityRow[] | undefined {
  const rows = wholeRows(db, procInstId);
  if (!rows) return undefined;
  return rows
    .filter((row) => row.status === 'Active')
    .map((row) => ({ ...row }))
    .sort((a, b) => a.ord - b.ord);
}

/** A row changed in a way the kept copy cannot follow: forget it, and that its instance is whole. */
function forgetActivity(db: Executor, row: { id: string; proc_inst_id?: string }): void {
  const kept = keptActivities(db);
  const index = byInstance(db);
  const procInstId = row.proc_inst_id ?? kept?.get(row.id)?.proc_inst_id;
  kept?.delete(row.id);
  const of = procInstId === undefined ? undefined : index?.get(procInstId);
  if (of) {
    of.ids.delete(row.id);
    of.whole = false;
  } else if (procInstId === undefined && kept) {
    // An unknown instance: none can be vouched for.
    kept.clear();
    index?.clear();
  }
}

const isPlain = (v: unknown) => v === null || ['string', 'number', 'bigint'].includes(typeof v);

/**
 * The columns an ActivityInstance record shows (12 of 17). The reads select only these: every
 * text column costs a new JavaScript string per row, and GetActivityInstsByPIID reads ten rows
 * per call (bench reads, tenth round in docs/performance-log.md).
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
  const hit = keptActivities(db)?.get(id);
  if (hit) return { ...hit };
  const row = (await selectActivity(db, id))[0];
  if (row) keepActivity(db, row);
  return row;
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

export async function listActiveActivities(db: Executor, procInstId: string): Promise<ActivityRow[]> {
  return keptActiveOf(db, procInstId) ?? (await selectActiveActivities(db, procInstId));
}

/**
 * Whether an instance whose every activity row is kept (transactionRows.ts) has an active one;
 * undefined for any other instance (no statement is run).
 */
export function hasKeptActiveActivity(db: Executor, procInstId: string): boolean | undefined {
  return wholeRows(db, procInstId)?.some((row) => row.status === 'Active');
}

// `status = 'Active'` written as a literal: the partial index activity_instances_active (migration
// 0006) serves only a query that writes its condition.
const selectActiveActivities = reusableQuery((db, procInstId: string) =>
  db.selectFrom('activity_instances').selectAll().where('proc_inst_id', '=', procInstId).where('status', '=', sql.lit('Active')).orderBy('ord'),
);

/** How many times an element has been entered in an instance (for Session). */
export async function countVisits(db: Executor, procInstId: string, name: string): Promise<number> {
  const kept = wholeRows(db, procInstId);
  if (kept) return kept.reduce((n, row) => (row.name === name ? n + 1 : n), 0);
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

/**
 * The activity rows a transaction has written as Active and not changed since (id -> instance),
 * where rows are not kept from one transaction to the next (PostgreSQL): a row a transaction
 * inserted or updated is its own until it ends (no other transaction sees an insert before its
 * commit, and an updated row stays locked), so such a row is Active now. An instance with one is
 * not idle: CreateProcInst's token comes to rest at the task it has just entered, and its probe
 * of what is still open (openParts.ts) learned only that (1 of the ~34 statements of a completed
 * e2e instance on PostgreSQL, docs/performance-log.md, thirty-third round). Forgotten when a
 * savepoint is rolled back (savepoint.ts); a transaction that fails takes its map with it.
 */
const writtenActive = new WeakMap<Executor, Map<string, string>>();

function noteWritten(db: Executor, id: string, procInstId: string | undefined, status: unknown): void {
  if (!db.isTransaction) return;
  let written = writtenActive.get(db);
  if (status === 'Active' && procInstId !== undefined) {
    if (!written) writtenActive.set(db, (written = new Map()));
    written.set(id, procInstId);
  } else written?.delete(id);
}

/** Whether this transaction has written an activity of the instance as Active that it has not changed since. */
export function hasWrittenActiveActivity(db: Executor, procInstId: string): boolean {
  const written = writtenActive.get(db);
  if (written) for (const of of written.values()) if (of === procInstId) return true;
  return false;
}

/** A savepoint of `db` was rolled back: what it wrote may be undone. */
export function forgetWrittenActivities(db: Executor): void {
  writtenActive.delete(db);
}

const insertActivityRow = reusableInsert('activity_instances');

export async function insertActivity(db: Executor, row: Insertable<ActivityInstancesTable>): Promise<void> {
  await insertActivityRow(db, row);
  noteWritten(db, row.id, row.proc_inst_id, row.status);
  if (!keptActivities(db)) return;
  // Kept only when the row names every column in plain values (no default filled in by the database).
  const values = row as Record<string, unknown>;
  if (ACTIVITY_COLUMNS.every((c) => values[c] !== undefined && isPlain(values[c]))) keepActivity(db, row as ActivityRow);
  else forgetActivity(db, row);
}

export async function updateActivity(db: Executor, id: string, patch: Updateable<ActivityInstancesTable>): Promise<void> {
  await updateActivityRow(db, id, patch);
  // Its instance is not in the patch: a row updated to Active is not noted (only ever missed).
  if (patch.status !== undefined) noteWritten(db, id, undefined, patch.status);
  const hit = keptActivities(db)?.get(id);
  if (!hit) return;
  if (Object.values(patch).every(isPlain)) Object.assign(hit, patch);
  else forgetActivity(db, hit);
}

const updateActivityRow = reusableUpdate('activity_instances', 'id');

/** Cancel every active activity of an instance. */
export async function cancelActiveActivities(db: Executor, procInstId: string, now: number): Promise<void> {
  await cancelActive(db, now, procInstId);
  const written = writtenActive.get(db);
  if (written) for (const [id, of] of written) if (of === procInstId) written.delete(id);
  const kept = keptActivities(db);
  for (const id of byInstance(db)?.get(procInstId)?.ids ?? []) {
    const row = kept!.get(id)!;
    if (row.status === 'Active') Object.assign(row, canceled(now));
  }
}

/** What canceling does to an active row (the two statements below set the same). */
const canceled = (now: number) => ({ status: 'Canceled', in_stack: 0, pending: 0, token_pos: 0, completed_date: now });

// Compiled once (reusableQuery.ts): every canceled instance runs it.
const cancelActive = reusableStatement((db, now: number, procInstId: string) =>
  db
    .updateTable('activity_instances')
    .set({ status: sql.lit('Canceled'), in_stack: sql.lit(0), pending: sql.lit(0), token_pos: sql.lit(0), completed_date: now })
    .where('proc_inst_id', '=', procInstId)
    .where('status', '=', sql.lit('Active')),
);

/** Active activities of one element in one scope, oldest first (the rows a joining token may join). */
export async function listActiveOfNode(db: Executor, procInstId: string, name: string, scopeId: string): Promise<ActivityRow[]> {
  const kept = keptActiveOf(db, procInstId);
  if (kept) return kept.filter((row) => row.name === name && row.scope_id === scopeId);
  return db
    .selectFrom('activity_instances')
    .selectAll()
    .where('proc_inst_id', '=', procInstId)
    .where('status', '=', sql.lit('Active'))
    .where('name', '=', name)
    .where('scope_id', '=', scopeId)
    .orderBy('ord')
    .execute();
}

/** Cancel one activity: it stops where it is (TokenPos 0, not in stack). */
export async function cancelActivityRow(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('activity_instances').set(canceled(now)).where('id', '=', id).where('status', '=', sql.lit('Active')).execute();
  noteWritten(db, id, undefined, 'Canceled');
  const hit = keptActivities(db)?.get(id);
  if (hit?.status === 'Active') Object.assign(hit, canceled(now));
}
