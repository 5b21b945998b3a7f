/**
 * Where row locks exist (PostgreSQL), storing an event locks its instance's row in the statement
 * that draws its seq: the INSERT itself outside Store.transaction (events.ts
 * insertEventLockingInstance), the seq's draw inside it, where the event is held and inserted at
 * the end in its final status (transactionEvents.ts). Either way the lock is held until the
 * transaction ends, an admission that waits for it draws its seq only once the holder has
 * committed (seq order is the order of the instance's admissions), and an event whose instance
 * has no row is stored all the same. Held, an event applied in its own transaction is written
 * once, already final.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from '../../src/store/schema.ts';
import type { Store } from '../../src/store/Store.ts';
import { insertEvent, updateEvent } from '../../src/store/queries/events.ts';
import { flushHeldEvents } from '../../src/store/queries/transactionEvents.ts';
import { inSavepoint } from '../../src/store/savepoint.ts';
import { insertInstance } from '../../src/store/queries/instances.ts';
import { DIALECT } from '../helpers/harness.ts';
import { dialectStoreWithDefinition, eventRow as event, instanceRow, lockableElsewhere } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-event-lock-');
const skip = DIALECT !== 'postgres' && 'row locks exist on PostgreSQL only (SQLite has one writer)';

/** A migrated store with definition D1, whose instances instanceRow makes. */
const openStore = (): Promise<Store> => dialectStoreWithDefinition(tempDb());

/** How a test's transactions run: Kysely's own (events inserted at once), or Store.transaction (held). */
type How = 'at once' | 'held';
const HOWS: How[] = ['at once', 'held'];

function transactionOf<T>(store: Store, how: How, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return how === 'held' ? store.transaction(fn) : store.db.transaction().execute(fn);
}

/**
 * A transaction that stores `first` of instance `procInstId`, then waits for `release()` before it
 * stores `then` (if any) and commits: `stored` resolves once `first` is in.
 */
function holdingTransaction(store: Store, how: How, procInstId: string, first: string, then?: string) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let inserted!: () => void;
  const stored = new Promise<void>((r) => (inserted = r));
  const done = transactionOf(store, how, async (trx) => {
    await insertEvent(trx, event(first, procInstId));
    inserted();
    await held;
    if (then) await insertEvent(trx, event(then, procInstId));
  });
  return { stored, release, done };
}

for (const how of HOWS) test(`storing an event locks its instance until the transaction ends, and stores every column (${how})`, { skip }, async () => {
  const store = await openStore();
  await insertInstance(store.db, instanceRow('P1'));
  const t1 = holdingTransaction(store, how, 'P1', 'E1');
  await t1.stored;
  try {
    assert.equal(await lockableElsewhere(store, 'P1'), false, 'the instance is locked while the transaction is open');
  } finally {
    t1.release();
    await t1.done;
  }
  assert.equal(await lockableElsewhere(store, 'P1'), true, 'and free once it has ended');
  const [stored] = await store.db.selectFrom('events').selectAll().where('event_id', '=', 'E1').execute();
  const { seq, ...rest } = stored;
  assert.ok(Number(seq) > 0);
  assert.deepEqual({ ...rest, sent_date: Number(rest.sent_date) }, event('E1', 'P1'));
  await store.close();
});

for (const how of HOWS) test(`an admission that waits for the instance draws its seq after the holder commits; an instance with no row is no obstacle (${how})`, { skip }, async () => {
  const store = await openStore();
  await insertInstance(store.db, instanceRow('P2'));
  // A2 is admitted while T2 waits: an event of the same instance that T2's must follow.
  const t1 = holdingTransaction(store, how, 'P2', 'A1', 'A2');
  await t1.stored;
  const t2 = transactionOf(store, how, (trx) => insertEvent(trx, event('B1', 'P2')));
  // T2 is now waiting for the lock (or about to): let it queue, then let T1 finish.
  await new Promise((r) => setTimeout(r, 200));
  t1.release();
  await t1.done;
  await t2;
  const rows = await store.db.selectFrom('events').select(['event_id', 'seq']).where('proc_inst_id', '=', 'P2').orderBy('seq').execute();
  assert.deepEqual(rows.map((r) => r.event_id), ['A1', 'A2', 'B1']);
  // No instance row: stored as before, without waiting.
  const seq = await transactionOf(store, how, (trx) => insertEvent(trx, event('N1', 'no-such-instance')));
  assert.ok(seq > Number(rows[2].seq));
  assert.equal((await store.db.selectFrom('events').select('proc_inst_id').where('event_id', '=', 'N1').executeTakeFirst())?.proc_inst_id, 'no-such-instance');
  await store.close();
});

