/**
 * Activity rows kept on the single SQLite writer (src/store/queries/activities.ts,
 * src/store/transactionRows.ts): for an instance inserted while rows are kept every activity row
 * is kept, and its active activities and visits are answered from memory, in its transaction and
 * in the ones after it. On random sequences of writes (inserts, updates, cancels of one row or of
 * the whole instance, a row inserted without every column, savepoints rolled back, work items open
 * or not), every answer from memory equals the database's, read with the same transaction's
 * connection, then and in the next transaction; and findOpenPartsIfIdle's one statement answers as
 * the list of active activities followed by findOpenParts did. Kept rows are forgotten when another
 * connection commits, when the writing connection changes rows outside a transaction, when a
 * transaction fails, and past MAX_KEPT rows. Where rows are not kept (PostgreSQL, or an instance
 * whose rows are not all kept), findOpenPartsIfIdle answers "not idle" from the activities the
 * transaction wrote as Active, and that too answers as the database does, on both dialects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { sql, type Transaction } from 'kysely';
import {
  cancelActiveActivities,
  cancelActivityRow,
  countVisits,
  findActivity,
  hasKeptActiveActivity,
  insertActivity,
  listActiveActivities,
  listActiveOfNode,
  updateActivity,
  type ActivityRow,
} from '../../src/store/queries/activities.ts';
import { insertInstance } from '../../src/store/queries/instances.ts';
import { findOpenParts, findOpenPartsIfIdle } from '../../src/store/queries/openParts.ts';
import { inSavepoint } from '../../src/store/savepoint.ts';
import type { DB } from '../../src/store/schema.ts';
import { DIALECT } from '../helpers/harness.ts';
import { dialectStoreWithDefinition, instanceRow, storeWithDefinition } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import SQLite from 'better-sqlite3';
import { MAX_KEPT } from '../../src/store/transactionRows.ts';

const tempDb = tempDbFiles('waymark-kept-activities-');
const sqliteOnly = { skip: DIALECT !== 'sqlite' && 'rows are kept only where one connection writes (SQLite)' };

const NAMES = ['task', 'gate', 'end'];
const SCOPES = ['', 'S1'];
const STATUSES = ['Active', 'Passed', 'Canceled'];

type Op =
  | { kind: 'insert'; name: string; scope: string; status: string; whole: boolean }
  | { kind: 'update'; pick: number; status: string; tokenPos: number; arrived: string }
  | { kind: 'cancelOne'; pick: number }
  | { kind: 'cancelAll' }
  | { kind: 'failedSavepoint'; name: string }
  | { kind: 'workItem'; status: string };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), name: fc.constantFrom(...NAMES), scope: fc.constantFrom(...SCOPES), status: fc.constantFrom(...STATUSES), whole: fc.nat(9).map((x) => x > 0) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), status: fc.constantFrom(...STATUSES), tokenPos: fc.nat(3), arrived: fc.constantFrom('', 'f1', 'f1,f2') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelOne' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelAll' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('failedSavepoint' as const), name: fc.constantFrom(...NAMES) }) },
  // Something else open in the instance, for findOpenPartsIfIdle.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('workItem' as const), status: fc.constantFrom('New', 'Completed', 'Carbon') }) },
);

let n = 0;
const nextId = (prefix: string) => `${prefix}${String(++n).padStart(31, '0')}`;

function activity(procInstId: string, ord: number, name: string, scope: string, status: string, startedDate = ord * 1000 + 0.5): ActivityRow {
  return {
    id: nextId('A'), proc_inst_id: procInstId, ord, name, display_name: name.toUpperCase(), kind: 'userTask', status, started_date: startedDate,
    completed_date: status === 'Active' ? null : ord * 1000 + 1, due_date: null, in_stack: 1, pending: 1, session: 1, token_pos: 1, tokens: 1,
    scope_id: scope, arrived: '',
  };
}

/** The database's own answers, read with the transaction's connection past every kept row. */
async function stored(trx: Transaction<DB>, procInstId: string): Promise<ActivityRow[]> {
  return trx.selectFrom('activity_instances').selectAll().where('proc_inst_id', '=', procInstId).orderBy('ord').execute();
}

async function checkAgainstDatabase(trx: Transaction<DB>, procInstId: string, ids: string[]): Promise<void> {
  const rows = await stored(trx, procInstId);
  const active = rows.filter((r) => r.status === 'Active');
  assert.deepEqual(await listActiveActivities(trx, procInstId), active);
  for (const name of NAMES) {
    for (const scope of SCOPES) {
      assert.deepEqual(await listActiveOfNode(trx, procInstId, name, scope), active.filter((r) => r.name === name && r.scope_id === scope));
    }
  }
  for (const id of ids) assert.deepEqual(await findActivity(trx, id), rows.find((r) => r.id === id));
  for (const name of NAMES) assert.equal(await countVisits(trx, procInstId, name), rows.filter((r) => r.name === name).length);
  const kept = hasKeptActiveActivity(trx, procInstId);
  if (kept !== undefined) assert.equal(kept, active.length > 0);
  assert.deepEqual(await findOpenPartsIfIdle(trx, procInstId), active.length > 0 ? undefined : await findOpenParts(trx, procInstId));
}

