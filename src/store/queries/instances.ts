import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../Store.ts';
import type { ProcessInstancesTable } from '../schema.ts';

export type InstanceRow = Selectable<ProcessInstancesTable>;

export function findInstance(db: Executor, procInstId: string): Promise<InstanceRow | undefined> {
  return db.selectFrom('process_instances').selectAll().where('proc_inst_id', '=', procInstId).executeTakeFirst();
}

/**
 * Whether an instance with this id, or else with this name (its lower-case key), exists: the two
 * uniqueness checks of CreateProcInst in one statement.
 */
export async function findInstanceClash(db: Executor, procInstId: string, nameKey: string): Promise<'id' | 'name' | null> {
  const rows = await db
    .selectFrom('process_instances')
    .select('proc_inst_id')
    .where((eb) => eb.or([eb('proc_inst_id', '=', procInstId), eb('proc_inst_name_key', '=', nameKey)]))
    .limit(2)
    .execute();
  if (rows.some((r) => r.proc_inst_id === procInstId)) return 'id';
  return rows.length > 0 ? 'name' : null;
}

export async function insertInstance(db: Executor, row: Insertable<ProcessInstancesTable>): Promise<void> {
  await db.insertInto('process_instances').values(row).execute();
}

export async function updateInstance(db: Executor, procInstId: string, patch: Updateable<ProcessInstancesTable>): Promise<void> {
  await db.updateTable('process_instances').set(patch).where('proc_inst_id', '=', procInstId).execute();
}

export function listChildInstances(db: Executor, procInstId: string): Promise<InstanceRow[]> {
  return db.selectFrom('process_instances').selectAll().where('super_proc_inst_id', '=', procInstId).execute();
}

/** Reserve the next activity ordinal of an instance (call inside the instance's transaction). */
export async function takeActivityOrdinal(db: Executor, procInstId: string): Promise<number> {
  const row = await db
    .updateTable('process_instances')
    .set((eb) => ({ next_activity_ord: eb('next_activity_ord', '+', 1) }))
    .where('proc_inst_id', '=', procInstId)
    .returning('next_activity_ord')
    .executeTakeFirstOrThrow();
  return row.next_activity_ord - 1;
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
