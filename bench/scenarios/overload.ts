/**
 * Overload: GetActivityInst offered open-loop at 3 × the maximum rate `reads` measured in this
 * run, for 8 s, then at 0.5 × for 5 s. The server must shed with 503 + Retry-After rather than
 * collapse (no 5xx other than 503, no connection errors, answered requests keep a bounded
 * latency), and serve normally again once the load drops.
 */
import type { Row, Scenario } from '../lib/context.ts';
import { readOps, seedReads } from '../lib/workload.ts';
import { log } from '../lib/util.ts';

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
    const run = (rate: number, duration: number) =>
      load.run({ kind: 'paced', url: server.url, requests: [op.request], feeds, rate, duration, connections: 1024, timeoutSec: 10 });
    const rss0 = server.rssKb();
    const hot = await run(Math.round(max * 3), 8);
    const rssHot = server.rssKb();
    await new Promise((r) => setTimeout(r, 2000));
    const calm = await run(Math.round(max / 2), 5);
    await server.stop();
    const shed = hot.statusCodes['503'] ?? 0;
    const other5xx = Object.entries(hot.statusCodes).filter(([c]) => c.startsWith('5') && c !== '503').reduce((n, [, v]) => n + v, 0);
    log(`  at ${Math.round(max * 3)}/s: ${hot.ok} ok, ${shed} shed (503), ${other5xx} other 5xx, ${hot.errors} errors, ${hot.timeouts} time-outs, ${hot.dropped ?? 0} not sent; p99 ${hot.latencyMs.p99.toFixed(1)} ms; RSS ${rss0} -> ${rssHot} kB`);
    log(`  then at ${Math.round(max / 2)}/s: ${calm.ok} ok, ${calm.non2xx} non-2xx, ${calm.errors} errors; p99 ${calm.latencyMs.p99.toFixed(1)} ms`);
    const rows: Row[] = [
      {
        scenario: 'overload', metric: `GetActivityInst offered ${Math.round(max * 3).toLocaleString('en-US')}/s (3 × max)`, figure: hot.rate, unit: 'ok/s',
        baseline: max, baselineName: 'max rate (reads)', ratio: hot.rate / max,
        target: 'sheds with 503, no other 5xx, no errors', met: shed > 0 && other5xx === 0 && hot.errors === 0 && hot.timeouts === 0,
        note: `${shed} answered 503 + Retry-After, ${hot.dropped ?? 0} could not be sent, p99 ${hot.latencyMs.p99.toFixed(1)} ms`,
      },
      {
        scenario: 'overload', metric: `recovery at ${Math.round(max / 2).toLocaleString('en-US')}/s`, figure: calm.latencyMs.p99, unit: 'ms p99',
        target: 'all 2xx', met: calm.non2xx === 0 && calm.errors === 0 && calm.timeouts === 0,
        note: `${calm.ok} ok, ${calm.non2xx} non-2xx`,
      },
    ];
    return { rows, data: { max, hot, calm, rss: { before: rss0, hot: rssHot } } };
  },
};
