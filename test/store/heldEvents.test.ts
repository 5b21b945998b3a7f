/**
 * Events held until the commit (store/queries/transactionEvents.ts): on SQLite's single writer a
 * transaction opened by Store.transaction inserts its new events only before it commits, in the
 * status they have then. Whatever sequence of the store's event statements runs in it — inserts,
 * status updates, cancels, defers, releases, savepoints released or rolled back — every answer
 * and the rows committed are those of the same sequence with every event inserted at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { sql, type Transaction } from 'kysely';
import { Store } from '../../src/store/Store.ts';
import { insertChunks } from '../../src/store/reusableQuery.ts';
import { inSavepoint } from '../../src/store/savepoint.ts';
import type { DB } from '../../src/store/schema.ts';
import * as events from '../../src/store/queries/events.ts';
import type { EventRow } from '../../src/store/queries/events.ts';
import { holdsEvents } from '../../src/store/queries/transactionEvents.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const sqliteOnly = { skip: DIALECT !== 'sqlite' && 'events are held only where one connection writes (SQLite)' };
const tempDb = tempDbFiles('waymark-held-events-');

const proc = (i: number) => `P${i}`;

function eventRow(id: string, instance: number, status: 'Sent' | 'Deferred', high: boolean): Omit<EventRow, 'seq'> {
  return {
    event_id: id, event_name: 'AssignWorkItem', status, proc_inst_id: proc(instance), activity_inst_id: '', work_item_id: `W-${id}`,
    source_work_item_id: '', user_id: 'LOCAL\\u', sender: 'LOCAL\\admin', sent_date: 1, end_date: null, entries: 0, error_code: null,
    error_message: null, high_priority: high ? 1 : 0, auto_start: 0, params: '{}', params_xml_packed: 'PAHW', proc_def_id: 'D',
    proc_inst_name: `instance ${instance}`, parent_proc_inst_id: '', work_object_id: '', work_object_info: '', claimed_by: null, claimed_at: null,
  };
}

/** A row without its seq: seqs given after a rolled-back savepoint differ (reused at once, or skipped when held). */
function bare(row: EventRow | undefined): Omit<EventRow, 'seq'> | undefined {
  if (!row) return undefined;
  const { seq: _seq, ...rest } = row;
  return rest;
}

const instance = fc.integer({ min: 0, max: 2 });
const pick = fc.nat();
const simple = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('insert' as const), instance, high: fc.boolean(), deferred: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), pick, to: fc.constantFrom('Processed', 'Failed', 'retry', 'Sent') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('find' as const), pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('next' as const), limit: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('earlier' as const), pick }) },
  fc.record({ kind: fc.constant('count' as const) }),
  fc.record({ kind: fc.constant('list' as const), instance }),
  fc.record({ kind: fc.constant('cancelPending' as const), instance, pick }),
  fc.record({ kind: fc.constant('defer' as const), instance }),
  fc.record({ kind: fc.constant('release' as const), instance }),
  fc.record({ kind: fc.constant('send' as const), pick }),
  fc.record({ kind: fc.constant('cancelDeferred' as const), pick }),
);
type Simple = typeof simple extends fc.Arbitrary<infer T> ? T : never;
const step = fc.oneof(
  { weight: 8, arbitrary: simple },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('savepoint' as const), steps: fc.array(simple, { maxLength: 6 }), fails: fc.boolean() }) },
);
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** Runs `steps` on `trx`, answering what each read gave (ids admitted so far in `ids`). */
async function play(trx: Transaction<DB>, steps: Step[], ids: string[], answers: unknown[]): Promise<void> {
  for (const s of steps) {
    if (s.kind === 'savepoint') {
      const mine = [...ids];
      const r = await inSavepoint(trx, async () => {
        await play(trx, s.steps, mine, answers);
        if (s.fails) throw new Error('rolled back');
      });
      answers.push(r.ok);
      if (r.ok) ids.splice(0, ids.length, ...mine);
      continue;
    }
    await playSimple(trx, s, ids, answers);
  }
}

