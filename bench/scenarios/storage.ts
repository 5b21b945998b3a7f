/**
 * Storage per completed simple instance: run instances of simple.bpmn to completion over HTTP
 * (the e2e flow) on a fresh server, stop it, and compare the bytes SQLite uses (dbstat: pages of
 * each table and index) with the same database before. Divided by the instances completed
 * (instances still in flight when the load stopped are counted in the bytes but not in the
 * divisor, so the figure errs high by at most connections/instances).
 * Target: ≤ 5 KB per instance (instance, activity instances, work item, events, audit).
 */
import SQLite from 'better-sqlite3';
import type { Scenario } from '../lib/context.ts';
import { maxRow, infoRow } from '../lib/workload.ts';
import { log } from '../lib/util.ts';
import { USER_PASSWORD, setupE2e } from './e2e.ts';

function usage(dbPath: string): { total: number; byTable: Record<string, number>; counts: Record<string, number>; completed: number } {
  const db = new SQLite(dbPath, { readonly: true });
  try {
    const owner = new Map((db.prepare("select name, tbl_name from sqlite_master where type in ('table', 'index')").all() as { name: string; tbl_name: string }[]).map((r) => [r.name, r.tbl_name]));
    const byTable: Record<string, number> = {};
    let total = 0;
    for (const r of db.prepare('select name, sum(pgsize) bytes from dbstat group by name').all() as { name: string; bytes: number }[]) {
      const t = owner.get(r.name) ?? r.name;
      byTable[t] = (byTable[t] ?? 0) + r.bytes;
      total += r.bytes;
    }
    const counts: Record<string, number> = {};
    for (const t of ['process_instances', 'activity_instances', 'work_items', 'work_item_pool', 'participants', 'events', 'audit_trail']) {
      counts[t] = (db.prepare(`select count(*) n from "${t}"`).get() as { n: number }).n;
    }
    const completed = (db.prepare("select count(*) n from process_instances where status = 'Completed'").get() as { n: number }).n;
    return { total, byTable, counts, completed };
  } finally {
    db.close();
  }
}

export const storage: Scenario = {
  name: 'storage',
  title: 'bytes stored per completed simple instance',
  async run(ctx) {
    let server = await ctx.startServer('setup');
    const { defId, users } = await setupE2e(server.api, 20);
    await server.stop();
    const before = usage(server.dbPath);
    server = await ctx.startServer('main', { dataDir: server.dataDir });
    // Log in again after the restart (scrypt), outside the run.
    for (const u of users) await server.api.get('/EngineServer/Workflow/GetUUID', [u, USER_PASSWORD]);
    const load = await ctx.load();
    const r = await load.run({ url: server.url, requests: [], flow: 'e2e', flowOptions: { users, password: USER_PASSWORD, defId }, connections: 20, duration: 5 });
    await server.stop();
    const after = usage(server.dbPath);
    const completed = after.completed - before.completed;
    const instances = after.counts.process_instances - before.counts.process_instances;
    const perInstance = (after.total - before.total) / completed;
    const byTable: Record<string, number> = {};
    for (const t of Object.keys(after.byTable)) {
      const d = after.byTable[t] - (before.byTable[t] ?? 0);
      if (d !== 0) byTable[t] = Math.round(d / completed);
    }
    const rowsPer: Record<string, number> = {};
    for (const t of Object.keys(after.counts)) rowsPer[t] = Math.round(((after.counts[t] - before.counts[t]) / completed) * 100) / 100;
    log(`  ${completed} completed of ${instances} instances; ${Math.round(perInstance)} bytes each; by table ${JSON.stringify(byTable)}; rows each ${JSON.stringify(rowsPer)}`);
    return {
      rows: [
        maxRow('storage', 'bytes per completed simple instance', perInstance / 1024, 'KB', 5, undefined, undefined, `${completed} instances; tables+indexes: ${Object.entries(byTable).sort((a, b) => b[1] - a[1]).map(([t, b]) => `${t} ${b}`).join(', ')}`),
        infoRow('storage', 'rows per instance', Object.values(rowsPer).reduce((a, b) => a + b, 0), 'rows', JSON.stringify(rowsPer)),
      ],
      data: { completed, instances, perInstance, byTable, rowsPer, before, after, load: r },
    };
  },
};
