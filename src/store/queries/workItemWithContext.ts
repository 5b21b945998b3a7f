/**
 * What the admission of a work-item call reads, and the application of AssignWorkItem and
 * CompleteWorkItem, in one statement: the item, its process instance, and (when asked) whether a
 * user is in its pool, how large the pool is, and whether open dependent items block it. It
 * replaces two to four statements (findWorkItem, isPoolMember, findOpenDependents, findInstance,
 * listPoolMembers), each a round through Kysely, the statement cache and a promise.
 */
import { sql, type Compilable } from 'kysely';
import { capsOf } from '../dialect.ts';
import { reusableQuery } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import { INSTANCE_COLUMNS, keptInstance, rememberInstance, type InstanceRow } from './instances.ts';
import { holdsEvents, notePredrawnSeq, SEQ_AFTER_LOCK } from './transactionEvents.ts';
import { keptItemFlags } from './workItemFlags.ts';
import { keptWorkItems, mayKeep, type WorkItemRow } from './workItems.ts';

export interface WorkItemWithContext {
  item: WorkItemRow;
  /** Undefined when the item names an instance that does not exist. */
  instance: InstanceRow | undefined;
  /** Whether `poolMemberKey` is in the item's pool (false when not asked). */
  poolMember: boolean;
  /** Whether an open item linked to this one with bDependent true exists (false when not asked). */
  openDependents: boolean;
  /** How many members the item's pool has (0 when not asked). */
  poolSize: number;
}

export interface WorkItemReadOptions {
  poolMemberKey?: string;
  openDependents?: boolean;
  poolSize?: boolean;
  /**
   * The caller admits an event of the item's instance next (an admission): where row locks exist
   * and events are held, the same statement locks the instance and draws the event's seq
   * (transactionEvents.ts, notePredrawnSeq), one round trip instead of two.
   */
  forEvent?: boolean;
}

/** `p_<column>` -> column, and the computed columns that belong to neither row. */
const PREFIXED = new Map<string, string>(INSTANCE_COLUMNS.map((c) => [`p_${c}`, c]));
const FLAGS = new Set(['pool_member', 'open_dependents', 'pool_size', 'event_seq']);

/** Fails to compile when process_instances gains a column that INSTANCE_COLUMNS does not list. */
type MissingInstanceColumn = Exclude<keyof InstanceRow, (typeof INSTANCE_COLUMNS)[number]>;
const allInstanceColumnsListed: [MissingInstanceColumn] extends [never] ? true : never = true;
void allInstanceColumnsListed;

/**
 * The statement, built and compiled once per shape (reusableQuery.ts): it carries 22 aliased
 * columns and up to two sub-queries, and building it anew for every admission was 3.5 % (Kysely's
 * `freeze`) + 3.3 % (`visitNode`) of the server's CPU in `bench e2e`. Its only parameters are the
 * pool member (when asked) and the item id; the constants are literals. `rows` false: the asked
 * flags alone, for an item and instance kept (transactionRows.ts; findWorkItemWithContext).
 */
function buildQuery(db: Executor, rows: boolean, withPool: boolean, withDependents: boolean, withPoolSize: boolean, values: string[]) {
  const [poolMemberKey, workItemId] = withPool ? values : [undefined, values[0]];
  return db
    .selectFrom('work_items as w')
    .$if(rows, (q) =>
      q
        .leftJoin('process_instances as p', 'p.proc_inst_id', 'w.proc_inst_id')
        .selectAll('w')
        .select(INSTANCE_COLUMNS.map((c) => sql.ref(`p.${c}`).as(`p_${c}`))),
    )
    .$if(withPool, (q) =>
      q.select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('work_item_pool as m')
              .select('m.member_key')
              .whereRef('m.work_item_id', '=', 'w.work_item_id')
              .where('m.member_key', '=', poolMemberKey ?? ''),
          )
          .as('pool_member'),
      ),
    )
    // The same condition as findOpenDependents (workItems.ts), which names them when this is true.
    .$if(withDependents, (q) =>
      q.select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('work_items as d')
              .select('d.work_item_id')
              .whereRef('d.source_work_item_id', '=', 'w.work_item_id')
              // The partial index's condition (migration 0004).
              .where('d.source_work_item_id', '<>', sql.lit(''))
              .where('d.wait_work_performed', '=', sql.lit(1))
              .where('d.status', 'in', [sql.lit('New'), sql.lit('Assigned'), sql.lit('Overdue')]),
          )
          .as('open_dependents'),
      ),
    )
    .$if(withPoolSize, (q) =>
      q.select((eb) =>
        eb
          .selectFrom('work_item_pool as s')
          .select((c) => c.fn.countAll<number>().as('n'))
          .whereRef('s.work_item_id', '=', 'w.work_item_id')
          .as('pool_size'),
      ),
    )
    .where('w.work_item_id', '=', workItemId);
}

