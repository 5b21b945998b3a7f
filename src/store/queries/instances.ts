import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../Store.ts';
import { literalLimit, reusableInsert, reusableQuery, reusableStatement, reusableUpdate } from '../reusableQuery.ts';
import type { EventsTable, ProcessInstancesTable } from '../schema.ts';
import { keptOrRead, keptRows } from '../transactionRows.ts';
import { keepEveryActivityOf } from './activities.ts';
import { firstSentWithHeld, noteNewInstance } from './transactionEvents.ts';

export type InstanceRow = Selectable<ProcessInstancesTable>;

/** Every column of process_instances (workItemWithContext.ts reads them under a `p_` prefix). */
export const INSTANCE_COLUMNS = [
  'proc_inst_id', 'proc_inst_name', 'proc_inst_name_key', 'def_id', 'def_name', 'version', 'status', 'initiator',
  'initiator_key', 'work_object_id', 'work_object_info', 'super_proc_inst_id', 'custom_id', 'started_date',
  'completed_date', 'due_date', 'last_modified_by', 'last_modified_date', 'incident', 'next_activity_ord',
  'super_activity_inst_id', 'incident_activity_id',
] as const satisfies readonly (keyof InstanceRow)[];

const selectInstance = reusableQuery((db, procInstId: string) => db.selectFrom('process_instances').selectAll().where('proc_inst_id', '=', procInstId));

/**
 * Inside a transaction on the single SQLite writer, a row read, inserted whole or updated here is
 * kept, from one transaction to the next while nothing else writes (transactionRows.ts): every
 * write to process_instances goes through insertInstance and updateInstance below, which keep it
 * current.
 */
export async function findInstance(db: Executor, procInstId: string): Promise<InstanceRow | undefined> {
  return keptOrRead(keptRows<InstanceRow>(db, 'process_instances'), procInstId, () => selectInstance(db, procInstId));
}

/** The instance's row kept (transactionRows.ts), as a copy; undefined when none is kept (no statement run). */
export function keptInstance(db: Executor, procInstId: string): InstanceRow | undefined {
  const hit = keptRows<InstanceRow>(db, 'process_instances')?.get(procInstId);
  return hit && { ...hit };
}

/** A whole row read another way (workItemWithContext.ts): kept as findInstance keeps its own. */
export function rememberInstance(db: Executor, row: InstanceRow): void {
  keptRows<InstanceRow>(db, 'process_instances')?.set(row.proc_inst_id, { ...row });
}

/**
 * Whether an instance with this id, or else with this name (its lower-case key), exists: the two
 * uniqueness checks of CreateProcInst in one statement, two EXISTS probes of the two unique
 * indexes. (It was one WHERE id = ? OR name_key = ?, which SQLite plans as a MULTI-INDEX OR: a
 * temporary row set and a table lookup, 34 us per CreateProcInst in `bench statements`.)
 */
export async function findInstanceClash(db: Executor, procInstId: string, nameKey: string): Promise<'id' | 'name' | null> {
  const [row] = await selectClash(db, procInstId, nameKey);
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
  if (Boolean(row.id_taken)) return 'id';
  return Boolean(row.name_taken) ? 'name' : null;
}

export async function insertInstance(db: Executor, row: Insertable<ProcessInstancesTable>): Promise<void> {
  await insertInstanceRow(db, row);
  inserted(db, row);
}

/**
 * Insert a whole instance row unless its id or its name (key) is taken: false, with nothing
 * written, when one is. CreateProcInst asked findInstanceClash first, a statement that found
 * nothing for every new instance (1 of the ~20 statements of a completed e2e instance on SQLite,
 * 1 of the ~33 round trips on PostgreSQL: docs/performance-log.md, thirty-third round); the two
 * unique indexes answer the same question in the insert itself (ON CONFLICT DO NOTHING), and the
 * caller asks findInstanceClash only when the row was not inserted, to say which one is taken. A
 * concurrent insert of the same key on PostgreSQL is waited for, as the unique index always did.
 */
export async function insertInstanceUnlessTaken(db: Executor, row: InstanceRow): Promise<boolean> {
  const rows = await insertUnlessTaken(db, ...INSTANCE_COLUMNS.map((c) => row[c]));
  if (rows.length === 0) return false;
  inserted(db, row);
  return true;
}

// The columns in INSTANCE_COLUMNS' order, the values bound in the same order.
const insertUnlessTaken = reusableStatement((db, ...values: unknown[]) => ({
  compile: () =>
    sql<{ proc_inst_id: string }>`insert into process_instances (${sql.join(INSTANCE_COLUMNS.map((c) => sql.ref(c)))}) values (${sql.join(values)}) on conflict do nothing returning proc_inst_id`.compile(db),
}));

/** Bookkeeping of a new instance row (kept rows, transactionRows.ts; its events' seqs, transactionEvents.ts). */
function inserted(db: Executor, row: Insertable<ProcessInstancesTable>): void {
  noteNewInstance(db, row.proc_inst_id);
  // A new instance: every activity row it will have in this transaction is written through it.
  keepEveryActivityOf(db, row.proc_inst_id);
  // Kept only when the row names every column (no default filled in by the database).
  const complete = INSTANCE_COLUMNS.every((c) => (row as Record<string, unknown>)[c] !== undefined);
  if (complete) keptRows<InstanceRow>(db, 'process_instances')?.set(row.proc_inst_id, { ...(row as InstanceRow) });
}

