/**
 * `latency` on PostgreSQL, only when named (needs `pg`, whose maxima it halves): the four reads
 * and the four target writes, each offered at half the rate `pg` measured for it, paced over 64
 * connections, 0.5 s of warm-up and a 4-s window, as `latency` does on SQLite — the reads beside
 * bare Fastify at the same rate, the writes beside what the disk alone did to requests due at the
 * same moments (PostgreSQL flushes its WAL on the same disk).
 *
 * Not in the full run: its ~60 s would take `npm run bench` past ten minutes.
 * Target, as on SQLite: p99 ≤ 10 ms for every operation.
 */
import type { Row, Scenario } from '../lib/context.ts';
import { PgWatch, seedWriteGroupsPg } from '../lib/pg.ts';
import { makeWriteTemplates, readOps, seedReads, writeOps, WINDOW_S } from '../lib/workload.ts';
import { readLatencies, writeLatencies, type LatencyData } from './latency.ts';
import { skippedWithoutPg } from './pg.ts';

export const pgLatency: Scenario = {
  name: 'pg-latency',
  title: 'p99 latency at half the maximum rate on PostgreSQL (only when named)',
  needs: ['pg'],
  async run(ctx) {
    const skipped = await skippedWithoutPg(ctx, 'pg-latency');
    if (skipped) return skipped;
    const pgData = ctx.results.get('pg')?.data;
    const readMax: Record<string, number> = Object.fromEntries(Object.entries(pgData?.reads ?? {}).map(([op, r]: [string, any]) => [op, r.rate]));
    const writeMax: Record<string, number> = Object.fromEntries(Object.entries(pgData?.writes?.ops ?? {}).map(([op, m]: [string, any]) => [op, m.accepted.rate]));
    const url = await ctx.pg.createDatabase('latency');
    const server = await ctx.startServer('main', { databaseUrl: url });
    const rows: Row[] = [];
    const data: LatencyData = {};
    const watch = await PgWatch.open(url);
    try {
      const set = await seedReads(server.api);
      const templates = await makeWriteTemplates(server.api);
      // Half the rate over warm-up and window, with room to spare; at least 2,000 per op.
      const size = (op: string) => Math.max(2_000, Math.ceil(((writeMax[op] ?? 1_000) / 2) * (WINDOW_S + 1) * 1.5));
      // The database takes the copies while the server runs (idle): as in `pg`'s writes part.
      const groups = await seedWriteGroupsPg(url, templates, { assign: size('AssignWorkItem'), undo: size('UndoAssignWorkItem'), link: 2000, cancel: size('CancelProcInst'), complete: 0 });
      const load = await ctx.load();
      await readLatencies(load, 'pg-latency', server, readOps(set), readMax, rows, data);
      // The four target writes: `pg` measures no maximum for CreateProcInst and CompleteWorkItem.
      const ops = writeOps(groups, templates).filter((o) => o.target);
      const diskFloors = await writeLatencies(ctx, load, 'pg-latency', server, watch, ops, writeMax, rows, data);
      return { rows, data: { ...data, diskFloor: diskFloors } };
    } finally {
      await watch.close();
      await server.stop();
    }
  },
};
