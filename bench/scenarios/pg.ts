/**
 * The reads, the four target writes, the dispatcher alone, the end-to-end chain (with the storage
 * per instance after it) and the 10,000-user directory again with the server on PostgreSQL (a
 * throwaway cluster the bench starts: bench/lib/pg.ts), each beside the SQLite figure of the same
 * run as its baseline. One fresh database per part, 50 connections (the e2e part E2E_CONNECTIONS
 * chains), shorter windows than the SQLite scenarios (reads and writes 1 s warm-up + 3 s:
 * PG_WINDOW_S; e2e E2E_WARMUP_S + 6 s: PG_E2E_SECONDS). Write targets and the dispatcher's backlog
 * are copied straight into the database (PgSeeder), the targets sized for up to 0.6 × the SQLite
 * write rates. `scale` and `latency` have PostgreSQL twins that run only
 * when named (pg-scale, pg-latency). No PostgreSQL binaries: one "skipped" row, and the run goes on.
 */
import type { Ctx, Row, Scenario } from '../lib/context.ts';
import os from 'node:os';
import { pgRoundTrip, PgSeeder, PgStatements, PgWatch, seedWriteGroupsPg, type CountedStatement } from '../lib/pg.ts';
import { cpuWindow, processCpuPer, processTreeTicks } from '../lib/threadCpu.ts';
import { infoRow, makeWriteTemplates, measureRead, measureWrite, readOps, seedReads, writeOps, WARMUP_S } from '../lib/workload.ts';
import { fmt, log, sleep } from '../lib/util.ts';
import { describeUserList, measureUserList } from './users10k.ts';
import { E2E_CONNECTIONS, E2E_WARMUP_S, setupE2e, USER_PASSWORD } from './e2e.ts';

const BASE = 'SQLite, same run';
/**
 * Shorter windows than the SQLite scenarios' (5 s, 10 s for e2e): these rows carry no target, and
 * the full run has to stay under 10 minutes with room to spare (597 s at 22:33 with 5 and 10 s).
 */
export const PG_WINDOW_S = 3;
export const PG_E2E_SECONDS = 6;

/**
 * Targets per write op (warm-up and window draw on them): enough for PostgreSQL up to 0.6 × the
 * rate the SQLite server took in the same run, at least 6,000 (enough for 1,000/s). Seeding costs
 * about 1 s per 5,000 targets here; a server that takes more runs out, and its row says so.
 */
function targets(sqliteRate: number | undefined): number {
  return Math.max(6000, Math.ceil((sqliteRate ?? 2000) * (PG_WINDOW_S + WARMUP_S) * 0.6));
}

/** The row that stands for a scenario when the machine has no PostgreSQL. */
export function skippedRow(scenario: string, why: string | null): Row {
  return { scenario, metric: 'skipped: no PostgreSQL', figure: null, unit: '', target: '', met: null, note: why ?? undefined };
}

/**
 * What a PostgreSQL scenario answers on a machine without PostgreSQL (its one "skipped" row, and
 * the run goes on), or null once the cluster is up.
 */
export async function skippedWithoutPg(ctx: Ctx, scenario: string): Promise<{ rows: Row[]; data: Record<string, unknown> } | null> {
  if (await ctx.pg.ensure()) return null;
  log(`  skipped: ${ctx.pg.unavailable}`);
  return { rows: [skippedRow(scenario, ctx.pg.unavailable)], data: { skipped: ctx.pg.unavailable } };
}

