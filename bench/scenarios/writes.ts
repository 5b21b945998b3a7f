/**
 * State-changing calls accepted (Sent, durable), 50 connections, each op on its own group of
 * seeded targets: AssignWorkItem and UndoAssignWorkItem on distinct items, CreateLinkedWorkItem,
 * CancelProcInst (plus CreateProcInst and CompleteWorkItem, informational, for the latency
 * scenario). The dispatcher runs as usual; between ops the backlog is left to drain.
 * Target: ≥ 10,000 events/s and ≥ 2 × raw single-row durable commits (group commit).
 */
import { rawSqliteCommits } from '../lib/baselines.ts';
import type { Row, Scenario } from '../lib/context.ts';
import { DbWatch, infoRow, makeWriteTemplates, measureWrite, ratioRow, seedWriteGroups, writeOps } from '../lib/workload.ts';
import { log } from '../lib/util.ts';
import { cpuTotal, describeCpu } from '../lib/threadCpu.ts';

export const GROUP = 60_000;

export const writes: Scenario = {
  name: 'writes',
  title: 'state-changing calls accepted vs raw SQLite commits (50 connections)',
  async run(ctx) {
    const raw = rawSqliteCommits(3);
    log(`  raw better-sqlite3 single-row durable commits: ${Math.round(raw.commitsPerSec)}/s`);
    let server = await ctx.startServer('setup');
    const templates = await makeWriteTemplates(server.api);
    await server.stop();
    const groups = seedWriteGroups(server.dbPath, templates, { assign: GROUP, undo: GROUP, link: 2000, cancel: GROUP, complete: GROUP });
    server = await ctx.startServer('main', { dataDir: server.dataDir });
    const watch = new DbWatch(server.dbPath);
    const rows: Row[] = [];
    const data: Record<string, any> = { raw, seed: { seconds: groups.seedSeconds, rows: groups.seedRows }, ops: {} };
    try {
      // The server just restarted on a freshly seeded file: warm it up (JIT, SQLite page cache) with
      // calls that use no seeded target, so that the first op measured is not the cold one.
      const load = await ctx.load();
      await load.run({ url: server.url, requests: [writeOps(groups, templates).find((o) => o.name === 'CreateProcInst')!.request], duration: 2, connections: 50 });
      await watch.drain();
      for (const op of writeOps(groups, templates)) {
        const m = await measureWrite(ctx, server, watch, op, undefined, { serverPid: server.pid });
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
    data.maxRate = Object.fromEntries(Object.entries(data.ops).map(([k, v]: [string, any]) => [k, v.accepted.rate]));
    return { rows, data };
  },
};
