import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../Store.ts';
import { reusableInsert, reusableQuery, reusableStatement, reusableUpdate } from '../reusableQuery.ts';
import type { ProcessInstancesTable } from '../schema.ts';

export type InstanceRow = Selectable<ProcessInstancesTable>;

const selectInstance = reusableQuery((db, procInstId: string) => db.selectFrom('process_instances').selectAll().where('proc_inst_id', '=', procInstId));

export async function findInstance(db: Executor, procInstId: string): Promise<InstanceRow | undefined> {
  return (await selectInstance(db, procInstId))[0];
}

/**
 * Whether an instance with this id, or else with this name (its lower-case key), exists: the two
 * uniqueness checks of CreateProcInst in one statement.
 */
export async function findInstanceClash(db: Executor, procInstId: string, nameKey: string): Promise<'id' | 'name' | null> {
  const rows = await selectClash(db, procInstId, nameKey, 2);
  if (rows.some((r) => r.proc_inst_id === procInstId)) return 'id';
  return rows.length > 0 ? 'name' : null;
}

export async function insertInstance(db: Executor, row: Insertable<ProcessInstancesTable>): Promise<void> {
  await insertInstanceRow(db, row);
}

export function updateInstance(db: Executor, procInstId: string, patch: Updateable<ProcessInstancesTable>): Promise<void> {
  return updateInstanceRow(db, procInstId, patch);
}

const updateInstanceRow = reusableUpdate('process_instances', 'proc_inst_id');

export function listChildInstances(db: Executor, procInstId: string): Promise<InstanceRow[]> {
  return db.selectFrom('process_instances').selectAll().where('super_proc_inst_id', '=', procInstId).execute();
}

/** The child instance a call activity started (the newest, if it ran more than once). */
export function findChildOfActivity(db: Executor, activityInstId: string): Promise<InstanceRow | undefined> {
  return db
    .selectFrom('process_instances')
    .selectAll()
    .where('super_activity_inst_id', '=', activityInstId)
    .orderBy('started_date', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Instances whose custom attributes are kept under `customId`. */
export function listInstancesByCustomId(db: Executor, customId: string): Promise<InstanceRow[]> {
  return db.selectFrom('process_instances').selectAll().where('custom_id', '=', customId).orderBy('started_date').execute();
}

const insertInstanceRow = reusableInsert('process_instances');

const selectClash = reusableQuery((db, procInstId: string, nameKey: string, limit: number) =>
  db
    .selectFrom('process_instances')
    .select('proc_inst_id')
    .where((eb) => eb.or([eb('proc_inst_id', '=', procInstId), eb('proc_inst_name_key', '=', nameKey)]))
    .limit(limit),
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

/** Lock an instance's row until the transaction ends (`FOR UPDATE`; only where rowLocks holds). */
export async function lockInstanceRow(db: Executor, procInstId: string): Promise<void> {
  await selectForUpdate(db, procInstId);
}

const selectForUpdate = reusableStatement((db, procInstId: string) =>
  db.selectFrom('process_instances').select('proc_inst_id').where('proc_inst_id', '=', procInstId).forUpdate(),
);
