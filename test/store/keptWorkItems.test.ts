/**
 * Work items kept on the single SQLite writer, in their transaction and the ones after it
 * (findWorkItem and findWorkItemWithContext in src/store/queries, src/store/transactionRows.ts):
 * whatever sequence of the store's own writes runs in two transactions — updates, cancels by
 * instance or activity, pools, `Removed` copies, items linked to others, a user's pool memberships
 * dropped, instance updates, savepoints rolled back — every read answers what the database holds at that moment, flags kept with an item included
 * (src/store/queries/workItemFlags.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { insertInstance, updateInstance, type InstanceRow } from '../../src/store/queries/instances.ts';
import { findWorkItemWithContext, type WorkItemReadOptions } from '../../src/store/queries/workItemWithContext.ts';
import {
  addPoolMembers,
  cancelOpenWorkItemsOfActivity,
  cancelOpenWorkItemsOfInstance,
  deleteRemovedItemsOf,
  findWorkItem,
  insertWorkItem,
  updateWorkItem,
} from '../../src/store/queries/workItems.ts';
import { deleteUser } from '../../src/store/queries/users.ts';
import { inSavepoint } from '../../src/store/savepoint.ts';
import { DIALECT } from '../helpers/harness.ts';
import { instanceRow, storeWithDefinition } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

type Trx = Parameters<typeof findWorkItem>[0];

const sqliteOnly = { skip: DIALECT !== 'sqlite' && 'rows are kept only where one connection writes (SQLite)' };
const tempDb = tempDbFiles('waymark-kept-items-');

const ITEMS = ['W1', 'W2', 'W3', 'W4'] as const;
const USERS = ['local\\alice', 'local\\bob'] as const;
const STATUSES = ['New', 'Assigned', 'Overdue', 'Completed', 'Canceled', 'Removed'] as const;
const SHAPES: WorkItemReadOptions[] = [{}, { poolMemberKey: 'local\\alice', poolSize: true }, { openDependents: true }, { poolMemberKey: 'local\\bob', openDependents: true, poolSize: true }];

function instance(id: string): InstanceRow {
  return instanceRow(id, 'Running');
}

/** W1, W2 in P1 (activity A1), W3 in P1 (A2) linked to W1 and blocking it, W4 in P2 (A3). */
function item(id: string, over: Record<string, unknown> = {}) {
  const placement: Record<string, [string, string]> = { W1: ['P1', 'A1'], W2: ['P1', 'A1'], W3: ['P1', 'A2'], W4: ['P2', 'A3'] };
  const [proc, act] = placement[id] ?? ['P1', 'A1'];
  return {
    work_item_id: id, proc_inst_id: proc, activity_inst_id: act, name: 'Task', display_name: `Task ${id}`, status: 'New',
    client_data: null, created_date: 1, assigned_date: null, completed_date: null, cancelled_date: null, activated_date: null, due_date: null,
    session: 0, last_modified_by: 'LOCAL\\alice', last_modified_date: 1,
    ...(id === 'W3' ? { source_work_item_id: 'W1', wait_work_performed: 1 } : {}),
    ...over,
  };
}

/** What the database holds, read without the kept rows (plain SQL on the same transaction). */
async function truth(trx: Trx, id: string, opts: WorkItemReadOptions) {
  const [row] = (await sql<Record<string, unknown>>`select * from work_items where work_item_id = ${id}`.execute(trx)).rows;
  if (!row) return undefined;
  const [inst] = (await sql<InstanceRow>`select * from process_instances where proc_inst_id = ${row.proc_inst_id}`.execute(trx)).rows;
  const [flags] = (
    await sql<{ member: number; size: number; open: number }>`select
      exists (select 1 from work_item_pool where work_item_id = ${id} and member_key = ${opts.poolMemberKey ?? ''}) as member,
      (select count(*) from work_item_pool where work_item_id = ${id}) as size,
      exists (select 1 from work_items where source_work_item_id = ${id} and wait_work_performed = 1 and status in ('New', 'Assigned', 'Overdue')) as open`.execute(trx)
  ).rows;
  return {
    item: row,
    instance: inst,
    poolMember: opts.poolMemberKey !== undefined && flags.member === 1,
    openDependents: opts.openDependents === true && flags.open === 1,
    poolSize: opts.poolSize === true ? flags.size : 0,
  };
}