/** What a sequence of ops has written so far, in one transaction. */
interface Written {
  ids: string[];
  ord: number;
  /** Every activity row of the instance is kept (no row left to a default, no savepoint rolled back). */
  whole: boolean;
}

/**
 * Apply one op to `procInstId` in `trx`. `makeRow` builds an activity row (its dates as the
 * dialect stores them); `partialInserts`: an insert may leave a column to the database's default.
 */
async function runOp(trx: Transaction<DB>, procInstId: string, o: Op, w: Written, makeRow: typeof activity, partialInserts: boolean): Promise<void> {
  const pick = (i: number) => w.ids[i % w.ids.length];
  if (o.kind === 'insert') {
    const row = makeRow(procInstId, w.ord++, o.name, o.scope, o.status);
    // A row that leaves a column to the database's default cannot be kept: the instance is no longer answered from memory.
    if (o.whole || !partialInserts) await insertActivity(trx, row);
    else {
      const { arrived: _left, ...partial } = row;
      await insertActivity(trx, partial);
      w.whole = false;
    }
    w.ids.push(row.id);
  } else if (o.kind === 'update' && w.ids.length > 0) {
    await updateActivity(trx, pick(o.pick), { status: o.status, token_pos: o.tokenPos, arrived: o.arrived });
  } else if (o.kind === 'cancelOne' && w.ids.length > 0) {
    await cancelActivityRow(trx, pick(o.pick), 7777);
  } else if (o.kind === 'cancelAll') {
    await cancelActiveActivities(trx, procInstId, 8888);
  } else if (o.kind === 'failedSavepoint') {
    const row = makeRow(procInstId, w.ord++, o.name, '', 'Active');
    const failed = await inSavepoint(trx, async () => {
      await insertActivity(trx, row);
      if (w.ids.length > 0) await updateActivity(trx, w.ids[0], { status: 'Active' });
      throw new Error('rolled back');
    });
    assert.equal(failed.ok, false);
    // The rollback forgot every kept row of the transaction.
    w.whole = false;
  } else if (o.kind === 'workItem') {
    await trx
      .insertInto('work_items')
      .values({
        work_item_id: nextId('W'), proc_inst_id: procInstId, activity_inst_id: w.ids[0] ?? '', name: 'task', display_name: 'Task', status: o.status,
        user_id: '', user_key: '', original_user_id: '', client_data: null, created_date: 0, assigned_date: null, completed_date: null,
        cancelled_date: null, activated_date: null, due_date: null, source_work_item_id: '', wait_work_performed: 0, session: 1, priority: '',
        pool_info: '', last_modified_by: '', last_modified_date: 0,
      })
      .execute();
  }
}

test('an instance\'s activity rows kept for its transaction answer as the database does', sqliteOnly, async () => {
  const store = await storeWithDefinition(tempDb());
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 14 }), async (ops) => {
        const procInstId = nextId('P');
        const w: Written = { ids: [], ord: 1, whole: true };
        const ids = w.ids;
        await store.transaction(async (trx) => {
          await insertInstance(trx, instanceRow(procInstId));
          assert.equal(hasKeptActiveActivity(trx, procInstId), false, 'a new instance is known to have no activity');
          for (const o of ops) {
            await runOp(trx, procInstId, o, w, activity, true);
            await checkAgainstDatabase(trx, procInstId, ids);
          }
          assert.equal(hasKeptActiveActivity(trx, procInstId) !== undefined, w.whole);
        });
        // In the next transaction the kept rows still answer, and as the database does.
        await store.transaction(async (trx) => {
          assert.equal(hasKeptActiveActivity(trx, procInstId) !== undefined, w.whole);
          await checkAgainstDatabase(trx, procInstId, ids);
        });
      }),
      { numRuns: 150 },
    );
  } finally {
    await store.close();
  }
});