async function readsOnPg(ctx: Ctx, rows: Row[], data: Record<string, any>): Promise<void> {
  const sqlite = ctx.results.get('reads')?.data.ops ?? {};
  const url = await ctx.pg.createDatabase('reads');
  const server = await ctx.startServer('reads', { databaseUrl: url });
  const set = await seedReads(server.api);
  data.reads = {};
  for (const op of readOps(set)) {
    const r = await measureRead(ctx, server.url, op, PG_WINDOW_S);
    const base = sqlite[op.name]?.real;
    data.reads[op.name] = r;
    log(`  PostgreSQL ${op.name}: ${Math.round(r.rate)}/s p99 ${r.latencyMs.p99} ms (SQLite ${base ? `${Math.round(base.rate)}/s p99 ${base.latencyMs.p99} ms` : 'not measured'})`);
    const note = `p99 ${fmt(r.latencyMs.p99)} ms${base ? ` (SQLite ${fmt(base.latencyMs.p99)} ms)` : ''}${r.non2xx || r.errors ? `; ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`;
    rows.push(infoRow('pg', `reads: ${op.name}`, r.rate, 'req/s', note, base?.rate, BASE));
  }
  await server.stop();
}

async function writesOnPg(ctx: Ctx, rows: Row[], data: Record<string, any>): Promise<void> {
  const sqlite = ctx.results.get('writes')?.data.ops ?? {};
  const url = await ctx.pg.createDatabase('writes');
  const server = await ctx.startServer('writes', { databaseUrl: url });
  const templates = await makeWriteTemplates(server.api);
  // Unlike an SQLite file, the database takes the copies while the server runs (idle, its
  // template instances' events all applied): no restart needed.
  const n = (op: string) => targets(sqlite[op]?.accepted.rate);
  const groups = await seedWriteGroupsPg(url, templates, { assign: n('AssignWorkItem'), undo: n('UndoAssignWorkItem'), link: 2000, cancel: n('CancelProcInst'), complete: 0 });
  const watch = await PgWatch.open(url);
  data.writes = { seed: { seconds: groups.seedSeconds, rows: groups.seedRows, targets: { assign: groups.assign.length, undo: groups.undo.length, cancel: groups.cancel.length } }, ops: {} };
  try {
    const ops = writeOps(groups, templates);
    const seeded: Record<string, number> = { AssignWorkItem: groups.assign.length, UndoAssignWorkItem: groups.undo.length, CancelProcInst: groups.cancel.length };
    const load = await ctx.load();
    // Warm-up (JIT, connection pool, PostgreSQL's caches) with calls that use no seeded target.
    await load.run({ url: server.url, requests: [ops.find((o) => o.name === 'CreateProcInst')!.request], duration: 2, connections: 50 });
    await watch.drain();
    const measured = ops.filter((o) => o.target);
    for (const op of measured) {
      // The server stops after the last op: its backlog need not be waited for.
      const m = await measureWrite(ctx, server, watch, op, PG_WINDOW_S, { drainAfter: op !== measured[measured.length - 1] });
      data.writes.ops[op.name] = m;
      const base = sqlite[op.name];
      const parts = [`p99 ${fmt(m.accepted.latencyMs.p99)} ms${base ? ` (SQLite ${fmt(base.accepted.latencyMs.p99)} ms)` : ''}`, `applied during load ${Math.round(m.appliedDuring)}/s${base ? ` (SQLite ${Math.round(base.appliedDuring)}/s)` : ''}`, `backlog ${m.backlogAtEnd} at end`];
      if (m.accepted.feedExhausted.length) parts.push(`ran out of the ${seeded[op.name] ?? '?'} seeded targets: lower bound`);
      if (m.accepted.non2xx) parts.push(`${m.accepted.non2xx} non-2xx`);
      rows.push(infoRow('pg', `writes: ${op.name} accepted`, m.accepted.rate, 'events/s', parts.join('; '), base?.accepted.rate, BASE));
    }
  } finally {
    await watch.close();
    await server.stop();
  }
}

/** Sent events per kind in the PostgreSQL backlog: it drains in a few seconds there (609-988 events/s measured before). */
export const PG_BACKLOG_EACH = 1_500;

/**
 * The dispatcher alone on PostgreSQL, as part A of `dispatch`: a backlog of Sent events
 * (AssignWorkItem, CreateWorkItem from CreateLinkedWorkItem, CancelProcessInstance in equal
 * parts, copies of real events aimed at seeded targets) is written while no server runs; a new
 * server starts on the database and the rate at which events leave Sent is measured.
 */
async function dispatchOnPg(ctx: Ctx, rows: Row[], data: Record<string, any>): Promise<void> {
  const sqlite = ctx.results.get('dispatch')?.data.drain;
  const url = await ctx.pg.createDatabase('dispatch');
  const setup = await ctx.startServer('setup', { databaseUrl: url });
  const templates = await makeWriteTemplates(setup.api);
  await setup.stop();
  const groups = await seedWriteGroupsPg(url, templates, { assign: PG_BACKLOG_EACH, undo: 0, link: 200, cancel: PG_BACKLOG_EACH, complete: 0 });
  const seeder = await PgSeeder.open(url);
  let backlog: number;
  try {
    const linkTargets = Array.from({ length: PG_BACKLOG_EACH }, (_, i) => groups.link[i % groups.link.length]);
    backlog =
      (await seeder.sentEvents(templates.events.assign, groups.assign, 'workItem')) +
      (await seeder.sentEvents(templates.events.link, linkTargets, 'workItem')) +
      (await seeder.sentEvents(templates.events.cancel, groups.cancel, 'instance'));
    await seeder.analyze();
  } finally {
    await seeder.close();
  }
  log(`  seeded a backlog of ${backlog} Sent events into PostgreSQL`);
  const watch = await PgWatch.open(url);
  // Counted from before the server starts: its start's few statements are in, and the divisor is
  // every event that left Sent, also those applied before the server answered.
  const statements = await PgStatements.open(url);
  await statements?.reset();
  const spawnedAt = performance.now();
  const server = await ctx.startServer('main', { databaseUrl: url });
  try {
    const first = await watch.progress();
    const postmaster = ctx.pg.postmasterPid();
    const pgBefore = postmaster === null ? null : processTreeTicks(postmaster);
    const window = cpuWindow(server.pid, null, os.availableParallelism());
    let last = first;
    while (last.sent > 0 && last.at - first.at < 60_000) {
      await sleep(100);
      last = await watch.progress();
    }
    const applied = last.applied - first.applied;
    const failed = await watch.count("select count(*) from events where status = 'Failed'");
    const drained = first.sent > 0 && last.sent === 0;
    const rate = first.sent === 0 ? backlog / ((first.at - spawnedAt) / 1000) : applied / ((last.at - first.at) / 1000);
    const cpu = first.sent === 0 ? null : window.stop(applied);
    const pgCpu = postmaster === null || first.sent === 0 ? null : processCpuPer(pgBefore, processTreeTicks(postmaster), applied);
    const note =
      first.sent === 0
        ? 'the whole backlog was applied before the server answered: lower bound'
        : `${applied} events in ${((last.at - first.at) / 1000).toFixed(1)} s${drained ? '' : `, ${last.sent} still Sent after 60 s`}; ${failed} Failed`;
    log(`  PostgreSQL dispatcher alone: ${Math.round(rate)} events/s (${note}); SQLite ${sqlite ? `${Math.round(sqlite.rate)}/s` : 'not measured'}`);
    const serverCpu = cpu ? cpu.requestThread + cpu.busiestOther + cpu.rest : null;
    if (cpu) log(`  CPU per event applied: server ${serverCpu!.toFixed(0)} µs, PostgreSQL ${pgCpu?.toFixed(0) ?? '?'} µs`);
    const counted = (await statements?.read()) ?? null;
    const left = backlog - last.sent;
    const perEvent = counted && left > 0 ? perCompleted(counted, left) : null;
    if (perEvent) {
      log(`  statements per event applied: ${perEvent.total.toFixed(1)}; the most run:`);
      for (const st of perEvent.top) log(`    ${st.perInstance.toFixed(2)} × ${st.execUs.toFixed(0)} µs  ${st.text.slice(0, 110)}`);
    }
    data.dispatch = { backlog, first, last, rate, failed, cpu, pgCpu, statements: perEvent };
    rows.push(infoRow('pg', `dispatcher alone, draining ${backlog.toLocaleString('en-US')} Sent (mixed)`, rate, 'events/s', note, sqlite?.rate, BASE));
    const sqliteCpu = sqlite?.cpu ? sqlite.cpu.requestThread + sqlite.cpu.busiestOther + sqlite.cpu.rest : undefined;
    rows.push(infoRow('pg', 'dispatcher alone: CPU per event, server', serverCpu, 'µs', `PostgreSQL's processes ${pgCpu === null ? '?' : Math.round(pgCpu)} µs more`, sqliteCpu, 'SQLite, same run'));
    rows.push(infoRow('pg', 'dispatcher alone: statements per event applied', perEvent?.total ?? null, 'stmts', perEvent ? "pg_stat_statements from before the server's start to the end of the drain" : 'not counted: no pg_stat_statements'));
  } finally {
    await statements?.close();
    await watch.close();
    await server.stop();
  }
}

