import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { SchemaTooNewError, Store } from '../../src/store/Store.ts';
import { findInstance } from '../../src/store/queries/instances.ts';
import { setSetting, getSetting } from '../../src/store/queries/settings.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import { openTestStore } from '../helpers/testStore.ts';

const tempDb = tempDbFiles('waymark-store-');

const openStore = openTestStore;
test('migrations create the schema once and are idempotent', async () => {
  const file = tempDb();
  const store = await openStore(file);
  await store.migrate();
  await store.migrate();
  const tables = (await store.db.introspection.getTables()).map((t) => t.name).sort();
  for (const t of ['users', 'roles', 'events', 'work_items', 'activity_instances', 'process_instances', 'audit_trail']) {
    assert.ok(tables.includes(t), `missing table ${t}`);
  }
  assert.equal(store.integrityCheck(), 'ok');
  await store.close();
});

test('a database migrated by a newer Waymark is refused with a clear message', async () => {
  const file = tempDb();
  const store = await openStore(file);
  await store.migrate();
  await sql`insert into kysely_migration (name, timestamp) values ('9999_future', '2030-01-01')`.execute(store.db);
  await store.close();
  const again = await openStore(file);
  await assert.rejects(again.migrate(), (e: unknown) => e instanceof SchemaTooNewError && /9999_future/.test((e as Error).message));
  await again.close();
});

test('SQLite uses WAL and synchronous FULL by default', { skip: DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
  const file = tempDb();
  const store = Store.open({ sqlitePath: file });
  const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
  const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
  assert.equal(mode.rows[0].journal_mode, 'wal');
  assert.equal(sync.rows[0].synchronous, 2);
  await store.close();
});

test('group commit: concurrent jobs share commits, a failing job rolls back only itself', async () => {
  const store = await openStore(tempDb());
  await store.migrate();
  const jobs = Array.from({ length: 200 }, (_, i) =>
    store.grouped(async (trx) => {
      await setSetting(trx, `k${i}`, String(i));
      if (i % 10 === 3) throw new Error(`job ${i} fails`);
      return i;
    }),
  );
  const results = await Promise.allSettled(jobs);
  assert.equal(results.filter((r) => r.status === 'rejected').length, 20);
  for (let i = 0; i < 200; i++) {
    const v = await getSetting(store.db, `k${i}`);
    assert.equal(v, i % 10 === 3 ? undefined : String(i), `key k${i}`);
  }
  await store.close();
});

test('group commit: a job submitted just as a lane finds the queue empty still runs', async () => {
  const store = await openStore(tempDb());
  await store.migrate();
  // A lane leaves its loop when the queue is empty; a job submitted a few microtasks later must
  // start a lane of its own, whichever tick it comes in.
  for (let ticks = 0; ticks < 16; ticks++) {
    await store.grouped((trx) => setSetting(trx, 'first', String(ticks)));
    for (let i = 0; i < ticks; i++) await Promise.resolve();
    const second = store.grouped((trx) => setSetting(trx, 'second', String(ticks)));
    const stranded = new Promise((resolve) => setTimeout(() => resolve('stranded'), 2000).unref());
    assert.notEqual(await Promise.race([second, stranded]), 'stranded', `a job submitted ${ticks} microtasks after the last commit was never run`);
  }
  await store.close();
});

test('group commit on PostgreSQL: queued jobs run side by side in lanes, and a deadlock between lanes costs one retry, not a failure', { skip: DIALECT !== 'postgres' && 'lanes exist where row locks do (PostgreSQL)', timeout: 30_000 }, async () => {
  const store = await openStore(tempDb());
  await store.migrate();
  await setSetting(store.db, 'x', '0');
  await setSetting(store.db, 'y', '0');
  const lock = (trx: Parameters<Parameters<Store['grouped']>[0]>[0], key: string) =>
    sql`select value from settings where key = ${key} for update`.execute(trx);
  // Both jobs hold their first row before either asks for its second: only possible if they run
  // at once, in two transactions; then each waits for the other and PostgreSQL breaks the cycle.
  let holding = 0;
  let bothHold!: () => void;
  const barrier = new Promise<void>((r) => (bothHold = r));
  const runs = { xy: 0, yx: 0 };
  const job = (first: string, second: string, name: 'xy' | 'yx') =>
    store.grouped(async (trx) => {
      runs[name]++;
      await lock(trx, first);
      if (++holding === 2) bothHold();
      await barrier;
      await lock(trx, second);
      await setSetting(trx, first, name);
      return name;
    });
  const results = await Promise.all([job('x', 'y', 'xy'), job('y', 'x', 'yx')]);
  assert.deepEqual(results, ['xy', 'yx']);
  assert.equal(runs.xy + runs.yx, 3, 'one of the two was chosen as the deadlock victim and ran again');
  assert.equal(await getSetting(store.db, 'x'), 'xy');
  assert.equal(await getSetting(store.db, 'y'), 'yx');
  await store.close();
});

