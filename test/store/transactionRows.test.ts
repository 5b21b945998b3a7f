/**
 * Instance rows kept on the single SQLite writer, in their transaction and the next ones
 * (src/store/transactionRows.ts): a row read or inserted once is answered from memory, kept
 * current by updateInstance, and forgotten when a savepoint rolls back — else the next event of
 * the same group commit would see a change that the rollback undid.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { Store } from '../../src/store/Store.ts';
import { findInstance, insertInstance, updateInstance } from '../../src/store/queries/instances.ts';
import { inSavepoint } from '../../src/store/savepoint.ts';
import { DIALECT } from '../helpers/harness.ts';
import { instanceRow as instance, storeWithDefinition } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const sqliteOnly = { skip: DIALECT !== 'sqlite' && 'rows are kept only where one connection writes (SQLite)' };
const tempDb = tempDbFiles('waymark-rows-');

function freshStore(): Promise<Store> {
  return storeWithDefinition(tempDb());
}
/** Changes the stored row behind the engine's back, so that a kept row shows as different. */
async function writeBehind(trx: Parameters<typeof findInstance>[0], id: string, status: string): Promise<void> {
  await sql`update process_instances set status = ${status} where proc_inst_id = ${id}`.execute(trx);
}

test('a row is kept once read or inserted whole, and updateInstance keeps it current, until the writer changes rows outside a transaction', sqliteOnly, async () => {
  const store = await freshStore();
  try {
    await store.transaction(async (trx) => {
      await insertInstance(trx, instance('P1'));
      await writeBehind(trx, 'P1', 'Behind');
      assert.equal((await findInstance(trx, 'P1'))?.status, 'Initiated', 'the inserted row is kept');
      await updateInstance(trx, 'P1', { status: 'Running', next_activity_ord: 4 });
      const kept = await findInstance(trx, 'P1');
      assert.equal(kept?.status, 'Running');
      assert.equal(kept?.next_activity_ord, 4);
      kept!.status = 'Mutated by a caller';
      assert.equal((await findInstance(trx, 'P1'))?.status, 'Running', 'callers get copies');
    });
    // Outside a transaction rows come from the database; in the next transaction from memory,
    // as nothing else wrote in between.
    assert.equal((await findInstance(store.db, 'P1'))?.status, 'Running');
    await store.transaction(async (trx) => {
      await writeBehind(trx, 'P1', 'Stored');
      assert.equal((await findInstance(trx, 'P1'))?.status, 'Running');
    });
    // A change of the writing connection outside a transaction: nothing kept is vouched for.
    await sql`update process_instances set last_modified_by = 'outside' where proc_inst_id = 'P1'`.execute(store.db);
    await store.transaction(async (trx) => {
      const row = await findInstance(trx, 'P1');
      assert.equal(row?.status, 'Stored');
      assert.equal(row?.last_modified_by, 'outside');
    });
  } finally {
    await store.close();
  }
});

test('a savepoint rolled back forgets the kept rows: the next read sees the rollback', sqliteOnly, async () => {
  const store = await freshStore();
  try {
    await store.transaction(async (trx) => {
      await insertInstance(trx, instance('P2'));
      assert.equal((await findInstance(trx, 'P2'))?.status, 'Initiated');
      const failed = await inSavepoint(trx, async () => {
        await updateInstance(trx, 'P2', { status: 'Completed' });
        assert.equal((await findInstance(trx, 'P2'))?.status, 'Completed');
        throw new Error('the event fails after changing its instance');
      });
      assert.equal(failed.ok, false);
      assert.equal((await findInstance(trx, 'P2'))?.status, 'Initiated', 'the change the rollback undid is not answered from memory');
    });
  } finally {
    await store.close();
  }
});
