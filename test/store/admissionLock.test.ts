/**
 * Where row locks exist (PostgreSQL), an admission's read of a work item (AssignWorkItem,
 * CompleteWorkItem, UndoAssignWorkItem, CreateLinkedWorkItem) locks the item's instance and draws
 * the seq of the event it admits next, in the same statement (workItemWithContext.ts,
 * transactionEvents.ts): one round trip instead of two. The seq is drawn after the lock, so an
 * admission that waits for another transaction's lock still draws after that one's events; a
 * savepoint rolled back forgets it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../src/store/Store.ts';
import { insertEvent } from '../../src/store/queries/events.ts';
import { insertInstance } from '../../src/store/queries/instances.ts';
import { findWorkItemWithContext } from '../../src/store/queries/workItemWithContext.ts';
import { insertWorkItem } from '../../src/store/queries/workItems.ts';
import { inSavepoint } from '../../src/store/savepoint.ts';
import { DIALECT } from '../helpers/harness.ts';
import { dialectStoreWithDefinition, eventRow, instanceRow, lockableElsewhere, recordPgStatements, workItemRow } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-admission-lock-');
const skip = DIALECT !== 'postgres' && 'row locks exist on PostgreSQL only (SQLite has one writer)';

/** A store with instance I1 (Running) and its work item W1, and the texts of the statements sent from now on. */
async function setUp(): Promise<{ store: Store; texts: string[]; stop: () => void }> {
  const { texts, stop } = recordPgStatements();
  try {
    const store = await dialectStoreWithDefinition(tempDb());
    await insertInstance(store.db, instanceRow('I1', 'Running'));
    await insertWorkItem(store.db, workItemRow('W1', 'I1'));
    return { store, texts, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

/** setUp, `fn`, then the store closed and the recording stopped. */
async function withSetUp(fn: (s: { store: Store; texts: string[] }) => Promise<void>): Promise<void> {
  const { store, texts, stop } = await setUp();
  try {
    await fn({ store, texts });
  } finally {
    stop();
    await store.close();
  }
}

/** The statement that locks an instance to draw one event's seq when nothing was drawn ahead. */
const isLockAndDraw = (text: string) => /^with locked as .* select nextval/.test(text);

test('an admission\'s read locks the instance and draws the seq its event takes: no statement of its own for the seq', { skip }, async () => {
  await withSetUp(async ({ store, texts }) => {
    const before = await store.transaction((trx) => insertEvent(trx, eventRow('E0', 'I1')));
    assert.equal(texts.filter(isLockAndDraw).length, 1, 'an event with no read before it draws its seq with a statement of its own');
    texts.length = 0;
    const seq = await store.transaction(async (trx) => {
      const found = await findWorkItemWithContext(trx, 'W1', { poolMemberKey: 'local\\alice', poolSize: true, forEvent: true });
      assert.equal(found?.item.work_item_id, 'W1');
      assert.equal(found?.instance?.proc_inst_id, 'I1');
      assert.equal(await lockableElsewhere(store, 'I1'), false, 'the read locked the instance');
      return insertEvent(trx, eventRow('E1', 'I1'));
    });
    assert.ok(seq > before, `${seq} after ${before}`);
    assert.deepEqual(texts.filter(isLockAndDraw), [], 'the event took the seq drawn by the read');
    assert.equal(await lockableElsewhere(store, 'I1'), true, 'the lock ends with the transaction');
    const rows = await store.db.selectFrom('events').select(['event_id', 'seq']).where('proc_inst_id', '=', 'I1').orderBy('seq').execute();
    assert.deepEqual(rows.map((r) => [r.event_id, Number(r.seq)]), [['E0', before], ['E1', seq]]);
    // A read that admits nothing (no forEvent) neither locks nor draws.
    await store.transaction(async (trx) => {
      await findWorkItemWithContext(trx, 'W1', {});
      assert.equal(await lockableElsewhere(store, 'I1'), true);
    });
  });
});

test('an admission that waits for another transaction\'s lock draws its seq after that one\'s event', { skip }, async () => {
  await withSetUp(async ({ store, texts }) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    // The holder's second event draws its seq while the admission waits: the admission's must come after it.
    const holder = store.transaction(async (trx) => {
      await insertEvent(trx, eventRow('H1', 'I1'));
      locked();
      await held;
      return insertEvent(trx, eventRow('H2', 'I1'));
    });
    await holding;
    let read = false;
    const admission = store.transaction(async (trx) => {
      await findWorkItemWithContext(trx, 'W1', { forEvent: true });
      read = true;
      return insertEvent(trx, eventRow('A1', 'I1'));
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(read, false, 'the read waits for the lock');
    release();
    const [h2, a1] = await Promise.all([holder, admission]);
    assert.ok(a1 > h2, `the waiting admission's seq ${a1} is drawn after the holder's last ${h2}`);
    assert.equal(texts.filter(isLockAndDraw).length, 2, "only the holder's events drew with a statement of their own");
    const rows = await store.db.selectFrom('events').select('event_id').where('proc_inst_id', '=', 'I1').orderBy('seq').execute();
    assert.deepEqual(rows.map((r) => r.event_id), ['H1', 'H2', 'A1']);
  });
});

test('a savepoint rolled back forgets the seq its read drew: the next event draws again, under a lock of its own', { skip }, async () => {
  await withSetUp(async ({ store, texts }) => {
    texts.length = 0;
    await store.transaction(async (trx) => {
      const failed = await inSavepoint(trx, async () => {
        await findWorkItemWithContext(trx, 'W1', { forEvent: true });
        throw new Error('rolled back');
      });
      assert.equal(failed.ok, false);
      assert.equal(await lockableElsewhere(store, 'I1'), true, 'the rollback released the lock');
      await insertEvent(trx, eventRow('E1', 'I1'));
    });
    assert.equal(texts.filter(isLockAndDraw).length, 1, 'the event drew its seq with the lock');
  });
});

test('an instance the transaction itself inserted takes its seqs from the blocks, even after a read drew one for it', { skip }, async () => {
  await withSetUp(async ({ store }) => {
    const seqs = await store.transaction(async (trx) => {
      await insertInstance(trx, instanceRow('N1', 'Running'));
      await insertWorkItem(trx, workItemRow('WN1', 'N1'));
      const first = await insertEvent(trx, eventRow('F1', 'N1'));
      await findWorkItemWithContext(trx, 'WN1', { forEvent: true }); // draws a seq above the block's
      return [first, await insertEvent(trx, eventRow('F2', 'N1')), await insertEvent(trx, eventRow('F3', 'N1'))];
    });
    assert.deepEqual([...seqs].sort((a, b) => a - b), seqs, `seqs in admission order: ${seqs.join(', ')}`);
    const rows = await store.db.selectFrom('events').select('event_id').where('proc_inst_id', '=', 'N1').orderBy('seq').execute();
    assert.deepEqual(rows.map((r) => r.event_id), ['F1', 'F2', 'F3']);
  });
});
