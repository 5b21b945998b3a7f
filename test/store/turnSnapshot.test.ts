/**
 * The reads of one turn of the event loop share one read transaction (store/turnSnapshot.ts): a
 * commit made elsewhere shows from the next turn, or at once once this thread knows of it (its own
 * transaction ended, or the writer thread reported).
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Store } from '../../src/store/Store.ts';
import { getSetting, setSetting } from '../../src/store/queries/settings.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-snapshot-');
const sqliteOnly = { skip: DIALECT !== 'sqlite' && 'the read-only connection exists on SQLite only' };

/** A store on a fresh file, and another connection that writes it (another thread or process). */
async function setUp(): Promise<{ store: Store; other: SQLite.Database; [Symbol.asyncDispose](): Promise<void> }> {
  const file = tempDb();
  const store = Store.open({ sqlitePath: file });
  await store.migrate();
  await store.transaction((trx) => setSetting(trx, 'k', 'one'));
  const other = new SQLite(file);
  other.pragma('busy_timeout = 5000');
  return {
    store,
    other,
    async [Symbol.asyncDispose]() {
      other.close();
      await store.close();
    },
  };
}

const setOther = (other: SQLite.Database, value: string) => other.prepare("update settings set value = ? where key = 'k'").run(value);

test('the reads of one turn see one state; the next turn sees what was committed meanwhile', sqliteOnly, async () => {
  await using s = await setUp();
  assert.equal(await getSetting(s.store.db, 'k'), 'one');
  setOther(s.other, 'two');
  assert.equal(await getSetting(s.store.db, 'k'), 'one', 'same turn: same snapshot');
  await nextTurn();
  await nextTurn();
  assert.equal(await getSetting(s.store.db, 'k'), 'two', 'a later turn: a new snapshot');
});

test('refreshReads ends the snapshot at once: a commit another thread reported is seen in the same turn', sqliteOnly, async () => {
  await using s = await setUp();
  assert.equal(await getSetting(s.store.db, 'k'), 'one');
  setOther(s.other, 'two');
  s.store.refreshReads();
  assert.equal(await getSetting(s.store.db, 'k'), 'two');
});

test("a read after this thread's own transaction sees what it committed", sqliteOnly, async () => {
  await using s = await setUp();
  assert.equal(await getSetting(s.store.db, 'k'), 'one');
  await s.store.transaction((trx) => setSetting(trx, 'k', 'three'));
  assert.equal(await getSetting(s.store.db, 'k'), 'three');
  // A transaction that fails ends the snapshot too (another write may have been committed meanwhile).
  setOther(s.other, 'four');
  await assert.rejects(s.store.transaction(async () => Promise.reject(new Error('no'))));
  assert.equal(await getSetting(s.store.db, 'k'), 'four');
});

test('no read transaction outlives its turn: a checkpoint can then copy and truncate the whole WAL', sqliteOnly, async () => {
  await using s = await setUp();
  assert.equal(await getSetting(s.store.db, 'k'), 'one');
  setOther(s.other, 'five');
  // While the turn's snapshot is open, the frame committed after it cannot be checkpointed.
  const during = s.other.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
  assert.ok(during[0].checkpointed < during[0].log, JSON.stringify(during));
  await nextTurn();
  await nextTurn();
  const after = s.other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[];
  assert.deepEqual(after[0], { busy: 0, log: 0, checkpointed: 0 });
});
