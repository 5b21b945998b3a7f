/**
 * Migration 0006: activity_instances_active holds only the active activities, and every lookup of
 * an instance's active activities can use it — on SQLite, which uses a partial index only when
 * the query writes its condition, and on PostgreSQL with a generic plan.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import {
  cancelActiveActivities,
  cancelActivityRow,
  insertActivity,
  listActiveActivities,
  listActiveOfNode,
} from '../../src/store/queries/activities.ts';
import { findOpenParts, findOpenPartsIfIdle } from '../../src/store/queries/openParts.ts';
import type { DB } from '../../src/store/schema.ts';
import { DIALECT } from '../helpers/harness.ts';
import { openTestStore } from '../helpers/testStore.ts';
import { migratedPostgresUrl, pgGenericPlansOf, seedCompletedInstances } from '../helpers/pgPlans.ts';
import { sqlitePlansOf } from '../helpers/sqlitePlans.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const PI = '0190F5A1B2C37D8E9F00112233445566';
const AI = '0190F5A1B2C37D8E9F00112233445577';

/** Every statement that looks an instance's active activities up, as the store sends it. */
async function activeLookups(db: Kysely<DB>): Promise<void> {
  await listActiveActivities(db, PI);
  await listActiveOfNode(db, PI, 'Task', '');
  await findOpenParts(db, PI);
  await findOpenPartsIfIdle(db, PI);
  await cancelActiveActivities(db, PI, 1);
  await cancelActivityRow(db, AI, 1);
}

/** Statements that look activity rows up by their status. */
const BY_STATUS = /from "activity_instances".*"status" = 'Active'|update "activity_instances" .*"status" = 'Active'/s;

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-active-'));
  dirs.push(dir);
  return path.join(dir, 'w.db');
}

const openStore = openTestStore;