async function playSimple(trx: Transaction<DB>, s: Simple, ids: string[], answers: unknown[]): Promise<void> {
  const chosen = ids.length > 0 && 'pick' in s ? ids[s.pick % ids.length] : undefined;
  switch (s.kind) {
    case 'insert': {
      const id = `E${String(ids.length).padStart(3, '0')}-${answers.length}`;
      await events.insertEvent(trx, eventRow(id, s.instance, s.deferred ? 'Deferred' : 'Sent', s.high));
      ids.push(id);
      return;
    }
    case 'update':
      if (!chosen) return;
      if (s.to === 'retry') await events.updateEvent(trx, chosen, { entries: 2 });
      else if (s.to === 'Sent') await events.updateEvent(trx, chosen, { entries: 1, claimed_by: null });
      else await events.updateEvent(trx, chosen, { status: s.to, end_date: 5, entries: 1, error_code: s.to === 'Failed' ? 'X' : null });
      return;
    case 'find':
      if (chosen) answers.push(bare(await events.findEvent(trx, chosen)));
      return;
    case 'next':
      answers.push((await events.nextSentEvents(trx, s.limit)).map(bare));
      return;
    case 'earlier': {
      const e = chosen ? await events.findEvent(trx, chosen) : undefined;
      if (e) answers.push(await events.hasEarlierPendingEvent(trx, e));
      return;
    }
    case 'count':
      answers.push(await events.countSentEvents(trx));
      return;
    case 'list':
      answers.push((await events.listEventsOfInstance(trx, proc(s.instance))).map(bare));
      return;
    case 'cancelPending':
      answers.push((await events.cancelPendingEventsOfInstance(trx, proc(s.instance), chosen ?? '', 7)).sort());
      return;
    case 'defer':
      answers.push((await events.deferSentEventsOfInstance(trx, proc(s.instance))).sort());
      return;
    case 'release':
      answers.push((await events.releaseDeferredEventsOfInstance(trx, proc(s.instance))).sort());
      return;
    case 'send':
      if (chosen) answers.push(await events.sendDeferredEvent(trx, chosen));
      return;
    case 'cancelDeferred':
      if (chosen) await events.cancelDeferredEvents(trx, [chosen], 9);
      return;
  }
}

async function committedRows(store: Store): Promise<Omit<EventRow, 'seq'>[]> {
  return (await store.db.selectFrom('events').selectAll().orderBy('seq').execute()).map((r) => bare(r)!);
}

test('held events answer and commit as events inserted at once would', sqliteOnly, async () => {
  const held = Store.open({ sqlitePath: tempDb() });
  const atOnce = Store.open({ sqlitePath: tempDb() });
  await held.migrate();
  await atOnce.migrate();
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
        for (const store of [held, atOnce]) await sql`delete from events`.execute(store.db);
        const heldAnswers: unknown[] = [];
        const atOnceAnswers: unknown[] = [];
        await held.transaction(async (trx) => {
          assert.equal(holdsEvents(trx), true);
          await play(trx, steps, [], heldAnswers);
        });
        // Opened around Store.transaction: every event is inserted when it is admitted.
        await atOnce.db.transaction().execute(async (trx) => {
          assert.equal(holdsEvents(trx), false);
          await play(trx, steps, [], atOnceAnswers);
        });
        assert.deepEqual(heldAnswers, atOnceAnswers);
        assert.deepEqual(await committedRows(held), await committedRows(atOnce));
      }),
      { numRuns: 100 },
    );
  } finally {
    await held.close();
    await atOnce.close();
  }
});

