/**
 * What one read request costs the server's request thread, counted in instructions instead of
 * timed: the server and the bare-Fastify baseline each run under valgrind's callgrind, answer the
 * same requests one at a time, and the instructions their main thread executed for them, outside
 * the garbage collector (collectorInstructions below), are counted. On this machine a timed figure moves by up to 40 % between windows minutes apart (other
 * tenants of the host), so a change of a few microseconds never showed in `reads`; the count moves
 * by under 1 % between runs of the same code, so it does show.
 *
 * How a count relates to `reads`: Waymark's answers per second there go about as the inverse of
 * its count here, but bare Fastify's do not (at ~20-24 k answers/s it shares the two cores with the
 * load generator), so the ratios do not map one to one. Measured on 2026-11-24: 2.25 × bare
 * Fastify's instructions here went with 0.56 × its answers per second there (13:00), 2.05 and
 * 2.21 × with 0.75 and 0.67 × (15:27), 3.73 × with 0.51 × (docs/performance-log.md, seventeenth round).
 *
 * Needs valgrind (`apt-get install -y --no-install-recommends valgrind`); run only when named:
 * `npm run bench -- instructions` (about 7 minutes: a server under callgrind is ~50 × slower).
 */
import type { Api } from '../lib/api.ts';
import { cannedRoute, type BareRoute } from '../lib/bare.ts';
import { USER_PASSWORD } from './e2e.ts';
import { callgrindServer, countBareFastify, countRequests, callgrindDumps, type CountPlan, type SerialRequest } from '../lib/callgrind.ts';
import type { Row, Scenario } from '../lib/context.ts';
import { infoRow, readOps, seedReads } from '../lib/workload.ts';
import { log } from '../lib/util.ts';

/** Requests answered before counting (JIT and caches settled), then counted, per operation. */
const PLAN: CountPlan = { warmPlain: 4000, warmCounted: 1000, counted: 3000 };

export const instructions: Scenario = {
  name: 'instructions',
  title: "instructions per read request on the server's main thread (callgrind), vs bare Fastify",
  async run(ctx) {
    const dumps = callgrindDumps('instructions');
    const server = await ctx.startServer('main', callgrindServer(dumps));
    const set = await seedReads(server.api);
    const ops = readOps(set);
    const requestsOf = (op: (typeof ops)[number]): SerialRequest[] =>
      (op.feed ? op.feed.ids.map((id) => op.request.path.replace(`{feed:${op.feed!.name}}`, id)) : [op.samplePath]).map((p) => ({ method: 'GET', path: p }));
    const real: Record<string, number> = {};
    for (const op of ops) {
      real[op.name] = (await countRequests(server.pid, server.url, requestsOf(op), PLAN, dumps, 'waymark.out')).main;
      log(`  ${op.name}: ${Math.round(real[op.name]).toLocaleString('en-US')} instructions per request`);
    }
    const routes = [];
    for (const op of ops) routes.push(cannedRoute('GET', op.bareUrl, await server.api.get(op.samplePath)));
    const list = await workListOp(server.api);
    real[list.name] = (await countRequests(server.pid, server.url, list.requests, PLAN, dumps, 'waymark.out')).main;
    log(`  ${list.name}: ${Math.round(real[list.name]).toLocaleString('en-US')} instructions per request`);
    routes.push(list.route);
    await server.stop();
    // The baseline in two processes, the lower count per op kept (countBareFastify).
    const counted: { name: string; label?: string; requests: SerialRequest[] }[] = [...ops.map((op) => ({ name: op.name, requests: requestsOf(op) })), list];
    const { base, tries } = await countBareFastify(routes, counted, PLAN, dumps);
    const rows: Row[] = counted.map((op) =>
      infoRow('instructions', `${op.label ?? op.name}, per request, main thread, GC left out`, Math.round(real[op.name]), 'instr', 'in `reads` 2.05-2.21 × here went with 0.67-0.76 × bare Fastify (2026-11-24)', Math.round(base[op.name]), 'bare Fastify, the lower of 2 processes'),
    );
    return { rows, data: { real, bare: base, bareProcesses: tries, counted: PLAN.counted } };
  },
};

/**
 * GetWorkListByUserID as `bench e2e` calls it between its writes: a list of three New items of a
 * pool (simple.bpmn's, whose pool is the initiator), asked for by the admin naming their user (the
 * admin holds the right to see any list, so it takes the same path as a user asking for its own).
 * Not one of the `reads` targets; counted since the twenty-fourth round (docs/performance-log.md).
 */
async function workListOp(api: Api): Promise<{ name: string; label: string; requests: SerialRequest[]; route: BareRoute }> {
  const user = 'LOCAL\\listed';
  await api.registerUser(user, USER_PASSWORD);
  await api.role('ListedStarters', ['InitiateProcessInstance'], [user]);
  const defId = await api.deploy('simple.bpmn');
  for (let i = 0; i < 3; i++) await api.startInstance(defId, [user, USER_PASSWORD]);
  const request: SerialRequest = { method: 'POST', path: '/EngineServer/Workflow/GetWorkListByUserID', body: JSON.stringify({ UserName: user, Status: 'New' }) };
  const real = await api.post(request.path, JSON.parse(request.body!));
  const items = real.json as { Status: string }[];
  if (real.status !== 200 || items.length !== 3) throw new Error(`GetWorkListByUserID: ${real.status} ${real.text.slice(0, 200)}`);
  return { name: 'GetWorkListByUserID', label: 'GetWorkListByUserID (3 items)', requests: [request], route: cannedRoute('POST', request.path, real) };
}