type Step =
  | { kind: 'read'; id: string; shape: number }
  | { kind: 'update'; id: string; status: string; user: string; data: string | null }
  | { kind: 'cancelInstance'; proc: string }
  | { kind: 'cancelActivity'; act: string }
  | { kind: 'pool'; id: string; user: string }
  | { kind: 'removedCopy'; id: string; user: string }
  | { kind: 'deleteRemoved'; id: string }
  | { kind: 'instance'; proc: string; status: string }
  | { kind: 'rolledBack'; id: string; status: string }
  | { kind: 'linked'; id: string; status: string; waits: boolean }
  | { kind: 'waits'; id: string; waits: boolean }
  | { kind: 'userDeleted'; user: string };

const id = fc.constantFrom(...ITEMS);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), id, shape: fc.integer({ min: 0, max: SHAPES.length - 1 }) }),
  fc.record({ kind: fc.constant('update' as const), id, status: fc.constantFrom(...STATUSES), user: fc.constantFrom(...USERS), data: fc.option(fc.string({ maxLength: 5 })) }),
  fc.record({ kind: fc.constant('cancelInstance' as const), proc: fc.constantFrom('P1', 'P2') }),
  fc.record({ kind: fc.constant('cancelActivity' as const), act: fc.constantFrom('A1', 'A2', 'A3') }),
  fc.record({ kind: fc.constant('pool' as const), id, user: fc.constantFrom(...USERS) }),
  fc.record({ kind: fc.constant('removedCopy' as const), id, user: fc.constantFrom(...USERS) }),
  fc.record({ kind: fc.constant('deleteRemoved' as const), id }),
  fc.record({ kind: fc.constant('instance' as const), proc: fc.constantFrom('P1', 'P2'), status: fc.constantFrom('Running', 'Suspended') }),
  fc.record({ kind: fc.constant('rolledBack' as const), id, status: fc.constantFrom(...STATUSES) }),
  fc.record({ kind: fc.constant('linked' as const), id, status: fc.constantFrom(...STATUSES), waits: fc.boolean() }),
  fc.record({ kind: fc.constant('waits' as const), id, waits: fc.boolean() }),
  fc.record({ kind: fc.constant('userDeleted' as const), user: fc.constantFrom(...USERS) }),
);

let copies = 0;
async function run(trx: Trx, s: Step): Promise<void> {
  switch (s.kind) {
    case 'read':
      await findWorkItemWithContext(trx, s.id, SHAPES[s.shape]);
      return;
    case 'update':
      await updateWorkItem(trx, s.id, { status: s.status, user_id: s.user.toUpperCase(), user_key: s.user, client_data: s.data, last_modified_date: 2 });
      return;
    case 'cancelInstance':
      await cancelOpenWorkItemsOfInstance(trx, s.proc, 3, 'LOCAL\\bob');
      return;
    case 'cancelActivity':
      await cancelOpenWorkItemsOfActivity(trx, s.act, 4, 'LOCAL\\bob');
      return;
    case 'pool':
      await addPoolMembers(trx, s.id, [{ key: s.user, name: s.user.toUpperCase() }]);
      return;
    case 'removedCopy':
      await insertWorkItem(trx, item(`R${++copies}`, { status: 'Removed', removed_from: s.id, user_key: s.user }));
      return;
    case 'deleteRemoved':
      await deleteRemovedItemsOf(trx, s.id);
      return;
    case 'instance':
      await updateInstance(trx, s.proc, { status: s.status, last_modified_date: 5 });
      return;
    case 'linked':
      // A new item linked to `id`: with bDependent (`waits`) and open, it blocks completing `id`.
      await insertWorkItem(trx, item(`L${++copies}`, { status: s.status, source_work_item_id: s.id, wait_work_performed: s.waits ? 1 : 0 }));
      return;
    case 'waits':
      await updateWorkItem(trx, s.id, { wait_work_performed: s.waits ? 1 : 0 });
      return;
    case 'userDeleted':
      await deleteUser(trx, s.user);
      return;
    case 'rolledBack': {
      const result = await inSavepoint(trx as never, async () => {
        await updateWorkItem(trx, s.id, { status: s.status, last_modified_date: 6 });
        await findWorkItemWithContext(trx, s.id, SHAPES[1]);
        throw new Error('undone');
      });
      assert.equal(result.ok, false);
      return;
    }
  }
}

