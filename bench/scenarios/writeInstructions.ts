/**
 * What one state-changing call costs the server, counted in instructions instead of timed (as
 * `instructions` does for the reads): the server runs under valgrind's callgrind, answers the
 * six write ops of `writes` one at a time on seeded targets (the four with a target, and
 * CreateProcInst and CompleteWorkItem, which with AssignWorkItem make the `e2e` chain), and the
 * instructions of its request thread and of its writer thread per call are counted, outside the
 * garbage collector and net of the idle polling. Each call here is admitted and applied in a commit of its own (one call at a
 * time: no group commit shares a commit's cost), so the writer thread's count is the upper end of
 * what an event costs it under load. The baseline is bare Fastify answering the same POST with a
 * canned copy of the real answer, after the same Basic check.
 *
 * Needs valgrind; run only when named: `npm run bench -- instructions-writes` (about 12 minutes;
 * `WAYMARK_BENCH_WRITE_OPS=AssignWorkItem,CancelProcInst` counts only those ops).
 */
import { cannedRoute, type BareRoute } from '../lib/bare.ts';
import { againUnderCallgrind, countBareFastify, countRequests, callgrindDumps, type CountPlan, type SerialRequest } from '../lib/callgrind.ts';
import type { Row, Scenario } from '../lib/context.ts';
import { infoRow, makeWriteTemplates, seedWriteGroups, W, writeOps, type WriteGroups } from '../lib/workload.ts';
import { log } from '../lib/util.ts';

const PLAN: CountPlan = { warmPlain: 1500, warmCounted: 300, counted: 1000 };
/** Seeded targets per op: the plan's requests, one to capture the answer the baseline replays, and a margin. */
const SEEDED = PLAN.warmPlain + PLAN.warmCounted + PLAN.counted + 100;
const IDLE_SECONDS = 10;
/**
 * WAYMARK_BENCH_WRITE_WAVE=16: calls sent that many at once (the next wave when all are answered)
 * instead of one at a time, so that they share group commits as under load; the writer thread's
 * count per call is then what a commit's fixed part costs each of them, not the whole of it.
 */
const WAVE = Math.max(1, Number(process.env.WAYMARK_BENCH_WRITE_WAVE ?? 1) || 1);

export const writeInstructions: Scenario = {
  name: 'instructions-writes',
  title: "instructions per state-changing call on the server's request and writer threads (callgrind), vs bare Fastify",
  async run(ctx) {
    const dumps = callgrindDumps('instructions-writes');
    const setup = await ctx.startServer('setup');
    const templates = await makeWriteTemplates(setup.api);
    let groups!: WriteGroups;
    const server = await againUnderCallgrind(ctx, dumps, setup, () => {
      groups = seedWriteGroups(setup.dbPath, templates, { assign: SEEDED, undo: SEEDED, link: SEEDED, cancel: SEEDED, complete: SEEDED });
    });
    // WAYMARK_BENCH_WRITE_OPS=AssignWorkItem,CreateProcInst: only these (a quicker A/B).
    const only = (process.env.WAYMARK_BENCH_WRITE_OPS ?? '').split(',').filter((n) => n !== '');
    const ops = writeOps(groups, templates).filter((o) => only.length === 0 || only.includes(o.name));
    const real: Record<string, { main: number; writer: number; idlePerSecond?: object }> = {};
    const routes: BareRoute[] = [];
    try {
      for (const op of ops) {
        const requests = requestsOf(op.name, op.request.path, op.request.body, groups);
        // The answer the baseline replays: the op's first target, before the count.
        const first = requests.shift()!;
        const reply = await server.api.request('POST', first.path, { body: JSON.parse(first.body ?? '{}') });
        if (reply.status !== 200) throw new Error(`${op.name}: ${reply.status} ${reply.text.slice(0, 300)}`);
        routes.push(cannedRoute('POST', bareUrl(op.name), reply));
        const count = await countRequests(server.pid, server.url, requests, PLAN, dumps, 'waymark.out', { writer: true, idleSeconds: IDLE_SECONDS, wave: WAVE });
        real[op.name] = { main: count.main, writer: count.writer!, idlePerSecond: count.idlePerSecond };
        log(`  ${op.name}: ${fmt(count.main)} instructions per call on the request thread, ${fmt(count.writer!)} on the writer thread`);
      }
    } finally {
      await server.stop();
    }
    // The baseline in two processes, the lower count per op kept (countBareFastify).
    const sampleOps = ops.map((op) => ({ name: op.name, requests: requestsOf(op.name, op.request.path, op.request.body, groups).slice(0, 100) }));
    const { base, tries } = await countBareFastify(routes, sampleOps, PLAN, dumps, WAVE);
    const rows: Row[] = [];
    for (const op of ops) {
      const r = real[op.name];
      rows.push(infoRow('instructions-writes', `${op.name}, per call, request thread, GC left out`, Math.round(r.main), 'instr', undefined, Math.round(base[op.name]), 'bare Fastify, the lower of 2 processes'));
      const how = WAVE === 1 ? 'one commit per call' : `calls sent ${WAVE} at once`;
      rows.push(infoRow('instructions-writes', `${op.name}, per call, writer thread, GC and idle polling left out`, Math.round(r.writer), 'instr', `admission and application, ${how}`));
    }
    return { rows, data: { real, bare: base, bareProcesses: tries, plan: PLAN, wave: WAVE } };
  },
};

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** The op's calls, one per seeded target (CreateLinkedWorkItem: one per open item, in turn; CreateProcInst: the same call). */
function requestsOf(name: string, path: string, body: string | undefined, groups: WriteGroups): SerialRequest[] {
  const ids: Record<string, string[]> = { AssignWorkItem: groups.assign, UndoAssignWorkItem: groups.undo, CreateLinkedWorkItem: groups.link, CancelProcInst: groups.cancel, CompleteWorkItem: groups.complete };
  const fill = (text: string, id: string) => text.replace(/\{feed:\w+\}/g, id);
  const targets = ids[name] ?? Array.from({ length: SEEDED }, () => '');
  return targets.map((id) => ({ method: 'POST', path: fill(path, id), body: body === undefined ? undefined : fill(body, id) }));
}

function bareUrl(name: string): string {
  return name === 'CreateLinkedWorkItem' || name === 'CreateProcInst' ? `${W}/${name}` : `${W}/${name}/:id`;
}
