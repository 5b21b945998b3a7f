/**
 * Events applied by the dispatcher.
 *
 * A. The dispatcher alone: a backlog of Sent events (AssignWorkItem, CreateWorkItem from
 *    CreateLinkedWorkItem and CancelProcessInstance in equal parts, copies of real events aimed at
 *    seeded targets) is written into the database before the server starts; the rate at which it
 *    drains (events leaving Sent, read from the database) is the dispatcher's ceiling.
 * B. Sustained: an offered load of 5,250 events/s (5 % above the target), paced evenly, of the same three calls on
 *    distinct targets for 8 s while the dispatcher runs; applied events/s and the growth of the
 *    Sent backlog over the second half of the window (sustained = not growing).
 * Target: ≥ 5,000 events/s applied with the backlog not growing (B).
 */
import type { Row, Scenario } from '../lib/context.ts';
import { Seeder } from '../lib/seed.ts';
import { DbWatch, W, infoRow, makeWriteTemplates, seedWriteGroups } from '../lib/workload.ts';
import { ADMIN, log, sleep } from '../lib/util.ts';
import os from 'node:os';
import { cpuTotal, cpuWindow, describeCpu } from '../lib/threadCpu.ts';

/** The target: events applied per second, sustained. */
const TARGET = 5_000;
/**
 * Offered 5 % above the target, so that a dispatcher that keeps up can show ≥ 5,000 applied over
 * the window. Until 2026-11-27 5,000 were offered and the row counted as met from 95 % of that
 * (4,750/s), which the full run of 16:08 reached (4,753/s) without reaching the target.
 */
const OFFERED = 5_250;
const SECONDS = 8;
const BACKLOG_EACH = 5_000;

