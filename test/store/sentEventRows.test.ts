/**
 * nextSentEvents inside a transaction that inserted Sent events answers their rows from memory
 * (store/queries/events.ts): whatever the transaction did to its events before, the answer is the
 * one the table gives. And the store's statements write their LIMIT into the text (a bound LIMIT
 * makes SQLite prepare the statement again on every run).
 *
 * These transactions are opened around Store.transaction, so that events are inserted as they are
 * admitted (as on PostgreSQL): events held until the commit are heldEvents.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { sql, type Transaction } from 'kysely';
import type { Store } from '../../src/store/Store.ts';
import { literalLimit } from '../../src/store/reusableQuery.ts';
import { inSavepoint } from '../../src/store/savepoint.ts';
import type { DB } from '../../src/store/schema.ts';
import { latestVersionOf } from '../../src/store/queries/definitions.ts';
import {
  cancelPendingEventsOfInstance,
  claimEvents,
  deferSentEventsOfInstance,
  findEvent,
  findEventAndEarlierPending,
  hasEarlierPendingEvent,
  insertEvent,
  nextSentEvents,
  releaseDeferredEventsOfInstance,
  sendDeferredEvent,
  updateEvent,
  type EventRow,
} from '../../src/store/queries/events.ts';
import { anyHasChildInstances, findChildOfActivity } from '../../src/store/queries/instances.ts';
import {
  queryActivityRows,
  queryAuditRows,
  queryInstanceRows,
  queryProcedureRows,
  queryUserRows,
  queryWorkItemRows,
} from '../../src/store/queries/queryRecords.ts';
import { listDueTimers, nextDueDate } from '../../src/store/queries/timers.ts';
import { listUsersAfter } from '../../src/store/queries/users.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import { openMigratedStore } from '../helpers/testStore.ts';
import { sqlitePlansOf } from '../helpers/sqlitePlans.ts';

const tempDb = tempDbFiles('waymark-sent-rows-');
const openStore = (): Promise<Store> => openMigratedStore(tempDb());

let made = 0;
function eventRow(instance: number, status: 'Sent' | 'Deferred', high: boolean): Omit<EventRow, 'seq'> {
  made++;
  return {
    event_id: `E${String(made).padStart(31, '0')}`,
    event_name: 'AssignWorkItem',
    status,
    proc_inst_id: `P${String(instance).padStart(31, '0')}`,
    activity_inst_id: '',
    work_item_id: `W${String(made).padStart(31, '0')}`,
    source_work_item_id: '',
    user_id: 'LOCAL\\u',
    sender: 'LOCAL\\admin',
    sent_date: 1_700_000_000_000 + made,
    end_date: null,
    entries: 0,
    error_code: null,
    error_message: null,
    high_priority: high ? 1 : 0,
    auto_start: 0,
    params: '{}',
    params_xml_packed: 'PAHW',
    proc_def_id: 'D',
    proc_inst_name: `instance ${instance}`,
    parent_proc_inst_id: '',
    work_object_id: '',
    work_object_info: '',
    claimed_by: null,
    claimed_at: null,
  };
}

/** What the table holds, read around events.ts (never from its memory). */
function sentInTable(trx: Transaction<DB>, limit: number): Promise<EventRow[]> {
  return trx.selectFrom('events').selectAll().where('status', '=', 'Sent').orderBy('high_priority', 'desc').orderBy('seq').limit(limit).execute();
}

class Undo extends Error {}

const instance = fc.integer({ min: 0, max: 3 });
const op = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), instance, high: fc.boolean(), deferred: fc.boolean(), undone: fc.boolean() }) },
  fc.record({ kind: fc.constant('cancel' as const), instance }),
  fc.record({ kind: fc.constant('defer' as const), instance }),
  fc.record({ kind: fc.constant('release' as const), instance }),
  fc.record({ kind: fc.constant('send' as const), pick: fc.nat() }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), processed: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('next' as const), limit: fc.integer({ min: 1, max: 8 }) }) },
);

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/**
 * Runs `ops` on the events of `trx` (inserts, some undone by their savepoint; cancels, defers,
 * releases, sends and updates through events.ts), calling `next` for each 'next' op. Answers the
 * ids of the events inserted and not undone.
 */
async function applyOps(trx: Transaction<DB>, ops: readonly Op[], next: (limit: number) => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  const pi = (n: number) => `P${String(n).padStart(31, '0')}`;
  for (const o of ops) {
    if (o.kind === 'insert') {
      const row = eventRow(o.instance, o.deferred ? 'Deferred' : 'Sent', o.high);
      if (o.undone) {
        const r = await inSavepoint(trx, async () => {
          await insertEvent(trx, row);
          throw new Error('undone');
        });
        assert.equal(r.ok, false);
      } else {
        await insertEvent(trx, row);
        ids.push(row.event_id);
      }
    } else if (o.kind === 'cancel') await cancelPendingEventsOfInstance(trx, pi(o.instance), '', 1);
    else if (o.kind === 'defer') await deferSentEventsOfInstance(trx, pi(o.instance));
    else if (o.kind === 'release') await releaseDeferredEventsOfInstance(trx, pi(o.instance));
    else if (o.kind === 'send') {
      if (ids.length > 0) await sendDeferredEvent(trx, ids[o.pick % ids.length]);
    } else if (o.kind === 'update') {
      if (ids.length > 0) await updateEvent(trx, ids[o.pick % ids.length], o.processed ? { status: 'Processed', end_date: 2 } : { entries: 1 });
    } else await next(o.limit);
  }
  return ids;
}

