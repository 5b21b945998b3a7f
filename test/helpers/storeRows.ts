/**
 * A migrated store with one released definition (`D1`) — SQLite, or this run's dialect — and whole
 * instance rows of it: for the tests that write rows through src/store/queries directly
 * (transactionRows, keptWorkItems, keptActivities, eventInsertLock).
 */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { Store } from '../../src/store/Store.ts';
import type { EventRow } from '../../src/store/queries/events.ts';
import type { WorkItemRow } from '../../src/store/queries/workItems.ts';
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

/** A Sent event row of `procInstId` (its seq left to the store). */
export function eventRow(id: string, procInstId: string): Omit<EventRow, 'seq'> {
  return {
    event_id: id, event_name: 'AssignWorkItem', status: 'Sent', proc_inst_id: procInstId, activity_inst_id: '', work_item_id: `W-${id}`,
    source_work_item_id: '', user_id: 'LOCAL\\u', sender: 'LOCAL\\admin', sent_date: 1, end_date: null, entries: 0, error_code: null,
    error_message: null, high_priority: 0, auto_start: 0, params: '{}', params_xml_packed: 'PAHW', proc_def_id: 'D',
    proc_inst_name: 'instance 1', parent_proc_inst_id: '', work_object_id: '', work_object_info: '', claimed_by: null, claimed_at: null,
  };
}

/** A New work item `id` of `procInstId`, every column named. */
export function workItemRow(id: string, procInstId: string): WorkItemRow {
  return {
    work_item_id: id, proc_inst_id: procInstId, activity_inst_id: `A-${id}`, name: 'Task', display_name: `Task ${id}`, status: 'New',
    user_id: '', user_key: '', original_user_id: '', client_data: null, created_date: 1, assigned_date: null, completed_date: null,
    cancelled_date: null, activated_date: null, due_date: null, session: 0, last_modified_by: 'LOCAL\\alice', last_modified_date: 1,
    source_work_item_id: '', wait_work_performed: 0, priority: '', pool_info: '', independent: 0, removed_from: '',
  };
}

/** PostgreSQL: whether another transaction can lock the instance's row now (FOR UPDATE NOWAIT). */
export async function lockableElsewhere(store: Store, procInstId: string): Promise<boolean> {
  try {
    await store.db.transaction().execute((trx) => sql`select proc_inst_id from process_instances where proc_inst_id = ${procInstId} for update nowait`.execute(trx));
    return true;
  } catch (e) {
    assert.equal((e as { code?: string }).code, '55P03', `lock_not_available, not ${String(e)}`);
    return false;
  }
}

/**
 * PostgreSQL: the text of every statement sent from now on, until `stop()`. Call it before the
 * store opens: each connection keeps the query function it found (pgPrepared.ts).
 */
export function recordPgStatements(): { texts: string[]; stop: () => void } {
  const texts: string[] = [];
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    texts.push(typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? ''));
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  return { texts, stop: () => void (pg.Client.prototype.query = query as typeof pg.Client.prototype.query) };
}
