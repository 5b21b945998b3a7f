/**
 * GetWorkListByUserID's answer written by SQLite as one JSON array (store/wireJson.ts workListSql)
 * is, byte for byte, JSON.stringify of the list the awaited read builds in JavaScript
 * (listWorkOfUser mapped by engine/records.ts toWorkItem): on random sets of items, each with a
 * random status and assignee and a random pool, asked for by random status lists. Which items, how
 * often each (an item both assigned to the user and in their pool: once), in which order, and each
 * record's fields.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { toWorkItem } from '../../src/engine/records.ts';
import { listWorkOfUser, listWorkOfUserJsonNow } from '../../src/store/queries/workItemRecords.ts';
import { DIALECT } from '../helpers/harness.ts';
import { storeWithDefinition } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-work-list-json-');

const STATUSES = ['New', 'Assigned', 'Completed', 'Canceled', 'Reassigned', 'Removed', 'Overdue', 'Carbon'];
const USERS = ['local\\ann', 'local\\bob', ''];
const text = fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', 'é', '😀', 'a', 'Z'), maxLength: 8 });

let n = 0;
const nextId = (prefix: string) => `${prefix}${String(++n).padStart(31, '0')}`;

test('SQLite writes GetWorkListByUserID\'s list exactly as JSON.stringify of the awaited read', { skip: DIALECT !== 'sqlite' && 'the JSON text is written by SQLite only' }, async () => {
  const store = await storeWithDefinition(tempDb());
  try {
    const db = store.db;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            instanceStatus: fc.constantFrom('Running', 'Suspended'),
            status: fc.constantFrom(...STATUSES),
            user: fc.constantFrom(...USERS),
            pool: fc.subarray(USERS.slice(0, 2)),
            name: text,
            // Ids made out of order, so that the list's order is the sort's and not the insertion's.
            idRank: fc.nat(1_000_000),
          }),
          { maxLength: 8 },
        ),
        fc.constantFrom(...USERS.slice(0, 2)),
        fc.subarray(STATUSES),
        async (items, who, statuses) => {
          await store.transaction(async (trx) => {
            for (const [i, w] of items.entries()) {
              const procInstId = nextId('P');
              const workItemId = `${String(w.idRank).padStart(14, '0')}${String(++n).padStart(18, '0')}`;
              await trx
                .insertInto('process_instances')
                .values({
                  proc_inst_id: procInstId, proc_inst_name: w.name, proc_inst_name_key: procInstId, def_id: 'D1', def_name: 'd', version: 1, status: w.instanceStatus,
                  initiator: 'LOCAL\\admin', initiator_key: 'local\\admin', work_object_id: w.name, custom_id: '', started_date: 0, completed_date: null, due_date: null,
                  last_modified_by: 'LOCAL\\admin', last_modified_date: 0, incident: null,
                })
                .execute();
              await trx
                .insertInto('work_items')
                .values({
                  work_item_id: workItemId, proc_inst_id: procInstId, activity_inst_id: nextId('A'), name: w.name, display_name: w.name, status: w.status,
                  user_id: w.user.toUpperCase(), user_key: w.user, original_user_id: '', client_data: null, created_date: i, assigned_date: null,
                  completed_date: null, cancelled_date: null, activated_date: null, due_date: null, source_work_item_id: '', wait_work_performed: 0, session: 0,
                  priority: '', pool_info: '', last_modified_by: '', last_modified_date: 0,
                })
                .execute();
              for (const member of w.pool) {
                await trx.insertInto('work_item_pool').values({ work_item_id: workItemId, member_key: member, member_name: member.toUpperCase() }).execute();
              }
            }
          });
          // Every item so far (of earlier runs too) is in the database: the lists compared are the whole lists.
          const expected = JSON.stringify((await listWorkOfUser(db, who, statuses)).map(({ item, instance }) => toWorkItem(item, instance)));
          assert.equal(listWorkOfUserJsonNow(db, who, statuses), expected);
        },
      ),
      { numRuns: 120 },
    );
    const everything = await listWorkOfUser(db, 'local\\ann', STATUSES);
    assert.ok(everything.length > 50, `the runs left a list worth comparing (${everything.length} items)`);
    assert.equal(listWorkOfUserJsonNow(db, 'local\\nobody', STATUSES), '[]');
  } finally {
    await store.close();
  }
});
