/**
 * The reads, the four target writes and the end-to-end chain again with the server on PostgreSQL
 * (a throwaway cluster the bench starts: bench/lib/pg.ts), each beside the SQLite figure of the
 * same run as its baseline. One fresh database per part, 50 connections, shorter windows than the
 * SQLite scenarios (reads and writes 1 s warm-up + 3 s, e2e 2 s + 6 s: PG_WINDOW_S). Write targets are
 * copied straight into the database (PgSeeder), sized for up to 0.6 × the SQLite write rates.
 * No PostgreSQL binaries: one "skipped" row, and the run goes on.
 */
import type { Ctx, Row, Scenario } from '../lib/context.ts';
import os from 'node:os';
import { pgRoundTrip, PgStatements, PgWatch, seedWriteGroupsPg, type CountedStatement } from '../lib/pg.ts';
import { cpuWindow, processCpuPer, processTreeTicks } from '../lib/threadCpu.ts';
import { infoRow, makeWriteTemplates, measureRead, measureWrite, readOps, seedReads, writeOps, WARMUP_S } from '../lib/workload.ts';
import { fmt, log } from '../lib/util.ts';
import { setupE2e, USER_PASSWORD } from './e2e.ts';

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

async function e2eOnPg(ctx: Ctx, rows: Row[], data: Record<string, any>): Promise<void> {
  const sqlite = ctx.results.get('e2e')?.data;
  const url = await ctx.pg.createDatabase('e2e');
  const server = await ctx.startServer('e2e', { databaseUrl: url });
  const { defId, users } = await setupE2e(server.api);
  const load = await ctx.load();
  const flow = { url: server.url, requests: [], flow: 'e2e' as const, flowOptions: { users, password: USER_PASSWORD, defId }, connections: 50 };
  await load.run({ ...flow, duration: 2 });
  const watch = await PgWatch.open(url);
  const statements = await PgStatements.open(url);
  const completedSql = "select count(*) from process_instances where status = 'Completed'";
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

/** The statements counted over a window, per completed instance: the total and the most run. */
export function perCompleted(counted: readonly CountedStatement[], completed: number, top = 12): { total: number; top: (CountedStatement & { perInstance: number })[] } {
  const total = counted.reduce((sum, st) => sum + st.calls, 0) / completed;
  return { total, top: counted.slice(0, top).map((st) => ({ ...st, perInstance: st.calls / completed })) };
}

export const pgScenario: Scenario = {
  name: 'pg',
  title: 'reads, the four target writes and e2e on PostgreSQL, beside the SQLite figures',
  needs: ['reads', 'writes', 'e2e'],
  async run(ctx) {
    const cluster = await ctx.pg.ensure();
    if (!cluster) {
      log(`  skipped: ${ctx.pg.unavailable}`);
      return { rows: [skippedRow('pg', ctx.pg.unavailable)], data: { skipped: ctx.pg.unavailable } };
    }
    const rows: Row[] = [];
    const data: Record<string, any> = { postgres: ctx.pg.info };
    await readsOnPg(ctx, rows, data);
    await writesOnPg(ctx, rows, data);
    await e2eOnPg(ctx, rows, data);
    return { rows, data };
  },
};
