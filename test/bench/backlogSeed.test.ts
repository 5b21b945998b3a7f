/**
 * The dispatcher's seeded backlog (`bench dispatch` on SQLite, the dispatcher part of `bench pg`)
 * and the 10,000 users of `users10k` on PostgreSQL: copies written straight into the database
 * must be events and users the engine takes as its own. Each test makes real template events
 * over HTTP, stops the server, seeds, starts a server on the same database and lets its
 * dispatcher apply everything.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { findPgBin, startPgCluster, type PgCluster } from '../../scripts/pg-cluster.ts';
import { Api } from '../../bench/lib/api.ts';
import { PgHost, PgSeeder, seedWriteGroupsPg } from '../../bench/lib/pg.ts';
import { Seeder, sentEventCopy } from '../../bench/lib/seed.ts';
import { ADMIN, ADMIN_PASSWORD as BENCH_ADMIN_PASSWORD } from '../../bench/lib/util.ts';
import { makeWriteTemplates, seedWriteGroups, type WriteGroups, type WriteTemplates } from '../../bench/lib/workload.ts';
import { rawSql, startServer, type TestServer } from '../helpers/harness.ts';

const EACH = 12;

test('a copied event: the target and its place, fresh ids kept consistent inside the copy, Sent and unclaimed', () => {
  const own = 'A'.repeat(32);
  const proc = 'B'.repeat(32);
  const act = 'C'.repeat(32);
  const wi = 'D'.repeat(32);
  const def = 'E'.repeat(32);
  const tpl = {
    event_id: own,
    status: 'Processed',
    proc_inst_id: proc,
    activity_inst_id: act,
    work_item_id: wi,
    source_work_item_id: '',
    proc_def_id: def,
    parent_proc_inst_id: '',
    params: `{"EventID":"${own}","WorkItemID":"${wi.toLowerCase()}","Def":"${def}"}`,
    end_date: 123,
    entries: 2,
    claimed_by: 'node-1',
    error_message: 'x',
  };
  const columns = Object.keys(tpl);
  const target = 'F1'.repeat(16);
  const place = { proc_inst_id: '2'.repeat(32), activity_inst_id: '3'.repeat(32) };
  const values = sentEventCopy(tpl, columns, target, place, Date.now());
  const row = Object.fromEntries(columns.map((c, i) => [c, values[i]]));
  assert.equal(row.status, 'Sent');
  assert.equal(row.end_date, null);
  assert.equal(row.claimed_by, null);
  assert.equal(row.error_message, null);
  assert.equal(row.entries, 0);
  assert.equal(row.work_item_id, target);
  assert.equal(row.proc_inst_id, place.proc_inst_id);
  assert.equal(row.activity_inst_id, place.activity_inst_id);
  assert.equal(row.proc_def_id, def, 'a definition id is kept');
  assert.notEqual(row.event_id, own);
  assert.match(String(row.event_id), /^[0-9A-F]{32}$/);
  // Inside the params: the same fresh event id, the target in the case it was written in.
  assert.equal(row.params, `{"EventID":"${row.event_id}","WorkItemID":"${target.toLowerCase()}","Def":"${def}"}`);
  // Aimed at an instance: only the instance is the target.
  const cancel = sentEventCopy({ ...tpl, work_item_id: '' }, columns, target, undefined, Date.now());
  assert.equal(cancel[columns.indexOf('proc_inst_id')], target);
});

/** A server on `env`'s database that the bench's client can call as its admin. */
async function benchServer(env: Record<string, string>, dataDir?: string): Promise<{ server: TestServer; api: Api }> {
  const server = await startServer({ dataDir, env: { WAYMARK_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD, ...env } });
  return { server, api: new Api(server.url) };
}

/** After the restart: every seeded event applied by the dispatcher, and its effect there. */
async function assertBacklogApplied(server: TestServer, groups: WriteGroups, seeded: number): Promise<void> {
  await server.settle();
  const statuses = await rawSql(server, 'select status, count(*) as n from events group by status order by status');
  const by = Object.fromEntries(statuses.map((r) => [r.status, Number(r.n)]));
  assert.equal(by.Sent ?? 0, 0, JSON.stringify(by));
  assert.equal(by.Failed ?? 0, 0, JSON.stringify(by));
  assert.ok((by.Processed ?? 0) >= seeded, JSON.stringify(by));
  const list = (ids: string[]) => ids.map((id) => `'${id}'`).join(', ');
  const assigned = await rawSql(server, `select count(*) as n from work_items where status = 'Assigned' and work_item_id in (${list(groups.assign)})`);
  assert.equal(Number(assigned[0].n), EACH, 'every AssignWorkItem target is assigned');
  const cancelled = await rawSql(server, `select count(*) as n from process_instances where status = 'Canceled' and proc_inst_id in (${list(groups.cancel)})`);
  assert.equal(Number(cancelled[0].n), EACH, 'every CancelProcInst target is cancelled');
  const linked = await rawSql(server, `select count(*) as n from work_items where source_work_item_id in (${list(groups.link)})`);
  assert.equal(Number(linked[0].n), EACH, 'every CreateWorkItem event made its linked item');
}

