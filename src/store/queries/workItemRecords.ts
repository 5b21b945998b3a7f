/**
 * The reads that answer with the wire's WorkItem records (GetWorkItem, GetWorkListByUserID): each
 * item with the fields of its process instance that the record shows. The engine's own reads and
 * writes of work items are in workItems.ts.
 */
import { sql } from 'kysely';
import { reusableQuery, type ReusableQuery } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import { workItemJson, workListSql } from '../wireJson.ts';
import type { InstanceRow } from './instances.ts';
import type { WorkItemRow } from './workItems.ts';

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
