/**
 * The records SQLite writes as JSON text for the reads answered at once (store/wireJson.ts) are,
 * byte for byte, what JSON.stringify makes of the records engine/records.ts builds from the same
 * rows: on random rows, with text of any Unicode (quotes, backslashes, control characters, NUL,
 * characters outside the BMP), missing dates and either flag value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Insertable } from 'kysely';
import { toActivityInstance, toWorkItem } from '../../src/engine/records.ts';
import { Store } from '../../src/store/Store.ts';
import { findActivityJsonNow, findActivityWire, listActivitiesOfInstance, listActivitiesOfInstanceJsonNow } from '../../src/store/queries/activities.ts';
import { findWorkItemJsonNow, findWorkItemWithInstance } from '../../src/store/queries/workItemRecords.ts';
import type { ActivityInstancesTable, ProcessInstancesTable, WorkItemsTable } from '../../src/store/schema.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-wire-json-');

/** Any text: every code point, with the characters JSON escapes made likely. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u001f', '\u007f', '\u2028', '/', '<', 'é', '😀', 'a'), maxLength: 12 }),
);
const ms = fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 });
const maybeMs = fc.option(ms, { nil: null });
const small = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const bit = fc.constantFrom(0, 1);

let n = 0;
const nextId = (prefix: string) => `${prefix}${String(++n).padStart(31, '0')}`;

test('SQLite writes the ActivityInstance and WorkItem records exactly as JSON.stringify of engine/records.ts', { skip: DIALECT !== 'sqlite' && 'the JSON text is written by SQLite only' }, async () => {
  const file = tempDb();
  const store = Store.open({ sqlitePath: file, postgresUrl: null });
  try {
    await store.migrate();
    const db = store.db;
    await db
      .insertInto('process_definitions')
      .values({ def_id: 'D1', base_def_id: 'D1', def_name: 'd', def_name_key: 'd', version: 1, status: 'Released', description: '', xml: '<x/>', created_by: 'LOCAL\\admin', created_date: 0, release_date: 0 })
      .execute();
    await fc.assert(
      fc.asyncProperty(
        fc.record({ defName: text, name: text, status: fc.constantFrom('Running', 'Suspended', 'Completed'), workObject: text }),
        fc.array(fc.record({ name: text, displayName: text, started: ms, completed: maybeMs, due: maybeMs, inStack: bit, pending: bit, session: small, tokenPos: small, tokens: small }), { minLength: 1, maxLength: 4 }),
        fc.record({
          name: text, displayName: text, status: text, userId: text, originalUserId: text, clientData: fc.option(text, { nil: null }), created: ms,
          assigned: maybeMs, completed: maybeMs, cancelled: maybeMs, activated: maybeMs, due: maybeMs, source: text, waitWork: bit, session: small,
          priority: text, poolInfo: text, lastModifiedBy: text, lastModified: ms,
        }),
        async (p, activities, w) => {
          const procInstId = nextId('P');
          const activityIds: string[] = [];
          const workItemId = nextId('W');
          const instance: Insertable<ProcessInstancesTable> = {
            proc_inst_id: procInstId, proc_inst_name: p.name, proc_inst_name_key: procInstId, def_id: 'D1', def_name: p.defName, version: 1, status: p.status,
            initiator: 'LOCAL\\admin', initiator_key: 'local\\admin', work_object_id: p.workObject, custom_id: '', started_date: 0, completed_date: null, due_date: null,
            last_modified_by: 'LOCAL\\admin', last_modified_date: 0, incident: null,
          };
          // Written in a transaction, as the engine writes: its end makes the next read see it (turnSnapshot.ts).
          await store.transaction(async (trx) => {
            await trx.insertInto('process_instances').values(instance).execute();
            // Inserted last `ord` first: the list must come in `ord` order, not in the order written.
            for (const [i, a] of activities.entries()) {
              const ord = activities.length - 1 - i;
              const row: Insertable<ActivityInstancesTable> = {
                id: nextId('A'), proc_inst_id: procInstId, ord, name: a.name, display_name: a.displayName, kind: 'userTask', status: 'Active', started_date: a.started,
                completed_date: a.completed, due_date: a.due, in_stack: a.inStack, pending: a.pending, session: a.session, token_pos: a.tokenPos, tokens: a.tokens,
              };
              await trx.insertInto('activity_instances').values(row).execute();
              activityIds.push(row.id);
            }
            const item: Insertable<WorkItemsTable> = {
              work_item_id: workItemId, proc_inst_id: procInstId, activity_inst_id: activityIds[0], name: w.name, display_name: w.displayName, status: w.status,
              user_id: w.userId, original_user_id: w.originalUserId, client_data: w.clientData, created_date: w.created, assigned_date: w.assigned,
              completed_date: w.completed, cancelled_date: w.cancelled, activated_date: w.activated, due_date: w.due, source_work_item_id: w.source,
              wait_work_performed: w.waitWork, session: w.session, priority: w.priority, pool_info: w.poolInfo, last_modified_by: w.lastModifiedBy, last_modified_date: w.lastModified,
            };
            await trx.insertInto('work_items').values(item).execute();
          });

          for (const id of activityIds) {
            assert.equal(findActivityJsonNow(db, id)?.json, JSON.stringify(toActivityInstance((await findActivityWire(db, id))!)));
          }
          const list = listActivitiesOfInstanceJsonNow(db, procInstId);
          assert.equal(list, JSON.stringify((await listActivitiesOfInstance(db, procInstId)).map(toActivityInstance)));
          const found = (await findWorkItemWithInstance(db, workItemId))!;
          assert.equal(findWorkItemJsonNow(db, workItemId)?.json, JSON.stringify(toWorkItem(found.item, found.instance)));
        },
      ),
      { numRuns: 150 },
    );
    assert.deepEqual(findWorkItemJsonNow(db, nextId('W')), { json: undefined }, 'no such work item: known at once');
    assert.equal(listActivitiesOfInstanceJsonNow(db, nextId('P')), '[]');
  } finally {
    await store.close();
  }
});
