/**
 * State-changing calls accepted (Sent, durable), 50 connections, each op on its own group of
 * seeded targets: AssignWorkItem and UndoAssignWorkItem on distinct items, CreateLinkedWorkItem,
 * CancelProcInst (plus CreateProcInst and CompleteWorkItem, informational, for the latency
 * scenario). The dispatcher runs as usual; between ops the backlog is left to drain.
 * Also measured: the floor, AssignWorkItem on distinct items answered with the fewest statements
 * on one thread (e2eFloorServer.ts), under the same load.
 * Target: ≥ 10,000 events/s and ≥ 2 × raw single-row durable commits (group commit).
 */
import os from 'node:os';
import { rawSqliteCommits } from '../lib/baselines.ts';
import type { Ctx, Row, Scenario } from '../lib/context.ts';
import { floorItemId, startE2eFloor } from '../lib/e2eFloor.ts';
import { IdFeed } from '../lib/load.ts';
import { DbWatch, infoRow, makeWriteTemplates, measureWrite, ratioRow, seedWriteGroups, W, WARMUP_S, WINDOW_S, WRITE_CONNECTIONS, writeOps } from '../lib/workload.ts';
import { ADMIN, ADMIN_PASSWORD, log, tempDir } from '../lib/util.ts';
import { cpuTotal, cpuWindow, describeCpu } from '../lib/threadCpu.ts';

/**
 * Seeded targets per op: enough for the warm-up and the window at 20,000 events/s, above the
 * target's 2 × raw commits here (14,600-17,500/s on 2026-11-29). With 60,000 (until the fortieth
 * round) an op measured at ~10,000/s ran out during its window: the calls after that were
 * answered 409 and the 2xx rate came out low (the row said "lower bound"), AssignWorkItem 10,243
 * and UndoAssignWorkItem 9,866 events/s in the full run of 2026-11-29 05:11.
 */
export const GROUP = 20_000 * (WARMUP_S + WINDOW_S);
/**
 * The first op measured warms up this much longer: the server has just restarted, and the
 * CreateProcInst calls before it warm neither that op's code nor its tables' pages. Four
 * alternated pairs (2026-11-29 10:25-10:32, AssignWorkItem first, then UndoAssignWorkItem and
 * CancelProcInst): AssignWorkItem ÷ UndoAssignWorkItem 0.87, 0.83, 0.81, 0.80 with the usual 1 s
 * and 0.92, 0.99, 0.86, 0.94 with 3 s more; AssignWorkItem 10,875 events/s on average against
 * 12,019, the later ops unchanged (docs/performance-log.md, forty-second round).
 */
const FIRST_OP_EXTRA_WARMUP_S = 3;
/** AssignWorkItem's targets, measured first: its longer warm-up too. */
const FIRST_GROUP = 20_000 * (WARMUP_S + FIRST_OP_EXTRA_WARMUP_S + WINDOW_S);
/** The floor's window: shorter than Waymark's (5 s), to keep the full run under 10 minutes; ~15,000 calls. */
const FLOOR_WINDOW_S = 3;
/**
 * The floor's New work items: enough for its warm-up and window at 30,000/s. With 50,000 it ran
 * out at 13,260/s on 2026-11-27 (its row then says "lower bound"); 80,000 (until the fortieth
 * round) allowed 20,000/s, and it measured 17,543-20,575/s in the full runs of 2026-11-28/29.
 * Seeding 120,000 takes its server about a second.
 */
const FLOOR_ITEMS = 30_000 * (WARMUP_S + FLOOR_WINDOW_S);