test('PostgreSQL: statements compiled once run as named prepared statements on each connection', { skip: DIALECT !== 'postgres' && 'PostgreSQL only' }, async () => {
  const store = await openStore(tempDb());
  await store.migrate();
  const names = await store.transaction(async (trx) => {
    assert.equal(await findInstance(trx, 'no-such-instance'), undefined);
    return (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx)).rows;
  });
  const named = names.find((n) => n.statement.includes('"process_instances"') && n.statement.includes('"proc_inst_id" = $1'));
  assert.ok(named, `findInstance's statement is prepared: ${JSON.stringify(names)}`);
  assert.match(named.name, /^waymark_\d+$/);
  // A query built each time (not compiled once) is not named: no statement piles up per text.
  await store.transaction((trx) => sql`select ${'a'}::text as v`.execute(trx));
  const after = await store.transaction(async (trx) => (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx)).rows);
  assert.ok(!after.some((r) => r.statement.includes('::text as v')));
  await store.close();
});

test('reads outside a transaction see committed state at once, not what an open transaction wrote (SQLite: its own read connection)', { skip: DIALECT !== 'sqlite' && 'the read connection is SQLite-only' }, async () => {
  const { insertUser, listUsersAfter } = await import('../../src/store/queries/users.ts');
  const store = await openStore(tempDb());
  await store.migrate();
  const user = (key: string) => ({ user_key: key, user_name: key.toUpperCase(), full_name: key, registered_date: 0, ual_never_expires: 1, disabled: 0 });
  await store.transaction((trx) => insertUser(trx, user('local\\committed')));
  const seen: string[][] = [];
  await store.transaction(async (trx) => {
    await insertUser(trx, user('local\\open'));
    // Through the writing connection this read would queue behind the open transaction, which
    // waits for it: a deadlock. On the read connection it answers now, without the open write.
    for (let i = 0; i < 2; i++) seen.push((await listUsersAfter(store.db, '', 10)).map((u) => u.user_key));
  });
  assert.deepEqual(seen, [['local\\committed'], ['local\\committed']]);
  assert.deepEqual((await listUsersAfter(store.db, '', 10)).map((u) => u.user_key), ['local\\committed', 'local\\open'], 'committed: visible');
  await store.close();
});

test('group commit: an unguarded tail that fails undoes the whole transaction, and its jobs commit again without it, once', async () => {
  const store = await openStore(tempDb());
  await store.migrate();
  const runs = new Map<number, number>();
  const told: unknown[] = [];
  const committed: unknown[] = [];
  let tailRuns = 0;
  store.setGroupCommitTail<string>({
    unguarded: true,
    async run(trx) {
      // Numbered before the await: on PostgreSQL the lanes' tails run side by side.
      const run = ++tailRuns;
      await setSetting(trx, 'tail', 'written');
      if (run === 1) throw new Error('the tail fails, on purpose');
      return 'tail done';
    },
    failed: (e) => void told.push(e),
    committed: (r) => void committed.push(r),
  });
  const jobs = Array.from({ length: 20 }, (_, i) =>
    store.grouped(async (trx) => {
      runs.set(i, (runs.get(i) ?? 0) + 1);
      await setSetting(trx, `k${i}`, `${i}.${runs.get(i)}`);
      if (i === 7) throw new Error('job 7 fails');
      return i;
    }),
  );
  const results = await Promise.allSettled(jobs);
  store.setGroupCommitTail(null);
  // Every job answered once, with what its committed run gave.
  for (let i = 0; i < 20; i++) {
    if (i === 7) assert.equal(results[i].status, 'rejected');
    else assert.deepEqual(results[i], { status: 'fulfilled', value: i });
  }
  assert.equal(told.length, 1);
  assert.match((told[0] as Error).message, /on purpose/);
  // The failed tail's write is gone; the jobs of its batch ran twice (the first run undone).
  assert.equal(await getSetting(store.db, 'tail'), committed.includes('tail done') ? 'written' : undefined);
  assert.ok(committed.includes(null), 'the batch committed without its tail is reported as committed(null)');
  const twice = [...runs].filter(([, n]) => n === 2).map(([i]) => i);
  assert.ok(twice.length >= 1, 'the batch whose tail failed ran its jobs again');
  for (let i = 0; i < 20; i++) {
    assert.equal(await getSetting(store.db, `k${i}`), i === 7 ? undefined : `${i}.${runs.get(i)}`, `key k${i}`);
  }
  await store.close();
});