/**
 * The same read with the item's instance locked and an event's seq drawn after the lock, in one
 * statement (PostgreSQL): `locked` is a CTE that only the seq's sub-query reads, so the lock is
 * taken once the item's row is found and `nextval` runs after it (as in transactionEvents.ts's
 * drawSeqLockingInstance). The item and instance are read as of the statement's start, as the
 * admission's read always was (the application reads them again under the lock); an item that
 * names no instance gets no seq. Its values: the item id (for the lock), then buildQuery's.
 */
function buildLocking(db: Executor, withPool: boolean, withDependents: boolean, withPoolSize: boolean, values: string[]) {
  const [lockedItemId, ...rest] = values;
  return db
    .with('locked', (q) =>
      q
        .selectFrom('process_instances')
        .select('proc_inst_id')
        .where('proc_inst_id', '=', (eb) => eb.selectFrom('work_items').select('proc_inst_id').where('work_item_id', '=', lockedItemId))
        .forUpdate(),
    )
    .selectFrom(buildQuery(db, true, withPool, withDependents, withPoolSize, rest).as('q'))
    .selectAll('q')
    .select(sql.raw<number | string | null>(SEQ_AFTER_LOCK).as('event_seq'));
}

/** One compiled statement per combination of options: index (pool ? 4 : 0) + (dependents ? 2 : 0) + (size ? 1 : 0). */
const SHAPES = shapes((db, withPool, withDependents, withPoolSize, values) => buildQuery(db, true, withPool, withDependents, withPoolSize, values));
/** The same, the flags alone (index 0, no flag, is never run). */
const FLAG_SHAPES = shapes((db, withPool, withDependents, withPoolSize, values) => buildQuery(db, false, withPool, withDependents, withPoolSize, values));
/** The same as SHAPES, locking the instance and drawing an event's seq (PostgreSQL admissions). */
const LOCKING_SHAPES = shapes(buildLocking);

function shapes<R>(build: (db: Executor, withPool: boolean, withDependents: boolean, withPoolSize: boolean, values: string[]) => Compilable<R>) {
  return [false, true].flatMap((withPool) =>
    [false, true].flatMap((withDependents) =>
      [false, true].map((withPoolSize) => reusableQuery((db, ...values: string[]) => build(db, withPool, withDependents, withPoolSize, values))),
    ),
  );
}