export const dispatch: Scenario = {
  name: 'dispatch',
  title: 'dispatcher: draining a seeded backlog, and sustained at an offered 5,250 events/s (target 5,000)',
  async run(ctx) {
    let server = await ctx.startServer('setup');
    const templates = await makeWriteTemplates(server.api);
    await server.stop();
    const live = Math.ceil((OFFERED * (SECONDS + 1)) / 3) + 1000;
    const groups = seedWriteGroups(server.dbPath, templates, { assign: BACKLOG_EACH + live, undo: 0, link: 2000, cancel: BACKLOG_EACH + live, complete: 0 });
    const seeder = new Seeder(server.dbPath);
    const linkTargets = Array.from({ length: BACKLOG_EACH }, (_, i) => groups.link[i % groups.link.length]);
    const backlog =
      seeder.sentEvents(templates.events.assign, groups.assign.slice(0, BACKLOG_EACH), 'workItem') +
      seeder.sentEvents(templates.events.link, linkTargets, 'workItem') +
      seeder.sentEvents(templates.events.cancel, groups.cancel.slice(0, BACKLOG_EACH), 'instance');
    seeder.close();
    log(`  seeded a backlog of ${backlog} Sent events`);

    // A. The dispatcher starts on the backlog as soon as the server starts.
    const spawnedAt = performance.now();
    server = await ctx.startServer('main', { dataDir: server.dataDir });
    const watch = new DbWatch(server.dbPath);
    const rows: Row[] = [];
    const data: Record<string, any> = { backlog };
    try {
      const first = watch.progress();
      const aCpu = cpuWindow(server.pid, null, os.availableParallelism());
      let last = first;
      while (last.sent > 0 && last.at - first.at < 120_000) {
        await sleep(200);
        last = watch.progress();
      }
      const failed = watch.get("select count(*) n from events where status = 'Failed'").n as number;
      let drainRate: number;
      let note: string;
      if (first.sent === 0) {
        drainRate = backlog / ((first.at - spawnedAt) / 1000);
        note = `the whole backlog was applied before the server answered: lower bound`;
      } else {
        drainRate = (last.applied - first.applied) / ((last.at - first.at) / 1000);
        note = `${last.applied - first.applied} events in ${((last.at - first.at) / 1000).toFixed(1)} s; ${failed} Failed`;
      }
      log(`  A. backlog drained at ${Math.round(drainRate)} events/s (${note})`);
      const drainCpu = first.sent === 0 ? null : aCpu.stop(last.applied - first.applied);
      if (drainCpu) log(`  A. ${describeCpu(drainCpu, 'event')}`);
      data.drain = { first, last, rate: drainRate, failed, cpu: drainCpu };
      rows.push(infoRow('dispatch', `A. dispatcher alone, draining ${backlog.toLocaleString('en-US')} Sent (mixed)`, drainRate, 'events/s', note));
      if (drainCpu) rows.push(infoRow('dispatch', 'A. CPU per event applied, alone', cpuTotal(drainCpu), 'µs', describeCpu(drainCpu, 'event')));

      // B. Sustained under an offered load.
      const load = await ctx.load();
      const samples: { t: number; sent: number; applied: number }[] = [];
      const p0 = watch.progress();
      const sampler = setInterval(() => {
        const p = watch.progress();
        samples.push({ t: (p.at - p0.at) / 1000, sent: p.sent, applied: p.applied - p0.applied });
      }, 250);
      const bCpu = cpuWindow(server.pid, load.pid, os.availableParallelism());
      const r = await load.run({
        kind: 'paced',
        url: server.url,
        rate: OFFERED,
        duration: SECONDS,
        connections: 64,
        timeoutSec: 5,
        requests: [
          { method: 'POST', path: `${W}/AssignWorkItem/{feed:assign}`, body: '{}' },
          { method: 'POST', path: `${W}/CreateLinkedWorkItem`, body: JSON.stringify({ SourceWorkItemID: '{feed:link}', WorkToPerform: 'Check', UserID: ADMIN, Length: '1', Unit: 'DAY' }) },
          { method: 'POST', path: `${W}/CancelProcInst/{feed:cancel}`, body: '{}' },
        ],
        feeds: {
          assign: { ids: groups.assign.slice(BACKLOG_EACH), mode: 'seq' },
          link: { ids: groups.link, mode: 'cycle' },
          cancel: { ids: groups.cancel.slice(BACKLOG_EACH), mode: 'seq' },
        },
      });
      clearInterval(sampler);
      const p1 = watch.progress();
      const seconds = (p1.at - p0.at) / 1000;
      const applied = (p1.applied - p0.applied) / seconds;
      // Per event applied: its admission over HTTP, its application, and the load generator.
      const sustainedCpu = bCpu.stop(p1.applied - p0.applied);
      const accepted = r.ok / seconds;
      const half = samples.filter((s) => s.t >= SECONDS / 2 && s.t <= SECONDS);
      const growth = half.length >= 2 ? (half[half.length - 1].sent - half[0].sent) / (half[half.length - 1].t - half[0].t) : NaN;
      const sustained = applied >= TARGET && growth <= OFFERED * 0.05;
      const limitedBy = accepted < OFFERED * 0.95 ? `admission took only ${Math.round(accepted)}/s of the offered ${OFFERED}/s` : `accepted ${Math.round(accepted)}/s`;
      log(`  B. offered ${OFFERED}/s: ${limitedBy}; applied ${Math.round(applied)}/s; backlog ${p1.sent} at end, growing ${Math.round(growth)}/s`);
      rows.push({
        scenario: 'dispatch',
        metric: `B. applied, sustained, offered ${OFFERED.toLocaleString('en-US')}/s (mixed)`,
        figure: applied,
        unit: 'events/s',
        target: '≥ 5,000 events/s, backlog not growing',
        met: sustained,
        note: `${limitedBy}; backlog ${p1.sent} at end, growing ${Math.round(growth)}/s`,
      });
      rows.push(infoRow('dispatch', 'B. Sent backlog growth (2nd half)', growth, 'events/s'));
      log(`  B. ${describeCpu(sustainedCpu, 'event applied')}`);
      rows.push(infoRow('dispatch', 'B. CPU per event applied, server + load generator', cpuTotal(sustainedCpu), 'µs', describeCpu(sustainedCpu, 'event applied')));
      Object.assign(data, { offered: OFFERED, load: r, applied, accepted, growth, samples, backlogAtEnd: p1.sent, cpu: sustainedCpu });
      await watch.drain(30_000);
    } finally {
      watch.close();
    }
    return { rows, data };
  },
};
