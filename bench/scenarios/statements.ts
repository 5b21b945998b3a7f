/**
 * Where the server's time goes, measured rather than inferred from a profile: every SQLite
 * statement the server runs is counted and timed (bench/lib/statementCounter.mjs, preloaded; the
 * server's code is unchanged) while it serves (1) GetActivityInst at full speed, (2) the e2e
 * chain and (3) each write op with a target (AssignWorkItem since the thirty-second round; the
 * other three since the forty-second) at full speed on its own seeded targets, as `writes`
 * measures them (`WAYMARK_BENCH_WRITE_OPS` names fewer). Per unit of work: statements by kind,
 * SQLite's time, and the server process's CPU time.
 * `ceiling` is the rate at which SQLite's time alone fills one core: no tuning of the JavaScript
 * around the statements can pass it while those statements run on one thread (the writer thread).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Row, Scenario } from '../lib/context.ts';
import type { ServerHandle } from '../lib/server.ts';
import { feedsOf, infoRow, makeWriteTemplates, readOps, seedReads, seedWriteGroups, writeOps, READ_CONNECTIONS, WRITE_CONNECTIONS } from '../lib/workload.ts';
import { log, sleep, tempDir } from '../lib/util.ts';
import { setupE2e, USER_PASSWORD } from './e2e.ts';

/** Seeded targets per write op for (3): more than 4 s (the warm-up and the window) at 15,000 calls/s. */
const WRITE_TARGETS = 60_000;
/** (3)'s window per op, after a second of warm-up. */
const WRITE_WINDOW_S = 3;

type Tallies = Record<string, { n: number; ns: number }>;

interface Snapshot {
  tallies: Tallies;
  cpuMs: number;
}

export const statements: Scenario = {
  name: 'statements',
  title: "where the server's time goes: SQLite statements per request and per instance, under load",
  async run(ctx) {
    const file = path.join(tempDir('statements'), 'statements.json');
    const counter = path.join(import.meta.dirname, '..', 'lib', 'statementCounter.mjs');
    // Work items for (3), seeded as `writes` seeds them while no server runs.
    const setup = await ctx.startServer('setup');
    const templates = await makeWriteTemplates(setup.api);
    await setup.stop();
    const only = (process.env.WAYMARK_BENCH_WRITE_OPS ?? '').split(',').filter((n) => n !== '');
    const wanted = (name: string) => only.length === 0 || only.includes(name);
    const targets = (name: string) => (wanted(name) ? WRITE_TARGETS : 0);
    const groups = seedWriteGroups(setup.dbPath, templates, {
      assign: targets('AssignWorkItem'),
      undo: targets('UndoAssignWorkItem'),
      link: wanted('CreateLinkedWorkItem') ? 2000 : 0,
      cancel: targets('CancelProcInst'),
      complete: 0,
    });
    // The server as it runs by default (with its writer thread: the counter in each thread
    // writes its own totals, summed here).
    const server = await ctx.startServer('main', {
      dataDir: setup.dataDir,
      env: { NODE_OPTIONS: `--import tsx --import ${counter}`, WAYMARK_BENCH_STATEMENTS_FILE: file },
    });
    const snap = () => snapshot(server, file);
    const rows: Row[] = [];
    const data: Record<string, unknown> = {};
    const load = await ctx.load();

    // (1) GetActivityInst, 50 connections.
    const op = readOps(await seedReads(server.api))[0];
    const feeds = op.feed ? { [op.feed.name]: { ids: op.feed.ids, mode: 'cycle' as const } } : undefined;
    await load.run({ url: server.url, requests: [op.request], feeds, duration: 1, connections: READ_CONNECTIONS });
    let before = await snap();
    const reads = await load.run({ url: server.url, requests: [op.request], feeds, duration: 5, connections: READ_CONNECTIONS });
    let after = await snap();
    const perRead = per(before, after, reads.total);
    log(`  GetActivityInst: ${Math.round(reads.rate)}/s; per request ${describe(perRead)}`);
    rows.push(
      infoRow('statements', 'GetActivityInst: SQLite statements per request', perRead.statements, 'stmts'),
      infoRow('statements', 'GetActivityInst: SQLite time per request', perRead.sqliteUs, 'µs', `server CPU ${perRead.cpuUs.toFixed(0)} µs per request`),
      infoRow('statements', 'GetActivityInst: ceiling with SQLite alone on one core', 1e6 / perRead.sqliteUs, 'req/s', `measured ${Math.round(reads.rate)}/s`),
    );
    data.reads = { rate: reads.rate, ...perRead };

    // (2) The e2e chain: CreateProcInst -> GetWorkListByUserID -> AssignWorkItem -> CompleteWorkItem.
    const { defId, users } = await setupE2e(server.api);
    const flow = { url: server.url, requests: [], flow: 'e2e' as const, flowOptions: { users, password: USER_PASSWORD, defId }, connections: 50 };
    await load.run({ ...flow, duration: 2 });
    before = await snap();
    const chain = await load.run({ ...flow, duration: 8 });
    after = await snap();
    const completed = chain.counters.completed ?? 0;
    const perInstance = per(before, after, completed);
    log(`  e2e: ${Math.round(completed / chain.seconds)} completed/s; per instance ${describe(perInstance)}`);
    rows.push(
      infoRow('statements', 'e2e: SQLite statements per completed instance', perInstance.statements, 'stmts', `${perInstance.commits.toFixed(2)} commits`),
      infoRow('statements', 'e2e: SQLite time per completed instance', perInstance.sqliteUs, 'µs', `server CPU ${perInstance.cpuUs.toFixed(0)} µs per instance`),
      infoRow('statements', 'e2e: ceiling with SQLite alone on one core', 1e6 / perInstance.sqliteUs, 'inst/s', `measured ${Math.round(completed / chain.seconds)}/s; target 1,500`),
    );
    data.e2e = { rate: completed / chain.seconds, ...perInstance };

    // (3) Each write op with a target on its own seeded targets, 50 connections, as `writes`
    // measures them: per call, the statements of both threads (admission and application).
    for (const op of writeOps(groups, templates).filter((o) => o.target && wanted(o.name))) {
      const run = async (seconds: number) => {
        const r = await load.run({ url: server.url, requests: [op.request], feeds: feedsOf(op), duration: seconds, connections: WRITE_CONNECTIONS });
        if (op.feed && op.feedName) op.feed.advance(r.feedUsed[op.feedName]);
        return r;
      };
      await run(1);
      before = await snap();
      const writes = await run(WRITE_WINDOW_S);
      after = await snap();
      if (writes.non2xx) log(`  ${op.name}: ${writes.non2xx} non-2xx ${JSON.stringify(writes.statusCodes)}`);
      const perWrite = per(before, after, writes.ok);
      log(`  ${op.name}: ${Math.round(writes.rate)}/s; per call ${describe(perWrite)}`);
      for (const [kind, v] of Object.entries(perWrite.kinds)) log(`    ${kind}: ${v.n.toFixed(3)} per call, ${v.us.toFixed(1)} µs`);
      rows.push(
        infoRow('statements', `${op.name}: SQLite statements per call`, perWrite.statements, 'stmts', `${perWrite.commits.toFixed(3)} commits`),
        infoRow('statements', `${op.name}: SQLite time per call`, perWrite.sqliteUs, 'µs', `of which COMMIT (its fsync's wait included) ${(perWrite.kinds.commit?.us ?? 0).toFixed(0)} µs; server CPU ${perWrite.cpuUs.toFixed(0)} µs per call`),
        infoRow('statements', `${op.name}: ceiling with SQLite alone on one core`, 1e6 / perWrite.sqliteUs, 'calls/s', `measured ${Math.round(writes.rate)}/s; target 10,000`),
      );
      data[op.name === 'AssignWorkItem' ? 'assign' : op.name] = { rate: writes.rate, ...perWrite };
    }
    await server.stop();
    return { rows, data };
  },
};