/** GetRegisterUsers with 10,000 users on PostgreSQL, as `users10k` does on SQLite. */
async function usersOnPg(ctx: Ctx, rows: Row[], data: Record<string, any>): Promise<void> {
  const sqlite = ctx.results.get('users10k')?.data;
  const url = await ctx.pg.createDatabase('users10k');
  // The first server creates the schema and the admin; the users are copied while none runs.
  await (await ctx.startServer('setup', { databaseUrl: url })).stop();
  const seeder = await PgSeeder.open(url);
  let users: number;
  try {
    await seeder.users(9_999);
    users = await seeder.count('users');
  } finally {
    await seeder.close();
  }
  const server = await ctx.startServer('main', { databaseUrl: url });
  try {
    const m = await measureUserList(ctx, server);
    log(`  PostgreSQL: ${describeUserList(users, m)}`);
    data.users10k = { users, ...m };
    const sqliteGrowth = sqlite ? (sqlite.peakKb - sqlite.rss0Kb) / 1024 : undefined;
    rows.push(infoRow('pg', 'users10k: answer streamed (chunked)', m.chunked && m.listed === users ? 1 : 0, 'yes=1', `${m.listed} of ${users} users listed, ${(m.bytes / 1e6).toFixed(1)} MB`));
    rows.push(infoRow('pg', 'users10k: server RSS growth while serving (10 clients)', m.growthMb, 'MB', `the SQLite target is < 50 MB; RSS ${Math.round(m.rss0Kb / 1024)} MB before${m.refused ? `; ${m.refused} not answered 2xx` : ''}`, sqliteGrowth, BASE));
    rows.push(infoRow('pg', 'users10k: GetRegisterUsers (10,000 users)', m.load.rate, 'req/s', `p99 ${m.load.latencyMs.p99} ms`, sqlite?.load?.rate, BASE));
  } finally {
    await server.stop();
  }
}

