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
 * 2.21 × with 0.75 and 0.67 × (15:27), 3.73 × with 0.51 × (docs/performance.md, seventeenth round).
 *
 * Needs valgrind (`apt-get install -y --no-install-recommends valgrind`); run only when named:
 * `npm run bench -- instructions` (about 5 minutes: a server under callgrind is ~50 × slower).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { cannedRoute, startBare } from '../lib/bare.ts';
import type { Row, Scenario } from '../lib/context.ts';
import { infoRow, readOps, seedReads } from '../lib/workload.ts';
import { ADMIN, ADMIN_PASSWORD, log, sleep, tempDir } from '../lib/util.ts';

/** Requests answered before counting (JIT and caches settled), the first uncounted part without instrumentation. */
const WARM_PLAIN = 4000;
const WARM_COUNTED = 1000;
/** Requests counted per operation. */
const COUNTED = 3000;

export const instructions: Scenario = {
  name: 'instructions',
  title: "instructions per read request on the server's main thread (callgrind), vs bare Fastify",
  async run(ctx) {
    if (spawnSync('valgrind', ['--version']).status !== 0) {
      throw new Error('the instructions scenario needs valgrind: apt-get install -y --no-install-recommends valgrind');
    }
    const dumps = tempDir('instructions');
    const wrapper = (name: string) => [
      'valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes',
      `--callgrind-out-file=${path.join(dumps, `${name}.out`)}`, `--log-file=${path.join(dumps, `${name}.log`)}`,
    ];
    // Event-loop-delay shedding off: under callgrind the loop is slow enough to trip it.
    const server = await ctx.startServer('main', { wrapper: wrapper('waymark'), startTimeoutMs: 300_000, env: { WAYMARK_MAX_EVENT_LOOP_DELAY_MS: '0' } });
    const set = await seedReads(server.api);
    const ops = readOps(set);
    const pathsOf = (op: (typeof ops)[number]) => (op.feed ? op.feed.ids.map((id) => op.request.path.replace(`{feed:${op.feed!.name}}`, id)) : [op.samplePath]);
    const real: Record<string, number> = {};
    for (const op of ops) {
      real[op.name] = await countRequests(server.pid, server.url, pathsOf(op), dumps, 'waymark.out');
      log(`  ${op.name}: ${Math.round(real[op.name]).toLocaleString('en-US')} instructions per request`);
    }
    const routes = [];
    for (const op of ops) routes.push(cannedRoute('GET', op.bareUrl, await server.api.get(op.samplePath)));
    await server.stop();
    // The baseline twice, in two processes, and the lower count per op kept. One bare-Fastify
    // process in some runs settled ~35 thousand instructions per request higher than in others
    // (87.5 against 122.3 thousand for GetActivityInst, the same offset on every op): V8 had left
    // one of its object-literal stores on the runtime path, ~27 calls per request of
    // Runtime_DefineKeyedOwnPropertyInLiteral. Which mode a process settles in is chance; the
    // lower of two is more likely the faster mode, and it never flatters Waymark.
    const base: Record<string, number> = {};
    const tries: Record<string, number[]> = {};
    for (const attempt of [1, 2]) {
      const bare = await startBare(routes, wrapper(`bare${attempt}`));
      try {
        for (const op of ops) {
          const count = await countRequests(bare.pid, bare.url, pathsOf(op), dumps, `bare${attempt}.out`);
          (tries[op.name] ??= []).push(Math.round(count));
          base[op.name] = Math.min(base[op.name] ?? Number.POSITIVE_INFINITY, count);
          log(`  ${op.name}: bare Fastify (process ${attempt}) ${Math.round(count).toLocaleString('en-US')} instructions per request`);
        }
      } finally {
        await bare.stop();
      }
    }
    const rows: Row[] = ops.map((op) =>
      infoRow('instructions', `${op.name}, per request, main thread, GC left out`, Math.round(real[op.name]), 'instr', 'in `reads` 2.05-2.21 × here went with 0.67-0.76 × bare Fastify (2026-11-24)', Math.round(base[op.name]), 'bare Fastify, the lower of 2 processes'),
    );
    return { rows, data: { real, bare: base, bareProcesses: tries, counted: COUNTED } };
  },
};

/**
 * Instructions the main thread of `pid` (under callgrind) executes per request outside the garbage
 * collector, over `COUNTED` requests made one at a time.
 */
async function countRequests(pid: number, url: string, paths: string[], dumps: string, prefix: string): Promise<number> {
  const client = serialClient(url);
  try {
    await client.run(paths, WARM_PLAIN);
    execFileSync('callgrind_control', ['--instr=on', String(pid)], { stdio: 'ignore' });
    await client.run(paths, WARM_COUNTED);
    const before = new Set(fs.readdirSync(dumps));
    execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
    await client.run(paths, COUNTED);
    execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--instr=off', String(pid)], { stdio: 'ignore' });
    // The main thread's part of the new dump: `<prefix>.<part>-01`.
    for (let i = 0; i < 100; i++) {
      const file = fs.readdirSync(dumps).find((f) => !before.has(f) && f.startsWith(`${prefix}.`) && f.endsWith('-01'));
      if (file) {
        await sleep(200);
        const total = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(path.join(dumps, file), 'utf8'));
        if (total) return (Number(total[1]) - collectorInstructions(path.join(dumps, file))) / COUNTED;
      }
      await sleep(100);
    }
    throw new Error(`callgrind wrote no dump of the main thread of ${pid} in ${dumps}`);
  } finally {
    client.close();
  }
}

/**
 * The instructions of a dump spent inside V8's garbage collector (Heap::CollectGarbage and what it
 * calls). They are left out of the count: whether a young-generation collection runs on the main
 * thread or on V8's helper threads, and whether objects get promoted early, changes between runs of
 * the same code — the main thread's total moved between ~207 and ~263 thousand per GetActivityInst
 * with the collector's part 1 and 57 thousand, and by 0.2 % without it.
 */
function collectorInstructions(file: string): number {
  const out = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 }).toString();
  const line = out.split('\n').find((l) => l.includes('v8::internal::Heap::CollectGarbage('));
  return line ? Number(line.trim().split(/\s+/)[0].replace(/,/g, '')) : 0;
}

/** GET requests on one kept-alive connection, one after the other, as the benchmark's admin; each must answer 200. */
function serialClient(url: string): { run(paths: string[], n: number): Promise<void>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(url);
  const authorization = `Basic ${Buffer.from(`${ADMIN}:${ADMIN_PASSWORD}`).toString('base64')}`;
  const get = (p: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: hostname, port, path: p, agent, headers: { authorization } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET ${p}: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    async run(paths, n) {
      for (let i = 0; i < n; i++) await get(paths[i % paths.length]);
    },
    close: () => agent.destroy(),
  };
}