/**
 * `check` on `numRuns` random sequences of ops, each in a transaction rolled back at its end: the
 * next run starts from an empty table and its seqs start again where this run's did.
 */
async function forOpSequences(numRuns: number, check: (trx: Transaction<DB>, ops: Op[]) => Promise<void>): Promise<void> {
  const store = await openStore();
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        await assert.rejects(
          store.db.transaction().execute(async (trx) => {
            await check(trx, ops);
            throw new Undo();
          }),
          Undo,
        );
      }),
      { numRuns },
    );
  } finally {
    await store.close();
  }
}

test('nextSentEvents answers what the table holds, whatever the transaction did to its events before', async () => {
  await forOpSequences(80, async (trx, ops) => {
    await applyOps(trx, ops, async (limit) => assert.deepEqual(await nextSentEvents(trx, limit), await sentInTable(trx, limit)));
    assert.deepEqual(await nextSentEvents(trx, 64), await sentInTable(trx, 64));
  });
});

test('an event and whether an earlier one of its instance is pending, read in one statement, are what the two reads give', async () => {
  await forOpSequences(60, async (trx, ops) => {
    const ids = await applyOps(trx, ops, async () => {});
    for (const id of [...ids, 'E'.padEnd(32, 'x')]) {
      const event = await findEvent(trx, id);
      const expected = event && { event, earlierPending: await hasEarlierPendingEvent(trx, event) };
      assert.deepEqual(await findEventAndEarlierPending(trx, id), expected);
    }
  });
});

test('the Sent events a transaction inserted are answered from memory, with the seqs the table gave them', async () => {
  const store = await openStore();
  try {
    await store.db.transaction().execute(async (trx) => {
      const rows = [eventRow(1, 'Sent', false), eventRow(2, 'Sent', true), eventRow(1, 'Sent', false)];
      const seqs: number[] = [];
      for (const r of rows) seqs.push(await insertEvent(trx, r));
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
      const inTable = await sentInTable(trx, 64);
      assert.deepEqual(inTable.map((r) => r.seq), [seqs[1], seqs[0], seqs[2]]);
      // Changed around events.ts (which no code of the engine does): the answer still has the
      // rows as inserted, which shows where it came from. Every write to events goes through
      // events.ts, which forgets a row as soon as it may change it.
      await sql`update events set params = '{"changed":true}' where seq = ${seqs[0]}`.execute(trx);
      const answered = await nextSentEvents(trx, 64);
      assert.deepEqual(answered.map((r) => r.seq), [seqs[1], seqs[0], seqs[2]]);
      assert.equal(answered[1].params, '{}');
      // Through events.ts: forgotten, read again.
      await updateEvent(trx, rows[0].event_id, { entries: 3 });
      assert.deepEqual(await nextSentEvents(trx, 64), await sentInTable(trx, 64));
      assert.equal((await nextSentEvents(trx, 64))[1].params, '{"changed":true}');
    });
  } finally {
    await store.close();
  }
});

test('literalLimit takes only a whole number of rows', () => {
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) assert.throws(() => literalLimit(bad), RangeError);
  assert.doesNotThrow(() => literalLimit(0));
});

test('the store writes every LIMIT into the statement, never as a bound parameter (SQLite re-prepares those)', { skip: DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
  const statements = await sqlitePlansOf(tempDb(), async (db) => {
    const e = { event_id: 'E', proc_inst_id: 'P', high_priority: 0, seq: 5 } as EventRow;
    await nextSentEvents(db, 64);
    await claimEvents(db, false, 'node', 1000, 100, 10);
    await hasEarlierPendingEvent(db, e);
    await listDueTimers(db, 1000, 50);
    await nextDueDate(db);
    await latestVersionOf(db, 'd');
    await anyHasChildInstances(db, ['P']);
    await findChildOfActivity(db, 'A');
    await listUsersAfter(db, '', 100);
    await queryAuditRows(db, null, 10_001);
    await queryWorkItemRows(db, null, 'LOCAL\\u', 10_001);
    await queryInstanceRows(db, null, 'LOCAL\\u', 10_001);
    await queryActivityRows(db, null, 'LOCAL\\u', 10_001);
    await queryProcedureRows(db, null, 10_001);
    await queryUserRows(db, null, 10_001);
  });
  const limited = statements.filter((s) => /\blimit\b/i.test(s.sql));
  assert.ok(limited.length >= 15, `${limited.length} statements with a LIMIT`);
  for (const { sql: text } of limited) {
    assert.match(text, /\blimit \d+$/i, text);
  }
});