export async function updateInstance(db: Executor, procInstId: string, patch: Updateable<ProcessInstancesTable>): Promise<void> {
  await updateInstanceRow(db, procInstId, patch);
  const kept = keptRows<InstanceRow>(db, 'process_instances');
  const hit = kept?.get(procInstId);
  if (!hit) return;
  // A value that is not a plain one (an expression) would leave the kept row unknown: drop it.
  const plain = Object.values(patch).every((v) => v === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof v));
  if (plain) Object.assign(hit, patch);
  else kept!.delete(procInstId);
}

const updateInstanceRow = reusableUpdate('process_instances', 'proc_inst_id');

/**
 * Whether any of `ids` has a child instance, whatever its status: canceling, suspending or
 * resuming such an instance reaches its children directly (Dispatcher.runBatch).
 */
export async function anyHasChildInstances(db: Executor, ids: readonly string[]): Promise<boolean> {
  if (ids.length === 0) return false;
  const row = await db
    .selectFrom('process_instances')
    .select('proc_inst_id')
    .where('super_proc_inst_id', 'in', ids)
    // The partial index's condition (migration 0004); no id is ''.
    .where('super_proc_inst_id', '<>', sql.lit(''))
    .limit(literalLimit(1))
    .executeTakeFirst();
  return row !== undefined;
}

export function listChildInstances(db: Executor, procInstId: string): Promise<InstanceRow[]> {
  // `<> ''`: the partial index's condition (migration 0004); procInstId is never ''.
  return db
    .selectFrom('process_instances')
    .selectAll()
    .where('super_proc_inst_id', '=', procInstId)
    .where('super_proc_inst_id', '<>', sql.lit(''))
    .execute();
}

/** The child instance a call activity started (the newest, if it ran more than once). */
export function findChildOfActivity(db: Executor, activityInstId: string): Promise<InstanceRow | undefined> {
  return db
    .selectFrom('process_instances')
    .selectAll()
    .where('super_activity_inst_id', '=', activityInstId)
    .orderBy('started_date', 'desc')
    .limit(literalLimit(1))
    .executeTakeFirst();
}

/** Instances whose custom attributes are kept under `customId`. */
export function listInstancesByCustomId(db: Executor, customId: string): Promise<InstanceRow[]> {
  return db.selectFrom('process_instances').selectAll().where('custom_id', '=', customId).orderBy('started_date').execute();
}

const insertInstanceRow = reusableInsert('process_instances');

const selectClash = reusableQuery((db, procInstId: string, nameKey: string) =>
  db.selectNoFrom((eb) => [
    eb.exists(eb.selectFrom('process_instances').select('proc_inst_id').where('proc_inst_id', '=', procInstId)).as('id_taken'),
    eb.exists(eb.selectFrom('process_instances').select('proc_inst_id').where('proc_inst_name_key', '=', nameKey)).as('name_taken'),
  ]),
);

/**
 * Lock an instance's row until the transaction ends and read it as it stands then (`FOR UPDATE`;
 * only where rowLocks holds): the lock and the read in one round trip.
 */
export async function lockAndFindInstance(db: Executor, procInstId: string): Promise<InstanceRow | undefined> {
  return (await selectInstanceForUpdate(db, procInstId))[0];
}

const selectInstanceForUpdate = reusableStatement((db, procInstId: string) =>
  db.selectFrom('process_instances').selectAll().where('proc_inst_id', '=', procInstId).forUpdate(),
);


/**
 * Lock, of the instances `ids`, those no other transaction holds, and read them (`FOR UPDATE SKIP
 * LOCKED`, in id order; only where rowLocks holds): the rows answered are this transaction's until
 * it ends, the others are someone else's now. Never waits, so it cannot take part in a deadlock.
 *
 * Each with the first of its `Sent` events in claim order (high priority first, then by seq; null
 * if none), read in the same statement (a LATERAL join; only the instances are locked), or held
 * by this transaction (transactionEvents.ts). For the
 * events a transaction admitted itself (BatchApplier.applyAdmitted): where that first event is the
 * one about to be applied, it is still Sent and no earlier event of its instance is pending, which
 * saves the statement that asked that per event (docs/performance-log.md, thirty-second round).
 */
export async function lockFreeInstances(
  db: Executor,
  ids: readonly string[],
): Promise<{ instance: InstanceRow; firstSent: Selectable<EventsTable> | null }[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<Record<string, unknown>>`select p.*, to_json(f.*) as first_sent from process_instances as p left join lateral (select * from events as e where e.proc_inst_id = p.proc_inst_id and e.status = 'Sent' order by e.high_priority desc, e.seq limit 1) as f on true where p.proc_inst_id in (${sql.join([...ids])}) order by p.proc_inst_id for update of p skip locked`.execute(db);
  // The event as `to_json` writes it, parsed by the driver: its bigint columns (seq, dates) are
  // numbers, as the driver's own parser for int8 makes them (Store.ts).
  // Events this transaction holds (transactionEvents.ts) are not in the table yet: they count too.
  return rows.map(({ first_sent, ...instance }) => ({
    instance: instance as InstanceRow,
    firstSent: firstSentWithHeld(db, instance.proc_inst_id as string, (first_sent ?? null) as Selectable<EventsTable> | null),
  }));
}