export async function findWorkItemWithContext(
  db: Executor,
  workItemId: string,
  opts: WorkItemReadOptions = {},
): Promise<WorkItemWithContext | undefined> {
  const { poolMemberKey, openDependents, poolSize } = opts;
  const withPool = poolMemberKey !== undefined;
  const shape = (withPool ? 4 : 0) + (openDependents === true ? 2 : 0) + (poolSize === true ? 1 : 0);
  const values = withPool ? [poolMemberKey, workItemId] : [workItemId];
  // The item and its instance kept (transactionRows.ts: the admission of the call, or an earlier
  // transaction, read or wrote them):
  // only the flags asked for and not kept with them are read, and no statement runs when none is.
  const keptItem = keptWorkItems(db)?.get(workItemId);
  const keptParent = keptItem && keptInstance(db, keptItem.proc_inst_id);
  if (keptItem && keptParent) {
    const known = keptFlagsFor(db, workItemId, opts);
    if (known || shape === 0) return withFlags({ ...keptItem }, keptParent, known);
    const flags = (await FLAG_SHAPES[shape](db, ...values))[0] as Record<string, unknown> | undefined;
    keepFlags(db, workItemId, opts, flags);
    return withFlags({ ...keptItem }, keptParent, flags);
  }
  const locking = opts.forEvent === true && capsOf(db)?.rowLocks === true && holdsEvents(db);
  const [row] = locking ? await LOCKING_SHAPES[shape](db, workItemId, ...values) : await SHAPES[shape](db, ...values);
  if (!row) return undefined;
  const columns = row as unknown as Record<string, unknown>;
  // Split in one pass: deleting the prefixed keys from the row instead (as this did) turned it
  // into a slow dictionary object, 2.7 % self time of the writer thread in `bench e2e`.
  const item: Record<string, unknown> = {};
  const instance: Record<string, unknown> = {};
  for (const key in columns) {
    const instanceColumn = PREFIXED.get(key);
    if (instanceColumn !== undefined) instance[instanceColumn] = columns[key];
    else if (!FLAGS.has(key)) item[key] = columns[key];
  }
  const found = instance.proc_inst_id === null || instance.proc_inst_id === undefined ? undefined : (instance as InstanceRow);
  if (found) rememberInstance(db, found);
  if (locking && found && columns.event_seq !== null && columns.event_seq !== undefined) notePredrawnSeq(db, found.proc_inst_id, Number(columns.event_seq));
  const kept = keptWorkItems(db);
  if (kept && mayKeep(item as WorkItemRow)) {
    kept.set(workItemId, { ...(item as WorkItemRow) });
    keepFlags(db, workItemId, opts, columns);
  }
  return withFlags(item as WorkItemRow, found, columns);
}

/**
 * The flags asked for, as the statement's columns, when every one of them is kept
 * (workItemFlags.ts); undefined when one is not (or none is asked).
 */
function keptFlagsFor(db: Executor, workItemId: string, opts: WorkItemReadOptions): Record<string, unknown> | undefined {
  const flags = keptItemFlags(db)?.get(workItemId);
  if (!flags) return undefined;
  const { pool } = flags;
  const member = opts.poolMemberKey === undefined ? false : pool ? pool.has(opts.poolMemberKey) : flags.poolMember.get(opts.poolMemberKey);
  const size = pool ? pool.size : flags.poolSize;
  if (member === undefined) return undefined;
  if (opts.openDependents === true && flags.openDependents === undefined) return undefined;
  if (opts.poolSize === true && size === undefined) return undefined;
  if (opts.poolMemberKey === undefined && opts.openDependents !== true && opts.poolSize !== true) return undefined;
  // Only what was asked for, as the statement answers: a flag not asked is false (0).
  return { pool_member: member, open_dependents: opts.openDependents === true && flags.openDependents, pool_size: opts.poolSize === true ? size : 0 };
}

/** Keeps the flags a statement answered, as the row is kept (transactionRows.ts). */
function keepFlags(db: Executor, workItemId: string, opts: WorkItemReadOptions, columns: Record<string, unknown> | undefined): void {
  const kept = keptItemFlags(db);
  if (!kept || !columns) return;
  let flags = kept.get(workItemId);
  if (!flags) kept.set(workItemId, (flags = { poolMember: new Map() }));
  if (opts.poolMemberKey !== undefined) flags.poolMember.set(opts.poolMemberKey, Boolean(columns.pool_member));
  if (opts.openDependents === true) flags.openDependents = Boolean(columns.open_dependents);
  if (opts.poolSize === true) flags.poolSize = Number(columns.pool_size ?? 0);
}

function withFlags(item: WorkItemRow, instance: InstanceRow | undefined, flags: Record<string, unknown> | undefined): WorkItemWithContext {
  return {
    item,
    instance,
    // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
    poolMember: Boolean(flags?.pool_member),
    openDependents: Boolean(flags?.open_dependents),
    // PostgreSQL's count is a bigint, which pg hands over as a string.
    poolSize: Number(flags?.pool_size ?? 0),
  };
}