function per(a: Snapshot, b: Snapshot, units: number) {
  const kinds: Record<string, { n: number; us: number }> = {};
  let statements = 0;
  let ns = 0;
  for (const [kind, t] of Object.entries(b.tallies)) {
    const n = t.n - (a.tallies[kind]?.n ?? 0);
    const dns = t.ns - (a.tallies[kind]?.ns ?? 0);
    if (n <= 0) continue;
    kinds[kind] = { n: n / units, us: dns / 1000 / units };
    statements += n;
    ns += dns;
  }
  return {
    statements: statements / units,
    commits: kinds.commit?.n ?? 0,
    sqliteUs: ns / 1000 / units,
    cpuUs: ((b.cpuMs - a.cpuMs) * 1000) / units,
    kinds: Object.fromEntries(Object.entries(kinds).sort((x, y) => y[1].us - x[1].us)),
  };
}

function describe(p: ReturnType<typeof per>): string {
  const top = Object.entries(p.kinds)
    .slice(0, 8)
    .map(([k, v]) => `${k} ${v.n.toFixed(2)}x/${v.us.toFixed(0)} µs`)
    .join(', ');
  return `${p.statements.toFixed(1)} statements, SQLite ${p.sqliteUs.toFixed(0)} µs of ${p.cpuUs.toFixed(0)} µs CPU (${((100 * p.sqliteUs) / p.cpuUs).toFixed(0)} %); by time: ${top}`;
}

/** The server's statement totals, of all its threads (written on SIGUSR2), and its CPU time so far. */
async function snapshot(server: ServerHandle, file: string): Promise<Snapshot> {
  const dir = path.dirname(file);
  const ours = () => fs.readdirSync(dir).filter((f) => f === path.basename(file) || f.startsWith(`${path.basename(file)}.thread`)).filter((f) => !f.endsWith('.tmp'));
  for (const f of ours()) fs.rmSync(path.join(dir, f), { force: true });
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 100 && !fs.existsSync(file); i++) await sleep(20);
  // The other threads answer over a BroadcastChannel, within a few milliseconds of the main one.
  await sleep(200);
  const tallies: Tallies = {};
  for (const f of ours()) {
    for (const [kind, t] of Object.entries(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Tallies)) {
      const sum = (tallies[kind] ??= { n: 0, ns: 0 });
      sum.n += t.n;
      sum.ns += t.ns;
    }
  }
  const stat = fs.readFileSync(`/proc/${server.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second here).
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  return { tallies, cpuMs };
}