test('kept rows are forgotten when another connection commits, when the writer changes rows outside a transaction, when a transaction fails, and past MAX_KEPT', sqliteOnly, async () => {
  const file = tempDb();
  const store = await storeWithDefinition(file);
  const other = new SQLite(file);
  try {
    const procInstId = nextId('P');
    const row = activity(procInstId, 1, 'task', '', 'Active');
    await store.transaction(async (trx) => {
      await insertInstance(trx, instanceRow(procInstId));
      await insertActivity(trx, row);
    });
    await store.transaction(async (trx) => {
      assert.equal(hasKeptActiveActivity(trx, procInstId), true, 'kept from the transaction before');
      assert.equal(await countVisits(trx, procInstId, 'task'), 1);
    });
    // Another connection commits (as the request thread's or the CLI's would).
    other.prepare(`update activity_instances set status = 'Passed', display_name = 'other' where id = ?`).run(row.id);
    await store.transaction(async (trx) => {
      assert.equal(hasKeptActiveActivity(trx, procInstId), undefined, 'another connection wrote: nothing is vouched for');
      assert.equal((await findActivity(trx, row.id))?.display_name, 'other');
    });
    // The writing connection itself, outside a transaction.
    await store.db.updateTable('activity_instances').set({ display_name: 'outside' }).where('id', '=', row.id).execute();
    await store.transaction(async (trx) => {
      assert.equal((await findActivity(trx, row.id))?.display_name, 'outside');
    });
    // A transaction that fails: what it kept goes with it.
    await assert.rejects(
      store.transaction(async (trx) => {
        await updateActivity(trx, row.id, { display_name: 'rolled back' });
        assert.equal((await findActivity(trx, row.id))?.display_name, 'rolled back');
        throw new Error('fails');
      }),
      /fails/,
    );
    await store.transaction(async (trx) => {
      assert.equal((await findActivity(trx, row.id))?.display_name, 'outside');
    });
    // A COMMIT that fails (a foreign key checked only then): what the transaction kept goes with it.
    await assert.rejects(
      store.transaction(async (trx) => {
        await updateActivity(trx, row.id, { display_name: 'not committed' });
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await insertActivity(trx, activity(nextId('P'), 1, 'task', '', 'Active'));
      }),
      /FOREIGN KEY/,
    );
    await store.transaction(async (trx) => {
      assert.equal((await findActivity(trx, row.id))?.display_name, 'outside');
    });
    // Past MAX_KEPT rows the next transaction starts with none.
    const many = nextId('P');
    await store.transaction(async (trx) => {
      await insertInstance(trx, instanceRow(many));
      for (let i = 0; i <= MAX_KEPT; i++) await insertActivity(trx, activity(many, i + 1, 'task', '', 'Passed'));
      assert.equal(hasKeptActiveActivity(trx, many), false);
    });
    await store.transaction(async (trx) => {
      assert.equal(hasKeptActiveActivity(trx, many), undefined, 'too many rows were kept: all are forgotten');
      assert.equal(await countVisits(trx, many, 'task'), MAX_KEPT + 1);
    });
  } finally {
    other.close();
    await store.close();
  }
});

test('where rows are not kept, the activities a transaction wrote as Active answer "not idle" as the database does', async () => {
  const store = await dialectStoreWithDefinition(tempDb());
  // Whole-millisecond dates: PostgreSQL stores them as bigint.
  const row = (procInstId: string, ord: number, name: string, scope: string, status: string) => activity(procInstId, ord, name, scope, status, ord * 1000);
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 14 }), async (ops) => {
        const procInstId = nextId('P');
        // Inserted outside any transaction of Store.transaction: on SQLite the next one keeps no row
        // of it (the writer changed rows outside a transaction), as on PostgreSQL, where none is kept.
        await insertInstance(store.db, instanceRow(procInstId));
        const w: Written = { ids: [], ord: 1, whole: false };
        await store.transaction(async (trx) => {
          assert.equal(hasKeptActiveActivity(trx, procInstId), undefined, 'no row of the instance is kept');
          for (const o of ops) {
            await runOp(trx, procInstId, o, w, row, false);
            const active = (await stored(trx, procInstId)).filter((r) => r.status === 'Active');
            assert.deepEqual(await findOpenPartsIfIdle(trx, procInstId), active.length > 0 ? undefined : await findOpenParts(trx, procInstId));
          }
        });
      }),
      { numRuns: DIALECT === 'postgres' ? 60 : 150 },
    );
  } finally {
    await store.close();
  }
});

test('an activity the transaction wrote as Active spares the probe; an update, a cancel or a rolled-back savepoint ends that', async () => {
  const store = await dialectStoreWithDefinition(tempDb());
  try {
    const procInstId = nextId('P');
    await insertInstance(store.db, instanceRow(procInstId));
    await store.transaction(async (trx) => {
      const task = activity(procInstId, 1, 'task', '', 'Active', 1000);
      await insertActivity(trx, task);
      // Changed behind the store's back: only an answer from what the transaction wrote still says "active".
      await trx.updateTable('activity_instances').set({ status: 'Passed' }).where('id', '=', task.id).execute();
      assert.equal(await findOpenPartsIfIdle(trx, procInstId), undefined, 'answered without a statement');
      await updateActivity(trx, task.id, { status: 'Active' });
      await updateActivity(trx, task.id, { status: 'Completed' });
      assert.notEqual(await findOpenPartsIfIdle(trx, procInstId), undefined, 'completed: the instance is probed, and idle');
      const again = activity(procInstId, 2, 'task', '', 'Active', 2000);
      await insertActivity(trx, again);
      await cancelActiveActivities(trx, procInstId, 3000);
      assert.notEqual(await findOpenPartsIfIdle(trx, procInstId), undefined, 'canceled: idle');
      const undone = activity(procInstId, 3, 'task', '', 'Active', 3000);
      assert.equal((await inSavepoint(trx, async () => { await insertActivity(trx, undone); throw new Error('rolled back'); })).ok, false);
      assert.notEqual(await findOpenPartsIfIdle(trx, procInstId), undefined, 'its insert was rolled back: idle');
    });
  } finally {
    await store.close();
  }
});
