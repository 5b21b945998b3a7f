/**
 * Group commit where a failed statement ends the whole transaction (PostgreSQL): a batch runs
 * whole first, its jobs without savepoints. Only when one of them throws is the transaction rolled
 * back and the batch run again with a savepoint per job, so that the failing job fails alone and
 * the others commit once; the next batches then start with savepoints for a while. On SQLite
 * (statement rollback) every job here runs in its own savepoint, once. One lane (a pool of 3), so
 * that the batches are what the test submits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Store } from '../../src/store/Store.ts';
import { getSetting, setSetting } from '../../src/store/queries/settings.ts';
import { databaseEnv, DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-whole-');

async function openStore(): Promise<Store> {
  const file = tempDb();
  const env = await databaseEnv(file);
  const store = Store.open({ sqlitePath: file, postgresUrl: env.WAYMARK_DATABASE_URL ?? null, poolSize: 3 });
  await store.migrate();
  return store;
}

/** Jobs submitted at once (one batch): each writes `a<tag><i>`, then `b<tag><i>`; `failing` throws between the two. */
function batch(store: Store, tag: string, n: number, runs: number[], failing: number | null) {
  return Array.from({ length: n }, (_, i) =>
    store.grouped(async (trx) => {
      runs[i] = (runs[i] ?? 0) + 1;
      await setSetting(trx, `a${tag}${i}`, String(i));
      if (i === failing) throw new Error(`job ${tag}${i} fails after writing`);
      await setSetting(trx, `b${tag}${i}`, String(i));
      return i;
    }),
  );
}

async function assertOutcome(store: Store, tag: string, n: number, results: PromiseSettledResult<number>[], failing: number | null): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (i === failing) {
      assert.equal(results[i].status, 'rejected', `job ${tag}${i}`);
      assert.match(((results[i] as PromiseRejectedResult).reason as Error).message, new RegExp(`job ${tag}${i} fails after writing`));
    } else {
      assert.deepEqual(results[i], { status: 'fulfilled', value: i }, `job ${tag}${i}`);
    }
    const kept = i === failing ? undefined : String(i);
    assert.equal(await getSetting(store.db, `a${tag}${i}`), kept, `a${tag}${i}`);
    assert.equal(await getSetting(store.db, `b${tag}${i}`), kept, `b${tag}${i}`);
  }
}

test('a batch whose jobs all succeed runs once and commits them all', async () => {
  const store = await openStore();
  const runs: number[] = [];
  const results = await Promise.allSettled(batch(store, 'ok', 12, runs, null));
  await assertOutcome(store, 'ok', 12, results, null);
  assert.deepEqual(runs, Array(12).fill(1));
  await store.close();
});

test('a job that throws after writing fails alone: on PostgreSQL its batch is rolled back and runs again with savepoints', async () => {
  const store = await openStore();
  const runs: number[] = [];
  const results = await Promise.allSettled(batch(store, 'x', 12, runs, 5));
  await assertOutcome(store, 'x', 12, results, 5);
  // PostgreSQL: the whole pass stopped at job 5, so jobs 0-5 ran twice, the rest once. SQLite:
  // every job in its own savepoint, once.
  assert.deepEqual(runs, Array.from({ length: 12 }, (_, i) => (DIALECT === 'postgres' && i <= 5 ? 2 : 1)));

  // The next batches start with a savepoint per job: a failing job there costs no second run.
  const after: number[] = [];
  const second = await Promise.allSettled(batch(store, 'y', 6, after, 2));
  await assertOutcome(store, 'y', 6, second, 2);
  assert.deepEqual(after, Array(6).fill(1));

  // Sixteen batches in all after the failure; then batches run whole again.
  for (let b = 0; b < 15; b++) await Promise.all(batch(store, `z${b}-`, 2, [], null));
  const whole: number[] = [];
  const third = await Promise.allSettled(batch(store, 'w', 4, whole, 1));
  await assertOutcome(store, 'w', 4, third, 1);
  assert.deepEqual(whole, DIALECT === 'postgres' ? [2, 2, 1, 1] : [1, 1, 1, 1]);
  await store.close();
});

test('a database error in a batch run whole (a duplicate key) fails only its job; the batch commits the others', async () => {
  const store = await openStore();
  await store.db.insertInto('settings').values({ key: 'taken', value: '0' }).execute();
  const runs: number[] = [];
  const jobs = Array.from({ length: 8 }, (_, i) =>
    store.grouped(async (trx) => {
      runs[i] = (runs[i] ?? 0) + 1;
      await setSetting(trx, `d${i}`, String(i));
      // A plain INSERT of a key that exists: on PostgreSQL the statement fails and the transaction is aborted.
      if (i === 3) await trx.insertInto('settings').values({ key: 'taken', value: '1' }).execute();
      return i;
    }),
  );
  const results = await Promise.allSettled(jobs);
  for (let i = 0; i < 8; i++) {
    assert.equal(results[i].status, i === 3 ? 'rejected' : 'fulfilled', `job d${i}`);
    assert.equal(await getSetting(store.db, `d${i}`), i === 3 ? undefined : String(i), `d${i}`);
  }
  assert.equal(await getSetting(store.db, 'taken'), '0');
  assert.deepEqual(runs, Array.from({ length: 8 }, (_, i) => (DIALECT === 'postgres' && i <= 3 ? 2 : 1)));
  await store.close();
});
