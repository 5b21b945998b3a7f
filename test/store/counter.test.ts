/**
 * bumpCounter (settings.ts), the security epoch's bump: one statement, so that two bumps at once —
 * two nodes committing security changes together — give two values, and a node that read the
 * first still sees the second change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bumpCounter, getSetting } from '../../src/store/queries/settings.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import { openMigratedStore } from '../helpers/testStore.ts';

const tempDb = tempDbFiles('waymark-counter-');

test('a counter starts at 1 and counts up', async () => {
  const store = await openMigratedStore(tempDb());
  try {
    assert.equal(await bumpCounter(store.db, 'test_counter'), 1);
    assert.equal(await bumpCounter(store.db, 'test_counter'), 2);
    assert.equal(await getSetting(store.db, 'test_counter'), '2');
  } finally {
    await store.close();
  }
});

test('two bumps at once in two transactions give two values', { skip: DIALECT !== 'postgres' && 'concurrent writing transactions: PostgreSQL (SQLite has one writer)' }, async () => {
  const store = await openMigratedStore(tempDb());
  try {
    await bumpCounter(store.db, 'test_counter');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let bumped!: () => void;
    const first = new Promise<void>((r) => (bumped = r));
    const t1 = store.db.transaction().execute(async (trx) => {
      const v = await bumpCounter(trx, 'test_counter');
      bumped();
      await held;
      return v;
    });
    await first;
    const t2 = store.db.transaction().execute((trx) => bumpCounter(trx, 'test_counter'));
    await new Promise((r) => setTimeout(r, 100));
    release();
    const values = await Promise.all([t1, t2]);
    assert.deepEqual(values.sort(), [2, 3]);
    assert.equal(await getSetting(store.db, 'test_counter'), '3');
  } finally {
    await store.close();
  }
});