async function e2eOnPg(ctx: Ctx, rows: Row[], data: Record<string, any>): Promise<void> {
  const sqlite = ctx.results.get('e2e')?.data;
  const url = await ctx.pg.createDatabase('e2e');
  const server = await ctx.startServer('e2e', { databaseUrl: url });
  const { defId, users } = await setupE2e(server.api);
  const load = await ctx.load();
  const flow = { url: server.url, requests: [], flow: 'e2e' as const, flowOptions: { users, password: USER_PASSWORD, defId }, connections: E2E_CONNECTIONS };
  const watch = await PgWatch.open(url);
  const completedSql = "select count(*) from process_instances where status = 'Completed'";
  // Storage: the relations' size before any instance ran, and after the measured window.
  const sizeBefore = await watch.relationBytes();
  const completedBefore = await watch.count(completedSql);
  await load.run({ ...flow, duration: E2E_WARMUP_S });
  const statements = await PgStatements.open(url);
  try {
    await statements?.reset();
    const before = await watch.count(completedSql);
    // Where the CPU goes per completed instance: the server's threads, the load generator and the
    // cluster's processes (the postmaster and everything under it: the backends).
    const postmaster = ctx.pg.postmasterPid();
    const pgBefore = postmaster === null ? null : processTreeTicks(postmaster);
    const window = cpuWindow(server.pid, load.pid, os.availableParallelism());
    const r = await load.run({ ...flow, duration: PG_E2E_SECONDS });
    const after = await watch.count(completedSql);
    const completed = r.counters.completed ?? 0;
    const cpu = window.stop(completed);
    const pgCpu = postmaster === null ? null : processCpuPer(pgBefore, processTreeTicks(postmaster), completed);
    const counted = (await statements?.read()) ?? null;
    const rate = completed / r.seconds;
    const failures = Object.entries(r.counters).filter(([k]) => k !== 'completed');
    log(`  PostgreSQL e2e: completed ${completed} in ${r.seconds.toFixed(1)} s = ${Math.round(rate)}/s (database: ${after - before}); chain p50 ${r.chainMs?.p50.toFixed(1)} ms p99 ${r.chainMs?.p99.toFixed(1)} ms${failures.length ? `; ${JSON.stringify(Object.fromEntries(failures))}` : ''}`);
    const serverCpu = cpu.requestThread + cpu.busiestOther + cpu.rest;
    log(`  CPU per completed instance: server ${serverCpu.toFixed(0)} µs (request thread ${cpu.requestThread.toFixed(0)}), PostgreSQL ${pgCpu?.toFixed(0) ?? '?'} µs, load generator ${cpu.load?.toFixed(0) ?? '?'} µs`);
    const perInstance = counted && completed > 0 ? perCompleted(counted, completed) : null;
    if (perInstance) {
      log(`  statements per completed instance: ${perInstance.total.toFixed(1)}; the most run:`);
      for (const st of perInstance.top) log(`    ${st.perInstance.toFixed(2)} × ${st.execUs.toFixed(0)} µs  ${st.text.slice(0, 110)}`);
    }
    data.e2e = { load: r, completed, rate, dbCompleted: after - before, cpu, pgCpu, statements: perInstance };
    const note = `database counted ${after - before}; chain p50 ${fmt(r.chainMs?.p50)} ms, p99 ${fmt(r.chainMs?.p99)} ms${sqlite?.load?.chainMs ? ` (SQLite ${fmt(sqlite.load.chainMs.p50)} / ${fmt(sqlite.load.chainMs.p99)} ms)` : ''}`;
    rows.push(infoRow('pg', 'e2e: completed instances', rate, 'inst/s', note, sqlite?.rate, BASE));
    rows.push(infoRow('pg', 'e2e: statements per completed instance', perInstance?.total ?? null, 'stmts', perInstance ? 'pg_stat_statements over the window, every connection of the database' : 'not counted: no pg_stat_statements'));
    const sqliteCpu = sqlite?.cpu ? sqlite.cpu.requestThread + sqlite.cpu.busiestOther + sqlite.cpu.rest : undefined;
    rows.push(infoRow('pg', 'e2e: CPU per instance: server', serverCpu, 'µs', `request thread ${cpu.requestThread.toFixed(0)} µs; SQLite's server in e2e beside it`, sqliteCpu, 'SQLite, same run'));
    rows.push(infoRow('pg', 'e2e: CPU per instance: PostgreSQL', pgCpu, 'µs', 'the postmaster and every process under it (backends, background workers)'));
    rows.push(infoRow('pg', 'e2e: CPU per instance: load generator', cpu.load, 'µs'));
    // The server's CPU per statement beside a bare round trip through the same driver, measured
    // now, with the server stopped (the bench process must be alone to read its own CPU).
    await server.stop();
    await storageOnPg(ctx, watch, rows, data, sizeBefore, after - completedBefore);
    const trip = await pgRoundTrip(url);
    log(`  one statement's round trip through pg, alone: ${trip.cpuUs.toFixed(0)} µs of CPU, ${trip.wallUs.toFixed(0)} µs of wall time`);
    data.e2e.roundTrip = trip;
    const perStatement = perInstance && perInstance.total > 0 ? serverCpu / perInstance.total : null;
    rows.push(infoRow('pg', 'e2e: server CPU per statement', perStatement, 'µs', "the server's CPU per instance ÷ its statements", trip.cpuUs, 'one round trip alone (pg driver, named single-row SELECT)'));
  } finally {
    await statements?.close();
    await watch.close();
    await server.stop();
  }
}

