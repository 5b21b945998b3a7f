/**
 * What one completed `e2e` instance costs the server, counted in instructions instead of timed:
 * the server runs under valgrind's callgrind while the e2e flow (CreateProcInst -> work list ->
 * AssignWorkItem -> CompleteWorkItem, each chain as one of the bench users) runs on CONNECTIONS
 * connections without a pause; after a warm-up, the counters are zeroed, and the instructions of
 * the request thread and of the writer thread over the next WINDOW_S seconds are divided by the
 * instances completed meanwhile (counted in the database). With the flow running steadily, the
 * chains in flight at the window's two ends are in the same stages and cancel out. The garbage
 * collector's part is reported apart: rows kept between transactions (twenty-sixth round in
 * docs/performance-log.md) change what it does.
 *
 * Why: `bench e2e` moves by more than a tenth between runs on this shared machine, more than the
 * changes it has to judge; `instructions-writes` counts single calls on seeded targets, which never
 * went through the server before (a row kept from an earlier transaction is never there).
 *
 * Needs valgrind; run only when named: `npm run bench -- instructions-e2e` (about 4 minutes).
 */
import { againUnderCallgrind, callgrindDumps, countWindow } from '../lib/callgrind.ts';
import type { Row, Scenario } from '../lib/context.ts';
import { DbWatch, infoRow } from '../lib/workload.ts';
import { log, sleep } from '../lib/util.ts';
import { setupE2e, USER_PASSWORD } from './e2e.ts';

/** Users, and chains at once: as many as `instructions-writes` sends calls at once (WAVE=16). */
const USERS = 16;
const CONNECTIONS = 16;
const WARM_S = 40;
const WINDOW_S = 40;

export const e2eInstructions: Scenario = {
  name: 'instructions-e2e',
  title: 'instructions per completed e2e instance on the request and writer threads (callgrind)',
  async run(ctx) {
    const dumps = callgrindDumps('instructions-e2e');
    const setup = await ctx.startServer('setup');
    const { defId, users } = await setupE2e(setup.api, USERS);
    const server = await againUnderCallgrind(ctx, dumps, setup);
    const load = await ctx.load();
    const watch = new DbWatch(server.dbPath);
    const completedSoFar = () => watch.get("select count(*) n from process_instances where status = 'Completed'").n as number;
    const flow = { url: server.url, requests: [], flow: 'e2e' as const, flowOptions: { users, password: USER_PASSWORD, defId }, connections: CONNECTIONS };
    try {
      // Logins (a scrypt each, ~50 × slower under valgrind) and JIT settle here.
      await load.run({ ...flow, duration: WARM_S });
      const running = load.run({ ...flow, duration: WINDOW_S + 30 });
      await sleep(5_000);
      let done = 0;
      const count = await countWindow(server.pid, dumps, 'waymark.out', async () => {
        const before = completedSoFar();
        await sleep(WINDOW_S * 1000);
        done = completedSoFar() - before;
      });
      const r = await running;
      if (done === 0) throw new Error(`no instance completed in the window: ${JSON.stringify(r.statusCodes)}`);
      const per = (n: number) => n / done;
      log(
        `  ${done} instances completed in ${WINDOW_S} s; per instance: request thread ${fmt(per(count.main.all - count.main.gc))} ` +
          `(+${fmt(per(count.main.gc))} GC), writer thread ${fmt(per(count.writer.all - count.writer.gc))} (+${fmt(per(count.writer.gc))} GC)`,
      );
      const rows: Row[] = [
        infoRow('instructions-e2e', 'per completed instance, request thread, GC left out', Math.round(per(count.main.all - count.main.gc)), 'instr', `${CONNECTIONS} chains at once; ${done} instances`),
        infoRow('instructions-e2e', 'per completed instance, request thread, GC', Math.round(per(count.main.gc)), 'instr'),
        infoRow('instructions-e2e', 'per completed instance, writer thread, GC left out', Math.round(per(count.writer.all - count.writer.gc)), 'instr', 'admissions, applications and commits'),
        infoRow('instructions-e2e', 'per completed instance, writer thread, GC', Math.round(per(count.writer.gc)), 'instr'),
      ];
      return { rows, data: { done, windowSeconds: WINDOW_S, connections: CONNECTIONS, count, statusCodes: r.statusCodes } };
    } finally {
      watch.close();
      await server.stop();
    }
  },
};

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