export const writes: Scenario = {
  name: 'writes',
  title: 'state-changing calls accepted vs raw SQLite commits (50 connections)',
  async run(ctx) {
    const raw = rawSqliteCommits(3);
    const c = raw.commitMs;
    log(`  raw better-sqlite3 single-row durable commits: ${Math.round(raw.commitsPerSec)}/s; one commit p50 ${c.p50.toFixed(2)} ms, p99 ${c.p99.toFixed(2)} ms, max ${c.max.toFixed(1)} ms`);
    const rows: Row[] = [infoRow('writes', 'raw commits: one commit p99', c.p99, 'ms', `p50 ${c.p50.toFixed(2)} ms, max ${c.max.toFixed(1)} ms: the disk's own tail for one durable commit`)];
    let server = await ctx.startServer('setup');
    const templates = await makeWriteTemplates(server.api);
    await server.stop();
    const groups = seedWriteGroups(server.dbPath, templates, { assign: FIRST_GROUP, undo: GROUP, link: 2000, cancel: GROUP, complete: GROUP });
    server = await ctx.startServer('main', { dataDir: server.dataDir });
    const watch = new DbWatch(server.dbPath);
    const data: Record<string, any> = { raw, seed: { seconds: groups.seedSeconds, rows: groups.seedRows }, ops: {} };
    try {
      // The server just restarted on a freshly seeded file: warm it up (JIT, SQLite page cache) with
      // calls that use no seeded target, so that the first op measured is not the cold one.
      const load = await ctx.load();
      await load.run({ url: server.url, requests: [writeOps(groups, templates).find((o) => o.name === 'CreateProcInst')!.request], duration: 2, connections: 50 });
      await watch.drain();
      // WAYMARK_BENCH_WRITE_OPS=AssignWorkItem: only these (a profile of one op; `latency` then lacks the others).
      const only = (process.env.WAYMARK_BENCH_WRITE_OPS ?? '').split(',').filter((n) => n !== '');
      let first = true;
      for (const op of writeOps(groups, templates).filter((o) => only.length === 0 || only.includes(o.name))) {
        const warmupS = WARMUP_S + (first ? FIRST_OP_EXTRA_WARMUP_S : 0);
        first = false;
        const m = await measureWrite(ctx, server, watch, op, undefined, { serverPid: server.pid, warmupS });
        data.ops[op.name] = m;
        const note = m.accepted.feedExhausted.length ? 'ran out of seeded targets: lower bound' : m.accepted.non2xx ? `${m.accepted.non2xx} non-2xx` : undefined;
        if (op.target) rows.push(ratioRow('writes', `${op.name} accepted`, m.accepted.rate, 'events/s', raw.commitsPerSec, 'raw commits', 2, { min: 10_000, note }));
        else rows.push(infoRow('writes', `${op.name} accepted`, m.accepted.rate, 'events/s', note, raw.commitsPerSec, 'raw commits'));
        rows.push(infoRow('writes', `${op.name} p99`, m.accepted.latencyMs.p99, 'ms'));
        // What bounds the figure on this machine: the CPU each accepted event cost (its
        // admission and, meanwhile, the application of what was admitted), per thread.
        if (m.cpu) rows.push(infoRow('writes', `${op.name} CPU per event, server + load generator`, cpuTotal(m.cpu), 'µs', describeCpu(m.cpu, 'event')));
        const drained = m.drain && m.drain.events >= 1000 ? `; backlog of ${m.drain.events} drained at ${Math.round(m.drain.rate)}/s after the load` : '';
        rows.push(infoRow('writes', `${op.name} applied by dispatcher during load`, m.appliedDuring, 'events/s', `backlog ${m.backlogAtEnd} at end${drained}`));
      }
    } finally {
      watch.close();
    }
    // A diagnostic: the figures stand without it, so a floor that fails only loses its rows.
    const floor = await assignFloor(ctx, templates.simpleDefId).catch((e: Error) => {
      log(`  floor failed: ${e.message}`);
      return null;
    });
    data.floor = floor;
    if (floor) {
      const assign = data.ops.AssignWorkItem?.accepted.rate as number | undefined;
      const note = `e2eFloorServer.ts: read, pool check, update, event row; commits shared per turn; ${describeCpu(floor.cpu, 'event')}${floor.exhausted ? '; ran out of items: lower bound' : ''}`;
      rows.push(infoRow('writes', 'floor: AssignWorkItem, fewest statements, one thread', floor.rate, 'events/s', note, raw.commitsPerSec, 'raw commits'));
      if (assign) rows.push(infoRow('writes', 'AssignWorkItem accepted ÷ floor', assign / floor.rate, '×', `the target (10,000/s) is ${(10_000 / floor.rate).toFixed(2)} × this run's floor`));
    }
    data.maxRate = Object.fromEntries(Object.entries(data.ops).map(([k, v]: [string, any]) => [k, v.accepted.rate]));
    return { rows, data };
  },
};

/**
 * AssignWorkItem against the floor (e2eFloorServer.ts with seeded New items pooled to the admin):
 * the same connections and warm-up as Waymark's, a shorter window, each item taken once.
 */
async function assignFloor(ctx: Ctx, defId: string) {
  const floor = await startE2eFloor(ctx.track(tempDir('writes-floor')), defId, [ADMIN], ADMIN_PASSWORD, FLOOR_ITEMS);
  try {
    const load = await ctx.load();
    const feed = new IdFeed(Array.from({ length: FLOOR_ITEMS }, (_, i) => floorItemId(i)));
    const run = async (seconds: number) => {
      const r = await load.run({ url: floor.url, requests: [{ method: 'POST', path: `${W}/AssignWorkItem/{feed:floor}`, body: '{}' }], feeds: { floor: feed.remaining() }, duration: seconds, connections: WRITE_CONNECTIONS });
      feed.advance(r.feedUsed.floor);
      return r;
    };
    await run(WARMUP_S);
    const window = cpuWindow(floor.pid, load.pid, os.availableParallelism());
    const r = await run(FLOOR_WINDOW_S);
    const cpu = window.stop(r.ok);
    log(`  floor (AssignWorkItem, fewest statements, one thread): ${Math.round(r.rate)}/s, p99 ${r.latencyMs.p99} ms; ${describeCpu(cpu, 'event')}; ${JSON.stringify(r.statusCodes)}`);
    return { rate: r.rate, p99: r.latencyMs.p99, cpu, statusCodes: r.statusCodes, exhausted: r.feedExhausted.length > 0 };
  } finally {
    await floor.stop();
  }
}
