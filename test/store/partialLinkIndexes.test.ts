/**
 * Migration 0004: the indexes on super_proc_inst_id, source_work_item_id and removed_from hold
 * only the rows where the link is not '', and every lookup by one of those columns can use them:
 * on SQLite (which uses a partial index only when the query writes its condition) and on
 * PostgreSQL with a generic plan, which once scanned process_instances for every ending instance
 * because nearly every row has an empty link.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { WhereNode } from '../../src/domain/sqlWhere.ts';
import { listChildInstances } from '../../src/store/queries/instances.ts';
import { findOpenParts } from '../../src/store/queries/openParts.ts';
import { queryInstanceRows, queryWorkItemRows } from '../../src/store/queries/queryRecords.ts';
import { findWorkItemWithContext } from '../../src/store/queries/workItemWithContext.ts';
import { deleteRemovedItemsOf, findOpenDependents, listRemovedItemsOf } from '../../src/store/queries/workItems.ts';
import type { DB } from '../../src/store/schema.ts';
import { DIALECT } from '../helpers/harness.ts';
import { openTestStore } from '../helpers/testStore.ts';
import { migratedPostgresUrl, pgGenericPlansOf, seedCompletedInstances } from '../helpers/pgPlans.ts';
import { sqlitePlansOf } from '../helpers/sqlitePlans.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const ID = '0190F5A1B2C37D8E9F00112233445566';
const LINKS = ['process_instances_super', 'work_items_source', 'work_items_removed_from'];

const byId = (column: string): WhereNode => ({ kind: 'compare', left: { column }, op: '=', right: { value: ID } });

/** Every statement that looks rows up by a link column, as the store sends it. */
async function linkLookups(db: Kysely<DB>): Promise<void> {
  await findOpenParts(db, ID);
  await listChildInstances(db, ID);
  await findOpenDependents(db, ID);
  await listRemovedItemsOf(db, ID);
  await deleteRemovedItemsOf(db, ID);
  await findWorkItemWithContext(db, ID, { openDependents: true });
  await queryInstanceRows(db, byId('SUPER_PROC_INST_ID'), null, 10);
  await queryWorkItemRows(db, byId('SOURCE_WORK_ITEM_ID'), null, 10);
  await queryInstanceRows(db, { kind: 'in', column: 'SUPER_PROC_INST_ID', values: [ID], negated: false }, null, 10);
}

/** Statements that look rows up by a link column. */
const LOOKUP = /(super_proc_inst_id|source_work_item_id|removed_from)"? (=|in) /;

const openStore = openTestStore;

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-links-'));
  dirs.push(dir);
  return path.join(dir, 'w.db');
}

test('the three link indexes are partial (WHERE column <> \'\')', async () => {
  const store = await openStore(tempFile());
  await store.migrate();
  const definitions =
    DIALECT === 'sqlite'
      ? await sql<{ d: string }>`select sql as d from sqlite_master where type = 'index' and name in (${sql.join(LINKS)})`.execute(store.db)
      : await sql<{ d: string }>`select indexdef as d from pg_indexes where indexname in (${sql.join(LINKS)})`.execute(store.db);
  assert.equal(definitions.rows.length, 3);
  for (const r of definitions.rows) assert.match(r.d, /where \(?"?(super_proc_inst_id|source_work_item_id|removed_from)"? <> ''/i, r.d);
  await store.close();
});

test('every lookup by a link column searches its partial index on SQLite', { skip: DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
  const statements = await sqlitePlansOf(tempFile(), linkLookups);
  const lookups = statements.filter((st) => LOOKUP.test(st.sql));
  assert.ok(lookups.length >= 9, `${lookups.length} lookups`);
  for (const { sql: text, plan } of lookups) {
    const why = `${text}\n${plan.join('\n')}`;
    assert.ok(plan.some((d) => LINKS.some((name) => d.includes(`USING INDEX ${name} (`) || d.includes(`USING COVERING INDEX ${name} (`))), why);
    assert.deepEqual(plan.filter((d) => /^SCAN (process_instances|work_items)\b/.test(d)), [], why);
  }
});

test('on PostgreSQL a generic plan of every link lookup uses an index, with every link empty', { skip: DIALECT !== 'postgres' && 'PostgreSQL only' }, async () => {
  const url = await migratedPostgresUrl(tempFile());
  // 5,000 instances with one work item each, every link empty, as in a deployment without
  // child instances or linked items; the statistics then say "every row has the same value".
  const seed = async (client: pg.Client) => {
    await seedCompletedInstances(client, 5000);
    await client.query(`insert into work_items (work_item_id, proc_inst_id, activity_inst_id, name, display_name, status, created_date, session, last_modified_by, last_modified_date)
      select lpad(to_hex(n), 32, 'F'), lpad(to_hex(n), 32, '0'), 'A', 'T', 'T', 'Completed', 0, 1, 'u', 0 from generate_series(1, 5000) n`);
  };
  const lookups = await pgGenericPlansOf(url, seed, linkLookups, (text) => LOOKUP.test(text));
  assert.ok(lookups.length >= 9, `${lookups.length} lookups`);
  for (const { sql: text, plan } of lookups) {
    assert.deepEqual(plan.filter((line) => /Seq Scan on (process_instances|work_items)\b/.test(line)), [], `${text}\n${plan.join('\n')}`);
  }
});
