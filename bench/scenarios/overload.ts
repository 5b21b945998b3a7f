/**
 * Overload: GetActivityInst offered open-loop at 3 × the maximum rate `reads` measured in this
 * run, over 1,024 connections for 8 s; then the load drops back to what `latency` offers, 0.5 ×
 * over 64 connections, for 5 s. The server must shed with 503 + Retry-After rather than collapse
 * (no 5xx other than 503, no connection errors, answered requests keep a bounded latency), and
 * serve normally again once the load drops.
 *
 * Why the calm phase has 64 connections and not 1,024 (thirty-fifth round, docs/reliability.md):
 * paced over 1,024 connections, every request comes nearly alone on its socket, and the same
 * server on the same two cores answers far fewer of them. A fresh server with no overload before
 * refused 11,485 of 52,000 GetActivityInst at 13,000/s over 1,024 connections, 0 of 40,000 at
 * 10,000/s, while `reads` measured 22,501/s over 50 (2026-11-28 00:10): half the `reads` maximum
 * over 1,024 connections measured that capacity, not the recovery.
 */
import type { Row, Scenario } from '../lib/context.ts';
import { readOps, seedReads } from '../lib/workload.ts';
import { log } from '../lib/util.ts';

/** The storm: more clients than the server lets in at once (its in-flight limit is 128). */
const HOT_CONNECTIONS = 1024;
/** Once the load drops: the clients of `latency`, which offers the same half of the maximum. */
const CALM_CONNECTIONS = 64;

export const overload: Scenario = {
  name: 'overload',
  title: 'three times the maximum rate: shed with 503, recover when the load drops',
  needs: ['reads'],
  async run(ctx) {
    const max: number | undefined = ctx.results.get('reads')?.data.maxRate?.GetActivityInst;
    if (!max) throw new Error('reads did not measure GetActivityInst');
    const server = await ctx.startServer('main');
    const set = await seedReads(server.api);
    const op = readOps(set)[0];
    const feeds = op.feed ? { [op.feed.name]: { ids: op.feed.ids, mode: 'cycle' as const } } : undefined;
    const load = await ctx.load();
    const run = (rate: number, duration: number, connections: number) =>
      load.run({ kind: 'paced', url: server.url, requests: [op.request], feeds, rate, duration, connections, timeoutSec: 10 });
    const rss0 = server.rssKb();
    const hot = await run(Math.round(max * 3), 8, HOT_CONNECTIONS);
    const rssHot = server.rssKb();
    await new Promise((r) => setTimeout(r, 2000));
    const calm = await run(Math.round(max / 2), 5, CALM_CONNECTIONS);
    await server.stop();
    const shed = hot.statusCodes['503'] ?? 0;
    const other5xx = Object.entries(hot.statusCodes).filter(([c]) => c.startsWith('5') && c !== '503').reduce((n, [, v]) => n + v, 0);
    log(`  at ${Math.round(max * 3)}/s: ${hot.ok} ok, ${shed} shed (503), ${other5xx} other 5xx, ${hot.errors} errors, ${hot.timeouts} time-outs, ${hot.dropped ?? 0} not sent; p99 ${hot.latencyMs.p99.toFixed(1)} ms; RSS ${rss0} -> ${rssHot} kB`);
    log(`  then at ${Math.round(max / 2)}/s over ${CALM_CONNECTIONS} connections: ${calm.ok} ok, ${calm.non2xx} non-2xx, ${calm.errors} errors; p99 ${calm.latencyMs.p99.toFixed(1)} ms`);
    const rows: Row[] = [
      {
        scenario: 'overload', metric: `GetActivityInst offered ${Math.round(max * 3).toLocaleString('en-US')}/s (3 × max)`, figure: hot.rate, unit: 'ok/s',
        baseline: max, baselineName: 'max rate (reads)', ratio: hot.rate / max,
        target: 'sheds with 503, no other 5xx, no errors', met: shed > 0 && other5xx === 0 && hot.errors === 0 && hot.timeouts === 0,
        note: `${shed} answered 503 + Retry-After, ${hot.dropped ?? 0} could not be sent, p99 ${hot.latencyMs.p99.toFixed(1)} ms`,
      },
      {
        scenario: 'overload', metric: `recovery at ${Math.round(max / 2).toLocaleString('en-US')}/s, ${CALM_CONNECTIONS} connections`, figure: calm.latencyMs.p99, unit: 'ms p99',
        target: 'all 2xx', met: calm.non2xx === 0 && calm.errors === 0 && calm.timeouts === 0,
        note: `${calm.ok} ok, ${calm.non2xx} non-2xx`,
      },
    ];
    return { rows, data: { max, hot, calm, rss: { before: rss0, hot: rssHot } } };
  },
};