/**
 * Bytes stored per completed simple instance on PostgreSQL: the growth of every relation of the
 * schema (tables with their indexes and TOAST, pg_total_relation_size) over the e2e part, divided
 * by the instances it completed (warm-up included), measured twice once the server has stopped:
 * as allocated — the row versions UPDATEs left behind count until autovacuum makes their space
 * reusable — and after VACUUM FULL, which rewrites every relation with its live rows only (the
 * figure to set beside SQLite's, whose file reuses its free pages at once). Each relation grows by
 * 8-KB pages: some 20 relations make ±0.2 KB per instance over ~1,000 instances; and as in
 * `storage`, the chains still in flight at the end add bytes but no instance (≤ 50 of ~1,000).
 */
async function storageOnPg(ctx: Ctx, watch: PgWatch, rows: Row[], data: Record<string, any>, before: Map<string, number>, completed: number): Promise<void> {
  const sqlite = ctx.results.get('storage')?.data.perInstance;
  const growth = (after: Map<string, number>) => {
    let total = 0;
    const byTable: Record<string, number> = {};
    for (const [table, bytes] of after) {
      const d = bytes - (before.get(table) ?? 0);
      total += d;
      if (d !== 0 && completed > 0) byTable[table] = Math.round(d / completed);
    }
    const top = Object.entries(byTable).sort((a, b) => b[1] - a[1]);
    return { perInstance: completed > 0 ? total / completed : null, byTable: Object.fromEntries(top), top: top.slice(0, 5).map(([t, b]) => `${t} ${b}`).join(', ') };
  };
  const allocated = growth(await watch.relationBytes());
  await watch.vacuumFull();
  const live = growth(await watch.relationBytes());
  const kb = (b: number | null) => (b === null ? null : b / 1024);
  log(`  PostgreSQL storage per completed instance (${completed} completed): ${Math.round(allocated.perInstance ?? NaN)} bytes as allocated, ${Math.round(live.perInstance ?? NaN)} after VACUUM FULL; by table ${JSON.stringify(live.byTable)}`);
  data.storage = { completed, allocated, live };
  rows.push(infoRow('pg', 'storage: bytes per completed simple instance, live rows', kb(live.perInstance), 'KB', `${completed} instances, after VACUUM FULL; ${live.top}`, sqlite === undefined ? undefined : sqlite / 1024, BASE));
  rows.push(infoRow('pg', 'storage: the same, as allocated', kb(allocated.perInstance), 'KB', `dead row versions included until autovacuum reuses their space; ${allocated.top}`));
}

/** The statements counted over a window, per completed instance: the total and the most run. */
export function perCompleted(counted: readonly CountedStatement[], completed: number, top = 12): { total: number; top: (CountedStatement & { perInstance: number })[] } {
  const total = counted.reduce((sum, st) => sum + st.calls, 0) / completed;
  return { total, top: counted.slice(0, top).map((st) => ({ ...st, perInstance: st.calls / completed })) };
}

export const pgScenario: Scenario = {
  name: 'pg',
  title: 'reads, the four target writes, the dispatcher, e2e with storage and 10,000 users on PostgreSQL, beside the SQLite figures',
  needs: ['reads', 'writes', 'dispatch', 'e2e', 'storage', 'users10k'],
  async run(ctx) {
    const skipped = await skippedWithoutPg(ctx, 'pg');
    if (skipped) return skipped;
    const rows: Row[] = [];
    const data: Record<string, any> = { postgres: ctx.pg.info };
    await readsOnPg(ctx, rows, data);
    await writesOnPg(ctx, rows, data);
    await dispatchOnPg(ctx, rows, data);
    await e2eOnPg(ctx, rows, data);
    await usersOnPg(ctx, rows, data);
    return { rows, data };
  },
};