test('SQLite: a seeded backlog of Sent events is applied by the dispatcher as real ones', async () => {
  const first = await benchServer({});
  let templates: WriteTemplates;
  try {
    templates = await makeWriteTemplates(first.api);
  } finally {
    await first.server.close();
  }
  const dbPath = `${first.server.dataDir}/waymark.db`;
  const groups = seedWriteGroups(dbPath, templates, { assign: EACH, undo: 0, link: EACH, cancel: EACH, complete: 0 });
  const seeder = new Seeder(dbPath);
  const seeded =
    seeder.sentEvents(templates.events.assign, groups.assign, 'workItem') +
    seeder.sentEvents(templates.events.link, groups.link, 'workItem') +
    seeder.sentEvents(templates.events.cancel, groups.cancel, 'instance');
  seeder.close();
  const second = await benchServer({}, first.server.dataDir);
  try {
    await assertBacklogApplied(second.server, groups, seeded);
  } finally {
    await second.server.close();
  }
});

const bin = findPgBin();

test('PostgreSQL: seeded Sent events are applied, seeded users are listed', { skip: bin ? false : 'no PostgreSQL server binaries here' }, async () => {
  const cluster: PgCluster = await startPgCluster(bin!);
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('create database seeded');
    await admin.end();
    const u = new URL(cluster.url);
    u.pathname = '/seeded';
    const url = u.toString();
    const env = { WAYMARK_DATABASE_URL: url };

    const first = await benchServer(env);
    let templates: WriteTemplates;
    try {
      templates = await makeWriteTemplates(first.api);
    } finally {
      await first.server.close();
    }
    const groups = await seedWriteGroupsPg(url, templates, { assign: EACH, undo: 0, link: EACH, cancel: EACH, complete: 0 });
    const seeder = await PgSeeder.open(url);
    let seeded: number;
    try {
      seeded =
        (await seeder.sentEvents(templates.events.assign, groups.assign, 'workItem')) +
        (await seeder.sentEvents(templates.events.link, groups.link, 'workItem')) +
        (await seeder.sentEvents(templates.events.cancel, groups.cancel, 'instance'));
      await seeder.users(25);
      assert.equal(await seeder.count('users'), 26);
    } finally {
      await seeder.close();
    }
    const second = await benchServer(env);
    try {
      await assertBacklogApplied(second.server, groups, seeded);
      const users = await second.server.get('/EngineServer/Admin/GetRegisterUsers', { as: [ADMIN, BENCH_ADMIN_PASSWORD] });
      assert.equal(users.status, 200, users.text);
      const names = (users.json.GetRegisterUsersResult as { UserName: string }[]).map((x) => x.UserName);
      assert.ok(names.includes('LOCAL\\user00001') && names.includes('LOCAL\\user00025'), names.join(', '));
      assert.equal(names.length, 26);
    } finally {
      await second.server.close();
    }
  } finally {
    cluster.discard();
  }
});

test('PostgreSQL: a database made from another one (pg-scale\'s empty side) holds its rows, and differs from it afterwards', { skip: bin ? false : 'no PostgreSQL server binaries here' }, async () => {
  const host = new PgHost();
  try {
    const first = await host.createDatabase('first');
    const write = async (url: string, text: string) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query(text)).rows;
      } finally {
        await c.end();
      }
    };
    await write(first, 'create table t (v int); insert into t values (1), (2)');
    const copy = await host.createDatabase('copy', { template: first });
    assert.notEqual(copy, first);
    await write(first, 'insert into t values (3)');
    assert.deepEqual((await write(copy, 'select v from t order by v')).map((r) => r.v), [1, 2]);
    assert.deepEqual((await write(first, 'select v from t order by v')).map((r) => r.v), [1, 2, 3]);
  } finally {
    host.stop();
  }
});