test('kept work items answer what the database holds after any sequence of the store\'s writes, in their transaction and the next', sqliteOnly, async () => {
  let hits = 0;
  const check = async (trx: Trx, after: unknown, salt: number) => {
    for (const w of ITEMS) {
      const shape = SHAPES[(w.charCodeAt(1) + salt) % SHAPES.length];
      const expected = await truth(trx, w, shape);
      const got = await findWorkItemWithContext(trx, w, shape);
      assert.deepEqual(got && { ...got, item: { ...got.item } }, expected && { ...expected, item: { ...expected.item } }, `${w} after ${JSON.stringify(after)}`);
      assert.deepEqual(await findWorkItem(trx, w), expected?.item);
      hits++;
    }
  };
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), fc.nat(25), async (steps, cut) => {
      // A database of its own per run; the steps run in two transactions, the second answered
      // from what the first kept where nothing else wrote in between.
      const store = await storeWithDefinition(tempDb());
      try {
        await store.transaction(async (trx) => {
          for (const p of ['P1', 'P2']) await insertInstance(trx, instance(p));
          for (const w of ITEMS) await insertWorkItem(trx, item(w));
          await addPoolMembers(trx, 'W1', [{ key: 'local\\alice', name: 'LOCAL\\ALICE' }]);
          for (const s of steps.slice(0, cut)) {
            await run(trx, s);
            await check(trx, s, steps.length);
          }
        });
        await store.transaction(async (trx) => {
          await check(trx, 'the commit', steps.length + 1);
          for (const s of steps.slice(cut)) {
            await run(trx, s);
            await check(trx, s, steps.length);
          }
        });
      } finally {
        await store.close();
      }
    }),
    { numRuns: 60 },
  );
  assert.ok(hits > 0);
});

test('an item read by the admission is not read again, nor the flags read with it, until another connection writes', sqliteOnly, async () => {
  const file = tempDb();
  const store = await storeWithDefinition(file);
  try {
    await store.transaction(async (trx) => {
      for (const p of ['P1', 'P2']) await insertInstance(trx, instance(p));
      await insertWorkItem(trx, item('W1'));
    });
    await store.transaction(async (trx) => {
      const first = await findWorkItemWithContext(trx, 'W1', SHAPES[1]);
      assert.equal(first?.item.status, 'New');
      assert.equal(first?.poolMember, false);
      // Behind the store's back (as nothing in Waymark writes): kept rows and flags show that they are used.
      await sql`update work_items set display_name = 'changed behind' where work_item_id = 'W1'`.execute(trx);
      await sql`insert into work_item_pool (work_item_id, member_key, member_name) values ('W1', 'local\\alice', 'LOCAL\\ALICE')`.execute(trx);
      await sql`insert into work_items (work_item_id, proc_inst_id, activity_inst_id, name, display_name, status, created_date, session, last_modified_by, last_modified_date, source_work_item_id, wait_work_performed)
        values ('W9', 'P1', 'A1', 'Task', 'Task W9', 'New', 1, 0, 'x', 1, 'W1', 1)`.execute(trx);
      const second = await findWorkItemWithContext(trx, 'W1', SHAPES[1]);
      assert.equal(second?.item.display_name, 'Task W1', 'the item comes from the kept row');
      assert.equal(second?.poolMember, false, 'the flags asked before come from memory');
      assert.equal(second?.poolSize, 0);
      const third = await findWorkItemWithContext(trx, 'W1', { openDependents: true });
      assert.equal(third?.openDependents, true, 'a flag not asked before is read from the database');
      second!.item.status = 'Mutated by a caller';
      assert.equal((await findWorkItem(trx, 'W1'))?.status, 'New', 'callers get copies');
    });
    await store.transaction(async (trx) => {
      assert.equal((await findWorkItem(trx, 'W1'))?.display_name, 'Task W1', 'the next transaction too, as nothing else wrote');
    });
    // Another connection commits (as the request thread's would): nothing kept is vouched for.
    const other = new SQLite(file);
    other.prepare(`update work_items set client_data = 'other' where work_item_id = 'W1'`).run();
    other.close();
    await store.transaction(async (trx) => {
      assert.equal((await findWorkItem(trx, 'W1'))?.display_name, 'changed behind', 'a new transaction reads the database');
      const fresh = await findWorkItemWithContext(trx, 'W1', SHAPES[1]);
      assert.equal(fresh?.poolMember, true, 'and the flags');
      assert.equal(fresh?.poolSize, 1);
    });
  } finally {
    await store.close();
  }
});

test('an item inserted by the store gets the values the schema gives the columns it leaves out', async () => {
  const store = await storeWithDefinition(tempDb());
  try {
    await store.transaction(async (trx) => {
      await insertInstance(trx, instance('P1'));
      const { client_data: _a, assigned_date: _b, completed_date: _c, cancelled_date: _d, activated_date: _e, due_date: _f, ...minimal } = item('W1');
      await trx.insertInto('work_items').values(minimal).execute();
      await insertWorkItem(trx, { ...minimal, work_item_id: 'W2' });
    });
    const rows = await store.db.selectFrom('work_items').selectAll().orderBy('work_item_id').execute();
    assert.equal(rows.length, 2);
    assert.deepEqual({ ...rows[1], work_item_id: 'W1' }, rows[0]);
  } finally {
    await store.close();
  }
});
