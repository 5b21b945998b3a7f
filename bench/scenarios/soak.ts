/**
 * Soak: the end-to-end flow (CreateProcInst -> claim -> complete) offered at half the maximum
 * request rate that `e2e` measured, for WAYMARK_SOAK_SECONDS (default 1800 = 30 minutes), in
 * 60-second windows. Per window: RSS of the server, answers, errors and latency. Targets: no
 * errors, RSS flat (the last third's mean within 15 % of the first third's), p99 stable (the
 * worst window at most 3 × the median window). Not part of a default `npm run bench`.
 */
import type { Row, Scenario } from '../lib/context.ts';
import { log } from '../lib/util.ts';
import { E2E_USERS, setupE2e, USER_PASSWORD } from './e2e.ts';

const WINDOW_S = 60;

export const soak: Scenario = {
  name: 'soak',
  title: 'half the maximum rate for 30 minutes: RSS flat, no errors, p99 stable',
  needs: ['e2e'],
  async run(ctx) {
    const seconds = Number(process.env.WAYMARK_SOAK_SECONDS ?? 1800);
    const e2eRun = ctx.results.get('e2e')?.data.load;
    if (!e2eRun) throw new Error('e2e did not run');
    const rate = Math.max(1, Math.round(e2eRun.total / e2eRun.seconds / 2));
    const server = await ctx.startServer('main');
    const { defId, users } = await setupE2e(server.api, E2E_USERS);
    const load = await ctx.load();
    const flow = { url: server.url, requests: [], flow: 'e2e' as const, flowOptions: { users, password: USER_PASSWORD, defId }, connections: 50 };
    const windows: { rssKb: number; ok: number; bad: number; p50: number; p99: number; completed: number }[] = [];
    for (let t = 0; t < seconds; t += WINDOW_S) {
      const r = await load.run({ ...flow, duration: Math.min(WINDOW_S, seconds - t), overallRate: rate });
      const bad = r.non2xx + r.errors + r.timeouts;
      const w = { rssKb: server.rssKb(), ok: r.ok, bad, p50: r.latencyMs.p50, p99: r.latencyMs.p99, completed: r.counters.completed ?? 0 };
      windows.push(w);
      log(`  ${String(t + WINDOW_S).padStart(5)} s: RSS ${(w.rssKb / 1024).toFixed(1)} MB, ${w.ok} ok, ${bad} bad, ${w.completed} completed, p50 ${w.p50.toFixed(1)} ms, p99 ${w.p99.toFixed(1)} ms`);
    }
    await server.stop();
    const third = Math.max(1, Math.floor(windows.length / 3));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rssFirst = mean(windows.slice(0, third).map((w) => w.rssKb));
    const rssLast = mean(windows.slice(-third).map((w) => w.rssKb));
    const p99s = windows.map((w) => w.p99).sort((a, b) => a - b);
    const median = p99s[Math.floor(p99s.length / 2)];
    const worst = p99s[p99s.length - 1];
    const bad = windows.reduce((n, w) => n + w.bad, 0);
    const ok = windows.reduce((n, w) => n + w.ok, 0);
    const rows: Row[] = [
      { scenario: 'soak', metric: `requests at ${rate}/s for ${Math.round(seconds / 60)} min`, figure: bad, unit: 'failed', target: '0 failed', met: bad === 0, note: `${ok.toLocaleString('en-US')} ok` },
      { scenario: 'soak', metric: 'RSS, last third vs first third', figure: rssLast / 1024, unit: 'MB', baseline: rssFirst / 1024, baselineName: 'first third', ratio: rssLast / rssFirst, target: '≤ 1.15 ×', met: rssLast / rssFirst <= 1.15 },
      { scenario: 'soak', metric: 'p99 per minute, worst vs median', figure: worst, unit: 'ms', baseline: median, baselineName: 'median minute', ratio: worst / median, target: '≤ 3 ×', met: worst / median <= 3 },
    ];
    return { rows, data: { rate, seconds, windows } };
  },
};
