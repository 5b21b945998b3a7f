/**
 * A migrated store with one released definition (`D1`) — SQLite, or this run's dialect — and whole
 * instance rows of it: for the tests that write rows through src/store/queries directly
 * (transactionRows, keptWorkItems, keptActivities, eventInsertLock).
 */
import { Store } from '../../src/store/Store.ts';
import { insertDefinition } from '../../src/store/queries/definitions.ts';
import type { InstanceRow } from '../../src/store/queries/instances.ts';
import { openMigratedStore } from './testStore.ts';

export async function storeWithDefinition(sqlitePath: string): Promise<Store> {
  const store = Store.open({ sqlitePath });
  await store.migrate();
  return withDefinition(store);
}

/** The same on this run's dialect (testStore.ts: the SQLite file, or its PostgreSQL database). */
export async function dialectStoreWithDefinition(file: string): Promise<Store> {
  return withDefinition(await openMigratedStore(file));
}

async function withDefinition(store: Store): Promise<Store> {
  await store.transaction((trx) =>
    insertDefinition(trx, {
      def_id: 'D1', base_def_id: 'D1', def_name: 'Model', def_name_key: 'model', version: 1, status: 'Released',
      description: '', xml: '<definitions/>', created_by: 'LOCAL\\admin', created_date: 0, release_date: 0,
    }),
  );
  return store;
}

/** A whole process_instances row of `D1` (every column named, so the store keeps it when inserted). */
export function instanceRow(id: string, status = 'Initiated'): InstanceRow {
  return {
    proc_inst_id: id, proc_inst_name: `Model-${id}`, proc_inst_name_key: `model-${id}`.toLowerCase(), def_id: 'D1', def_name: 'Model',
    version: 1, status, initiator: 'LOCAL\\alice', initiator_key: 'local\\alice', work_object_id: '', work_object_info: '',
    super_proc_inst_id: '', custom_id: id, started_date: 1, completed_date: null, due_date: null, last_modified_by: 'LOCAL\\alice',
    last_modified_date: 1, incident: null, next_activity_ord: 1, super_activity_inst_id: '', incident_activity_id: '',
  };
}