test("activity_instances_active is partial (WHERE status = 'Active') and ordered by ord", async () => {
  const store = await openStore(tempFile());
  await store.migrate();
  const definitions =
    DIALECT === 'sqlite'
      ? await sql<{ d: string }>`select sql as d from sqlite_master where type = 'index' and name = 'activity_instances_active'`.execute(store.db)
      : await sql<{ d: string }>`select indexdef as d from pg_indexes where indexname = 'activity_instances_active'`.execute(store.db);
  assert.equal(definitions.rows.length, 1);
  assert.match(definitions.rows[0].d, /\("?proc_inst_id"?, "?ord"?\).*where \(?"?status"? = 'Active'/i, definitions.rows[0].d);
  await store.close();
});

test('active activities are read through the partial index in order, and a canceled one leaves it', { skip: DIALECT !== 'sqlite' && 'SQLite only (INDEXED BY)' }, async () => {
  const file = tempFile();
  const store = await openStore(file);
  await store.migrate();
  const db = store.db;
  await sql`insert into process_definitions (def_id, base_def_id, def_name, def_name_key, version, status, xml, created_by, created_date)
    values ('D', 'D', 'D', 'd', 1, 'Released', '<x/>', 'admin', 0)`.execute(db);
  await sql`insert into process_instances (proc_inst_id, proc_inst_name, proc_inst_name_key, def_id, def_name, version, status, initiator, initiator_key, custom_id, started_date, last_modified_by, last_modified_date)
    values (${PI}, 'i', 'i', 'D', 'D', 1, 'Running', 'u', 'u', '', 0, 'u', 0)`.execute(db);
  const row = (id: string, ord: number, status: string) => ({
    id, proc_inst_id: PI, ord, name: `N${ord}`, display_name: `N${ord}`, kind: 'userTask', status, started_date: 0,
    completed_date: null, due_date: null, in_stack: 0, pending: 0, session: 1, token_pos: 0, tokens: 1, scope_id: '', arrived: '',
  });
  await store.transaction(async (trx) => {
    await insertActivity(trx, row(`${AI.slice(0, 30)}01`, 1, 'Completed'));
    await insertActivity(trx, row(`${AI.slice(0, 30)}02`, 2, 'Active'));
    await insertActivity(trx, row(`${AI.slice(0, 30)}03`, 3, 'Active'));
  });
  // INDEXED BY fails the statement if the partial index cannot serve it.
  const entries = async () =>
    (await sql<{ n: number }>`select count(*) as n from activity_instances indexed by activity_instances_active where proc_inst_id = ${PI} and status = 'Active'`.execute(db)).rows[0].n;
  assert.equal(await entries(), 2);
  assert.deepEqual((await listActiveActivities(db, PI)).map((r) => r.ord), [2, 3]);
  await store.transaction((trx) => cancelActivityRow(trx, `${AI.slice(0, 30)}02`, 5));
  assert.equal(await entries(), 1);
  assert.deepEqual((await listActiveActivities(db, PI)).map((r) => r.ord), [3]);
  assert.equal(store.integrityCheck(), 'ok');
  await store.close();
});

test('every lookup of active activities searches the partial index on SQLite', { skip: DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
  const statements = await sqlitePlansOf(tempFile(), activeLookups);
  const lookups = statements.filter((st) => BY_STATUS.test(st.sql));
  assert.ok(lookups.length >= 6, `${lookups.length} lookups:\n${statements.map((s) => s.sql).join('\n')}`);
  for (const { sql: text, plan } of lookups) {
    const why = `${text}\n${plan.join('\n')}`;
    assert.ok(
      plan.some((d) => d.includes('USING INDEX activity_instances_active (') || d.includes('USING COVERING INDEX activity_instances_active (') || d.includes('USING INTEGER PRIMARY KEY') || /USING INDEX sqlite_autoindex_activity_instances_1 \(id=\?\)/.test(d)),
      why,
    );
    assert.deepEqual(plan.filter((d) => /^SCAN activity_instances\b/.test(d)), [], why);
    assert.deepEqual(plan.filter((d) => /TEMP B-TREE/.test(d)), [], why);
  }
  // The lookups by instance (all but the cancel of one row by its id) use the partial index itself.
  const byInstance = lookups.filter((st) => !/"id" = \?/.test(st.sql));
  assert.ok(byInstance.length >= 5, `${byInstance.length}`);
  for (const { sql: text, plan } of byInstance) {
    assert.ok(plan.some((d) => /USING (COVERING )?INDEX activity_instances_active \(proc_inst_id=\?\)/.test(d)), `${text}\n${plan.join('\n')}`);
  }
});

test('on PostgreSQL a generic plan of every active-activity lookup uses an index, with every activity completed', { skip: DIALECT !== 'postgres' && 'PostgreSQL only' }, async () => {
  const url = await migratedPostgresUrl(tempFile());
  // 2,000 completed instances of three completed activities each: the statistics say "no row is active".
  const seed = async (client: pg.Client) => {
    await seedCompletedInstances(client, 2000);
    await client.query(`insert into activity_instances (id, proc_inst_id, ord, name, display_name, kind, status, started_date, in_stack, pending, session, token_pos, tokens)
      select lpad(to_hex(n * 3 + k), 32, 'A'), lpad(to_hex(n), 32, '0'), k, 'N', 'N', 'userTask', 'Completed', 0, 0, 0, 1, 0, 1
      from generate_series(1, 2000) n, generate_series(1, 3) k`);
  };
  const lookups = await pgGenericPlansOf(url, seed, activeLookups, (text) => BY_STATUS.test(text));
  assert.ok(lookups.length >= 6, `${lookups.length} lookups`);
  for (const { sql: text, plan } of lookups) {
    const why = `${text}\n${plan.join('\n')}`;
    assert.deepEqual(plan.filter((line) => /Seq Scan on activity_instances\b/.test(line)), [], why);
    // The lookups by instance search the partial index (it holds no row here), not the one of every activity.
    if (!/"id" = \$/.test(text)) assert.ok(plan.some((line) => /Index (Only )?Scan using activity_instances_active\b/.test(line)), why);
  }
});