test('held in Store.transaction, an event applied before the commit is inserted once, already final, and never updated', { skip }, async () => {
  const store = await openStore();
  await insertInstance(store.db, instanceRow('P3'));
  const counts = await store.transaction(async (trx) => {
    const seq = await insertEvent(trx, event('H1', 'P3'));
    assert.ok(seq > 0);
    assert.equal(await lockableElsewhere(store, 'P3'), false, 'the instance is locked from the draw of the seq');
    await updateEvent(trx, 'H1', { status: 'Processed', end_date: 5 });
    await flushHeldEvents(trx);
    // This transaction's own counts of row changes on the table so far.
    const { rows } = await sql<{ ins: string; upd: string }>`select n_tup_ins as ins, n_tup_upd as upd from pg_stat_xact_user_tables where relname = 'events'`.execute(trx);
    return { inserted: Number(rows[0].ins), updated: Number(rows[0].upd) };
  });
  assert.deepEqual(counts, { inserted: 1, updated: 0 });
  const stored = await store.db.selectFrom('events').select(['status', 'end_date']).where('event_id', '=', 'H1').executeTakeFirstOrThrow();
  assert.deepEqual({ status: stored.status, end_date: Number(stored.end_date) }, { status: 'Processed', end_date: 5 });
  await store.close();
});

/** A transaction that inserts instance `id` and an event of it: the event's seq. */
function createdWithEvent(store: Store, id: string, eventId: string): Promise<number> {
  return store.transaction(async (trx) => {
    await insertInstance(trx, instanceRow(id));
    return insertEvent(trx, event(eventId, id));
  });
}

test('an event of an instance its transaction inserted takes a seq drawn ahead, without the lock; the instance\'s later events still follow it', { skip }, async () => {
  const store = await openStore();
  await insertInstance(store.db, instanceRow('OLD'));
  const created = (id: string, eventId: string) => createdWithEvent(store, id, eventId);
  const first = await created('NEW1', 'C1');
  // An event of an instance that existed before: its seq is drawn with the lock, after the block.
  const locked = await store.transaction((trx) => insertEvent(trx, event('X1', 'OLD')));
  const second = await created('NEW2', 'C2');
  assert.ok(first < second && second < locked, `the block's seqs ${first}, ${second} were drawn before ${locked}`);
  // NEW1 exists now: an event of it is drawn with the lock, after every seq of the block.
  const later = await store.transaction((trx) => insertEvent(trx, event('L1', 'NEW1')));
  assert.ok(later > locked && later > first);
  const rows = await store.db.selectFrom('events').select(['event_id', 'seq']).where('proc_inst_id', '=', 'NEW1').orderBy('seq').execute();
  assert.deepEqual(rows.map((r) => r.event_id), ['C1', 'L1']);
  // An insert undone with its savepoint leaves no new instance: the event draws with the lock.
  const undone = await store.transaction(async (trx) => {
    const failed = await inSavepoint(trx, async () => {
      await insertInstance(trx, instanceRow('GONE'));
      throw new Error('rolled back');
    });
    assert.equal(failed.ok, false);
    return insertEvent(trx, event('G1', 'GONE'));
  });
  assert.ok(undone > later, `${undone} is drawn after ${later}, not taken from the block`);
  await store.close();
});

test('a block of seqs is not used once it is more than 5 s old: a new instance\'s event does not jump ahead of events admitted since', { skip }, async (t) => {
  const store = await openStore();
  await insertInstance(store.db, instanceRow('OLD2'));
  const created = (id: string, eventId: string) => createdWithEvent(store, id, eventId);
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  await created('N1', 'B1');
  const locked = await store.transaction((trx) => insertEvent(trx, event('Y1', 'OLD2')));
  t.mock.timers.tick(5_001);
  const fresh = await created('N2', 'B2');
  assert.ok(fresh > locked, `${fresh} is drawn anew, after ${locked}`);
  await store.close();
});

test('two blocks drawn at once, the lower answered last: a transaction\'s events of its new instance still get increasing seqs', { skip }, async () => {
  // The answer to the first block's draw reaches JavaScript 300 ms late, after the database has
  // run it: what two connections whose answers cross look like (found in review, thirty-fourth round).
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  let late = false;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const answer = query.apply(this, args);
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '');
    if (late || !text.includes('generate_series') || !(answer instanceof Promise)) return answer;
    late = true;
    return answer.then((rows) => new Promise((resolve) => setTimeout(() => resolve(rows), 300)));
  } as typeof pg.Client.prototype.query;
  const store = await openStore();
  try {
    let firstDrawn!: () => void;
    const drawn = new Promise<void>((r) => (firstDrawn = r));
    const t1 = store.transaction(async (trx) => {
      await insertInstance(trx, instanceRow('N1'));
      const seq = await insertEvent(trx, event('A1', 'N1'));
      firstDrawn();
      return seq;
    });
    await new Promise((r) => setTimeout(r, 100));
    const t2 = store.transaction(async (trx) => {
      await insertInstance(trx, instanceRow('N2'));
      const b1 = await insertEvent(trx, event('B1', 'N2'));
      await drawn; // the late, lower block has arrived
      const b2 = await insertEvent(trx, event('B2', 'N2'));
      return [b1, b2];
    });
    const a1 = await t1;
    const [b1, b2] = await t2;
    assert.ok(late, 'the first draw was answered late');
    assert.ok(b1 < b2, `B1 then B2 of N2: seqs ${b1}, ${b2}`);
    assert.equal(new Set([a1, b1, b2]).size, 3);
    const rows = await store.db.selectFrom('events').select(['event_id']).where('proc_inst_id', '=', 'N2').orderBy('seq').execute();
    assert.deepEqual(rows.map((r) => r.event_id), ['B1', 'B2']);
  } finally {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
    await store.close();
  }
});
