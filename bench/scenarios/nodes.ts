/**
 * One node vs two nodes on one PostgreSQL database: the e2e chain (completed instances/s) and
 * AssignWorkItem (accepted events/s), first against one server, then —
 * a second server started on the same database — with the 50 connections alternating between the
 * two (connection i goes to node i % 2; an e2e chain stays on its connection's node, while its
 * events may be applied by either node's dispatcher and its `Prefer: wait` woken by NOTIFY).
 * The second server is not running during the one-node measurements (its dispatcher would share
 * the work). Windows as in `pg` (e2e 2 s warm-up + 6 s, writes 1 s + 3 s). GetWorkItem is left
 * out to keep the PostgreSQL part of `npm run bench` within its time budget (~150 s).
 *
 * Both nodes, PostgreSQL and the load generator share the machine's cores (2 here), so the ratio
 * measures what a second node costs or saves in coordination (claims, row locks, notifications,
 * the security-epoch check on every request), not scale-out.
 */
import { pool } from '../lib/api.ts';
import type { Ctx, Row, Scenario } from '../lib/context.ts';
import { IdFeed, type LoadResult } from '../lib/load.ts';
import { PgSeeder, PgWatch } from '../lib/pg.ts';
import type { ServerHandle } from '../lib/server.ts';
import { infoRow, measureWrite, W, WARMUP_S, type WriteMeasurement, type WriteOp } from '../lib/workload.ts';
import { fmt, log } from '../lib/util.ts';
import { setupE2e, USER_PASSWORD } from './e2e.ts';
import { PG_E2E_SECONDS, PG_WINDOW_S, skippedWithoutPg } from './pg.ts';

const COMPLETED_SQL = "select count(*) from process_instances where status = 'Completed'";

interface Target {
  label: string;
  url: string;
  urls?: string[];
}

interface Figures {
  e2e: { load: LoadResult; rate: number; dbCompleted: number };
  write: WriteMeasurement;
}

async function measureAll(ctx: Ctx, target: Target, watch: PgWatch, e2e: { defId: string; users: string[] }, write: WriteOp): Promise<Figures> {
  const load = await ctx.load();
  const flow = { url: target.url, urls: target.urls, requests: [], flow: 'e2e' as const, flowOptions: { users: e2e.users, password: USER_PASSWORD, defId: e2e.defId }, connections: 50 };
  await load.run({ ...flow, duration: 2 });
  await watch.drain();
  const before = await watch.count(COMPLETED_SQL);
  const r = await load.run({ ...flow, duration: PG_E2E_SECONDS });
  const dbCompleted = (await watch.count(COMPLETED_SQL)) - before;
  const rate = (r.counters.completed ?? 0) / r.seconds;
  const failures = Object.entries(r.counters).filter(([k]) => k !== 'completed');
  log(`  ${target.label}: e2e ${Math.round(rate)} completed/s (database ${dbCompleted}); chain p50 ${r.chainMs?.p50.toFixed(1)} ms p99 ${r.chainMs?.p99.toFixed(1)} ms${failures.length ? `; ${JSON.stringify(Object.fromEntries(failures))}` : ''}`);
  await watch.drain();
  // No wait for the backlog afterwards: the next configuration drains it (with node 2's help)
  // before its measurements, and the servers stop after the last.
  const w = await measureWrite(ctx, target, watch, write, PG_WINDOW_S, { drainAfter: false });
  return { e2e: { load: r, rate, dbCompleted }, write: w };
}

export const nodes: Scenario = {
  name: 'nodes',
  title: 'one node vs two nodes on one PostgreSQL database (e2e, AssignWorkItem)',
  async run(ctx) {
    const skipped = await skippedWithoutPg(ctx, 'nodes');
    if (skipped) return skipped;
    const url = await ctx.pg.createDatabase('nodes');
    const one: ServerHandle = await ctx.startServer('node1', { databaseUrl: url });
    const e2e = await setupE2e(one.api);
    // AssignWorkItem targets: copies of an instance whose work item is New in the admin's pool, one
    // group per configuration, sized from the pg scenario's rate when it ran (2.5 × for two nodes).
    const template = await one.api.startInstance(e2e.defId);
    const pgRate: number = ctx.results.get('pg')?.data.writes?.ops?.AssignWorkItem?.accepted.rate ?? 3000;
    const size = (factor: number) => Math.max(6000, Math.ceil(pgRate * (PG_WINDOW_S + WARMUP_S) * factor));
    const seeder = await PgSeeder.open(url);
    let groups: { one: string[]; two: string[] };
    try {
      const t = await seeder.template(template);
      const a = await seeder.clone(t, size(1.5));
      const b = await seeder.clone(t, size(2.5));
      await seeder.analyze();
      groups = { one: a.ids.map((x) => x.workItemIds[0]), two: b.ids.map((x) => x.workItemIds[0]) };
      log(`  seeded ${a.rows + b.rows} rows of AssignWorkItem targets in ${(a.seconds + b.seconds).toFixed(1)} s`);
    } finally {
      await seeder.close();
    }
    const assign = (ids: string[]): WriteOp => ({ name: 'AssignWorkItem', target: true, feedName: 'assign', feed: new IdFeed(ids), request: { method: 'POST', path: `${W}/AssignWorkItem/{feed:assign}`, body: '{}' } });
    const watch = await PgWatch.open(url);
    const data: Record<string, any> = { postgres: ctx.pg.info, targets: { one: groups.one.length, two: groups.two.length } };
    try {
      data.one = await measureAll(ctx, { label: 'one node', url: one.url }, watch, e2e, assign(groups.one));

      const two = await ctx.startServer('node2', { databaseUrl: url });
      // Verified passwords are cached per node: the first login of each user on node 2 now.
      await pool([...e2e.users], 4, async (n) => {
        const r = await two.api.get('/EngineServer/Workflow/GetUUID', [n, USER_PASSWORD]);
        if (r.status !== 200) throw new Error(`login ${n} on node 2: ${r.status}`);
      });
      await two.api.get('/EngineServer/Workflow/GetUUID');
      data.two = await measureAll(ctx, { label: 'two nodes', url: one.url, urls: [one.url, two.url] }, watch, e2e, assign(groups.two));
    } finally {
      await watch.close();
    }
    const o = data.one as Figures;
    const t = data.two as Figures;
    const chain = (f: Figures) => `${fmt(f.e2e.load.chainMs?.p50)} / ${fmt(f.e2e.load.chainMs?.p99)} ms`;
    const exhausted = (f: Figures, who: string) => (f.write.accepted.feedExhausted.length ? `; ${who} ran out of seeded targets: lower bound` : '');
    const rows: Row[] = [
      infoRow('nodes', 'e2e completed instances, two nodes', t.e2e.rate, 'inst/s', `database counted ${t.e2e.dbCompleted} (one node ${o.e2e.dbCompleted}); chain p50 / p99 ${chain(t)} (one node ${chain(o)})`, o.e2e.rate, 'one node'),
      infoRow(
        'nodes',
        'AssignWorkItem accepted, two nodes',
        t.write.accepted.rate,
        'events/s',
        `applied during load ${Math.round(t.write.appliedDuring)}/s (one node ${Math.round(o.write.appliedDuring)}/s); p99 ${fmt(t.write.accepted.latencyMs.p99)} ms (one node ${fmt(o.write.accepted.latencyMs.p99)} ms)${exhausted(t, 'two nodes')}${exhausted(o, 'one node')}`,
        o.write.accepted.rate,
        'one node',
      ),
    ];
    return { rows, data };
  },
};