test('an event applied in the transaction that admits it is written once, already Processed, and seqs go on after it', sqliteOnly, async () => {
  const store = Store.open({ sqlitePath: tempDb() });
  await store.migrate();
  try {
    let seqs: number[] = [];
    await store.transaction(async (trx) => {
      seqs = [await events.insertEvent(trx, eventRow('A', 1, 'Sent', false)), await events.insertEvent(trx, eventRow('B', 1, 'Sent', false))];
      assert.deepEqual(seqs, [1, 2]);
      // Nothing is in the table yet; the store's reads see both events.
      assert.equal((await sql<{ n: number }>`select count(*) as n from events`.execute(trx)).rows[0].n, 0);
      assert.deepEqual((await events.nextSentEvents(trx, 64)).map((e) => e.event_id), ['A', 'B']);
      await events.updateEvent(trx, 'A', { status: 'Processed', end_date: 5, entries: 1 });
    });
    const rows = await store.db.selectFrom('events').select(['seq', 'event_id', 'status', 'end_date', 'entries']).orderBy('seq').execute();
    assert.deepEqual(rows, [
      { seq: 1, event_id: 'A', status: 'Processed', end_date: 5, entries: 1 },
      { seq: 2, event_id: 'B', status: 'Sent', end_date: null, entries: 0 },
    ]);
    // Only B is in the partial index of Sent events.
    const pending = await sql<{ seq: number }>`select seq from events indexed by events_pending where status = 'Sent'`.execute(store.db);
    assert.deepEqual(pending.rows, [{ seq: 2 }]);
    // A savepoint rolled back drops its held event and its seq is not given again; an insert made
    // around the store afterwards (AUTOINCREMENT) still gets a seq above every one given.
    await store.transaction(async (trx) => {
      const r = await inSavepoint(trx, async () => {
        assert.equal(await events.insertEvent(trx, eventRow('C', 1, 'Sent', false)), 3);
        throw new Error('undone');
      });
      assert.equal(r.ok, false);
      assert.equal(await events.findEvent(trx, 'C'), undefined);
      assert.equal(await events.insertEvent(trx, eventRow('D', 2, 'Deferred', false)), 4);
    });
    await store.db.transaction().execute((trx) => events.insertEvent(trx, eventRow('E', 2, 'Sent', false)));
    const after = await store.db.selectFrom('events').select(['seq', 'event_id']).orderBy('seq').execute();
    assert.deepEqual(after, [{ seq: 1, event_id: 'A' }, { seq: 2, event_id: 'B' }, { seq: 4, event_id: 'D' }, { seq: 5, event_id: 'E' }]);
    // A transaction that fails commits none of its held events.
    await assert.rejects(
      store.transaction(async (trx) => {
        await events.insertEvent(trx, eventRow('F', 3, 'Sent', false));
        throw new Error('failed');
      }),
      /failed/,
    );
    assert.equal(await events.findEvent(store.db, 'F'), undefined);
  } finally {
    await store.close();
  }
});

test('insertChunks cuts rows into 64s, 16s and one chunk of the rest, in order', () => {
  fc.assert(
    fc.property(fc.nat({ max: 300 }), (n) => {
      const rows = Array.from({ length: n }, (_, i) => i);
      const chunks = insertChunks(rows);
      assert.deepEqual(chunks.flat(), rows);
      const sizes = chunks.map((c) => c.length);
      const rest = n % 16;
      assert.deepEqual(sizes, [...Array(Math.floor(n / 64)).fill(64), ...Array(Math.floor((n % 64) / 16)).fill(16), ...(rest > 0 ? [rest] : [])]);
    }),
  );
});

test('a transaction holding more events than one statement takes commits them all, in seq order', sqliteOnly, async () => {
  const store = Store.open({ sqlitePath: tempDb() });
  await store.migrate();
  try {
    const ids = Array.from({ length: 150 }, (_, i) => `M${String(i).padStart(3, '0')}`);
    await store.transaction(async (trx) => {
      for (const [i, id] of ids.entries()) await events.insertEvent(trx, eventRow(id, i % 3, i % 5 === 0 ? 'Deferred' : 'Sent', false));
      for (const id of ids.slice(0, 70)) await events.updateEvent(trx, id, { status: 'Processed', end_date: 3, entries: 1 });
    });
    const rows = await store.db.selectFrom('events').select(['seq', 'event_id', 'status']).orderBy('seq').execute();
    assert.deepEqual(rows.map((r) => r.event_id), ids);
    assert.deepEqual(rows.map((r) => r.seq), ids.map((_, i) => i + 1));
    assert.deepEqual(rows.map((r) => r.status), ids.map((_, i) => (i < 70 ? 'Processed' : i % 5 === 0 ? 'Deferred' : 'Sent')));
  } finally {
    await store.close();
  }
});
