/**
 * insertInstanceUnlessTaken (src/store/queries/instances.ts): CreateProcInst's uniqueness checks
 * made by the insert itself. A row whose id or name key is taken is not inserted and nothing is
 * written; the transaction goes on (on PostgreSQL too, where a failed statement would end it); a
 * free row is inserted whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findInstance, findInstanceClash, insertInstanceUnlessTaken } from '../../src/store/queries/instances.ts';
import { dialectStoreWithDefinition, instanceRow } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-instance-unless-taken-');

test('an instance whose id or name is taken is not inserted, nothing is written, and the transaction goes on', async () => {
  const store = await dialectStoreWithDefinition(tempDb());
  try {
    const first = instanceRow('P1');
    const count = async () => Number((await store.db.selectFrom('process_instances').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    await store.transaction(async (trx) => {
      assert.equal(await insertInstanceUnlessTaken(trx, first), true);
      // The same id (another name), then the same name key (another id): neither is inserted.
      assert.equal(await insertInstanceUnlessTaken(trx, { ...instanceRow('P1'), proc_inst_name: 'Other', proc_inst_name_key: 'other' }), false);
      assert.equal(await insertInstanceUnlessTaken(trx, { ...instanceRow('P2'), proc_inst_name_key: first.proc_inst_name_key }), false);
      assert.equal(await findInstanceClash(trx, 'P2', first.proc_inst_name_key), 'name');
      // Still usable: a free row goes in.
      assert.equal(await insertInstanceUnlessTaken(trx, instanceRow('P3')), true);
    });
    assert.equal(await count(), 2);
    assert.deepEqual({ ...(await findInstance(store.db, 'P1')), started_date: 1, last_modified_date: 1 }, first);
    assert.equal(await findInstance(store.db, 'P2'), undefined);
    // Committed rows are taken too.
    assert.equal(await store.transaction((trx) => insertInstanceUnlessTaken(trx, { ...instanceRow('P4'), proc_inst_name_key: instanceRow('P3').proc_inst_name_key })), false);
    assert.equal(await count(), 2);
  } finally {
    await store.close();
  }
});
