/**
 * Reads with auth, 50 connections: GetActivityInst, GetWorkItem, GetActivityInstsByPIID (10
 * activities), GetRegisterUsers (100 users). Each op against the real server and against the
 * bare-Fastify baseline answering the same path with a canned body of the same size.
 * Target: ≥ 0.6 × the bare baseline's req/s, p99 ≤ 5 ms.
 */
import { startBare } from '../lib/bare.ts';
import type { Row, Scenario } from '../lib/context.ts';
import { captureBareRoutes, infoRow, maxRow, measureRead, ratioRow, readOps, seedReads } from '../lib/workload.ts';
import { log } from '../lib/util.ts';

const fmtUs = (us: number | null) => (us === null ? '?' : `${Math.round(us)} µs`);

export const reads: Scenario = {
  name: 'reads',
  title: 'reads with auth vs bare Fastify (50 connections)',
  async run(ctx) {
    const server = await ctx.startServer('main');
    const set = await seedReads(server.api);
    const ops = readOps(set);
    const { routes, sizes } = await captureBareRoutes(server.api, ops);
    const bare = await startBare(routes);
    // Each measurement (measureRead) starts with 1 s of warm-up on its own route, for the bare
    // baseline too: a pass over every route first, 4 s, changed nothing and is gone (the whole
    // run has to stay under 10 minutes).
    const rows: Row[] = [];
    const data: Record<string, any> = { sizes, users: set.users, ops: {} };
    try {
      for (const op of ops) {
        // Alternate bare and real so that background noise hits both alike.
        const b = await measureRead(ctx, bare.url, op, undefined, undefined, bare.pid);
        const r = await measureRead(ctx, server.url, op, undefined, undefined, server.pid);
        log(`  ${op.name}: real ${Math.round(r.rate)}/s p99 ${r.latencyMs.p99} ms; bare ${Math.round(b.rate)}/s p99 ${b.latencyMs.p99} ms; ${sizes[op.name]} bytes`);
        data.ops[op.name] = { real: r, bare: b };
        rows.push(ratioRow('reads', `${op.name} (${sizes[op.name]} B)`, r.rate, 'req/s', b.rate, 'bare Fastify', 0.6));
        rows.push(maxRow('reads', `${op.name} p99`, r.latencyMs.p99, 'ms', 5, b.latencyMs.p99, 'bare Fastify p99'));
        // Where the gap is: CPU per answer of the thread that serves HTTP (both servers are one
        // such thread for reads), and of the load generator that shares the 2 cores with it.
        if (r.cpu && b.cpu) {
          const note = `whole server ${fmtUs(r.cpu.server)} (bare ${fmtUs(b.cpu.server)}); load generator ${fmtUs(r.cpu.load)} (bare ${fmtUs(b.cpu.load)})`;
          rows.push(infoRow('reads', `${op.name} CPU per answer, main thread`, r.cpu.serverMain, 'µs', note, b.cpu.serverMain, 'bare Fastify'));
        }
      }
    } finally {
      await bare.stop();
    }
    data.maxRate = Object.fromEntries(Object.entries(data.ops).map(([k, v]: [string, any]) => [k, v.real.rate]));
    return { rows, data };
  },
};
