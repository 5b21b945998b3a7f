/**
 * Counting what requests cost a server in instructions, under valgrind's callgrind (the
 * `instructions` scenarios): a server started under `callgrindWrapper` answers requests made one at
 * a time, and the instructions each of its threads executed for them, outside V8's garbage
 * collector, are read from the dumps.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startBare, type BareRoute } from './bare.ts';
import type { Ctx } from './context.ts';
import type { ServerHandle } from './server.ts';
import { ADMIN, ADMIN_PASSWORD, log, sleep, tempDir } from './util.ts';

/** Requests answered before counting (JIT and caches settled), the first uncounted part without instrumentation. */
export interface CountPlan {
  warmPlain: number;
  warmCounted: number;
  counted: number;
}

/** One request of a serial client: GET without a body, POST with a JSON one. */
export interface SerialRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/** A new folder for the dumps of `scenario`, once valgrind is known to be installed. */
export function callgrindDumps(scenario: string): string {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    throw new Error(`the ${scenario} scenario needs valgrind: apt-get install -y --no-install-recommends valgrind`);
  }
  return tempDir(scenario);
}

/** valgrind and its flags, as a server's `wrapper`: nothing counted until callgrind_control turns it on. */
export function callgrindWrapper(dumps: string, name: string): string[] {
  return [
    'valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes',
    `--callgrind-out-file=${path.join(dumps, `${name}.out`)}`, `--log-file=${path.join(dumps, `${name}.log`)}`,
  ];
}

/**
 * How a Waymark server is started under callgrind: the wrapper, time enough to start ~50 × slower,
 * and event-loop-delay shedding off (under callgrind the loop is slow enough to trip it).
 */
export function callgrindServer(dumps: string): { wrapper: string[]; startTimeoutMs: number; env: Record<string, string> } {
  return { wrapper: callgrindWrapper(dumps, 'waymark'), startTimeoutMs: 300_000, env: { WAYMARK_MAX_EVENT_LOOP_DELAY_MS: '0' } };
}

/**
 * The data set made on `setup` (a server without valgrind: its first logins and deployments would
 * take ~50 × longer under it), that server stopped, `whileStopped` run on its file (seeding), and
 * the same file served again under callgrind: the server the `instructions-*` scenarios count.
 */
export async function againUnderCallgrind(ctx: Ctx, dumps: string, setup: ServerHandle, whileStopped: () => void = () => {}): Promise<ServerHandle> {
  await setup.stop();
  whileStopped();
  return ctx.startServer('main', { dataDir: setup.dataDir, ...callgrindServer(dumps) });
}

/**
 * Instructions per request of the main thread of `pid` (under callgrind) and, with `writer`, of
 * the thread that synced the database file (the writer thread: the only one that commits), outside
 * the garbage collector, over `plan.counted` requests made one at a time. `requests` are used in
 * turn from the first (a list longer than the plan's total is used once each).
 *
 * With `idleSeconds`, what the same threads execute while no request comes (the dispatcher's and
 * the timers' polling, every 500-1000 ms) is counted too, over that many seconds, and taken off in
 * proportion to the counted window's length: under callgrind a request takes ~50 × its usual time,
 * so the polling of those seconds would otherwise be charged to the requests.
 */
export async function countRequests(
  pid: number,
  url: string,
  requests: SerialRequest[],
  plan: CountPlan,
  dumps: string,
  prefix: string,
  opts: { writer?: boolean; idleSeconds?: number; wave?: number } = {},
): Promise<{ main: number; writer?: number; idlePerSecond?: { main: number; writer?: number } }> {
  const client = serialClient(url, opts.wave);
  try {
    let next = 0;
    const run = (n: number) => client.run(requests, next, n).then(() => void (next += n));
    await run(plan.warmPlain);
    execFileSync('callgrind_control', ['--instr=on', String(pid)], { stdio: 'ignore' });
    await run(plan.warmCounted);
    const t0 = Date.now();
    const counted = await dumpAfter(pid, dumps, prefix, () => run(plan.counted));
    const seconds = (Date.now() - t0) / 1000;
    let writerThread: string | undefined;
    if (opts.writer) {
      writerThread = [...counted.keys()].find((t) => t !== '01' && syncs(counted.get(t)!));
      if (!writerThread) throw new Error(`no thread of ${pid} synced the database in the dump ${counted.get('01')}`);
    }
    let idle: { main: number; writer?: number } | undefined;
    if (opts.idleSeconds) {
      const t1 = Date.now();
      const quiet = await dumpAfter(pid, dumps, prefix, () => sleep(opts.idleSeconds! * 1000));
      const idleFor = (Date.now() - t1) / 1000;
      const rate = (t: string | undefined) => (t && quiet.has(t) ? threadCount(quiet.get(t)!) / idleFor : 0);
      idle = { main: rate('01'), writer: writerThread ? rate(writerThread) : undefined };
    }
    execFileSync('callgrind_control', ['--instr=off', String(pid)], { stdio: 'ignore' });
    const perRequest = (t: string | undefined, idleRate = 0) => (threadCount(counted.get(t!)!) - idleRate * seconds) / plan.counted;
    return {
      main: perRequest('01', idle?.main),
      writer: writerThread ? perRequest(writerThread, idle?.writer) : undefined,
      idlePerSecond: idle,
    };
  } finally {
    client.close();
  }
}

/**
 * The instructions of the main thread of `pid` (under callgrind) and of its writer thread (the one
 * that synced the database file) while `work` runs, with and without the garbage collector's, from
 * counters zeroed when it starts: for load that runs on its own meanwhile (`instructions-e2e`).
 */
export async function countWindow(
  pid: number,
  dumps: string,
  prefix: string,
  work: () => Promise<void>,
): Promise<{ main: { all: number; gc: number }; writer: { all: number; gc: number } }> {
  execFileSync('callgrind_control', ['--instr=on', String(pid)], { stdio: 'ignore' });
  const counted = await dumpAfter(pid, dumps, prefix, work);
  execFileSync('callgrind_control', ['--instr=off', String(pid)], { stdio: 'ignore' });
  const writer = [...counted.keys()].find((t) => t !== '01' && syncs(counted.get(t)!));
  if (!writer) throw new Error(`no thread of ${pid} synced the database in the dump ${counted.get('01')}`);
  const split = (file: string) => {
    const gc = collectorInstructions(file);
    return { all: threadCount(file) + gc, gc };
  };
  return { main: split(counted.get('01')!), writer: split(counted.get(writer)!) };
}

/** Zero the counters, run `work`, dump: the new dump's file per thread (`<prefix>.<part>-<thread>`, main `01`). */
async function dumpAfter(pid: number, dumps: string, prefix: string, work: () => Promise<void>): Promise<Map<string, string>> {
  const before = new Set(fs.readdirSync(dumps));
  execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
  await work();
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const files = fs.readdirSync(dumps).filter((f) => !before.has(f) && f.startsWith(`${prefix}.`) && /-\d+$/.test(f));
    const main = files.find((f) => f.endsWith('-01'));
    if (main) {
      await sleep(500);
      const parts = new Map(
        fs
          .readdirSync(dumps)
          .filter((f) => !before.has(f) && f.startsWith(`${prefix}.`) && /-\d+$/.test(f))
          .map((f) => [/-(\d+)$/.exec(f)![1], path.join(dumps, f)] as const),
      );
      if ([...parts.values()].every((f) => /^(?:summary|totals): \d+/m.test(fs.readFileSync(f, 'utf8')))) return parts;
    }
    await sleep(100);
  }
  throw new Error(`callgrind wrote no complete dump of ${pid} in ${dumps}`);
}

/** A thread's instructions in one dump, without the garbage collector's. */
function threadCount(file: string): number {
  const total = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(file, 'utf8'));
  if (!total) throw new Error(`the dump ${file} has no total`);
  return Number(total[1]) - collectorInstructions(file);
}

/** Whether the thread of a dump called fdatasync or fsync: SQLite syncing a commit. */
function syncs(file: string): boolean {
  return /^c?fn=\(\d+\) (?:__libc_)?f(?:data)?sync\b/m.test(fs.readFileSync(file, 'utf8'));
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

/**
 * Requests on one kept-alive connection, one after the other, as the benchmark's admin; each must
 * answer 200. With `wave` > 1, that many at once on as many connections, the next wave when all
 * are answered (state-changing calls then share group commits, as under load).
 */
function serialClient(url: string, wave = 1): { run(requests: SerialRequest[], from: number, n: number): Promise<void>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: wave });
  const { hostname, port } = new URL(url);
  const authorization = `Basic ${Buffer.from(`${ADMIN}:${ADMIN_PASSWORD}`).toString('base64')}`;
  const send = (r: SerialRequest) =>
    new Promise<void>((resolve, reject) => {
      const headers: Record<string, string> = { authorization };
      if (r.body !== undefined) headers['content-type'] = 'application/json';
      const req = http.request({ host: hostname, port, path: r.path, method: r.method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${r.method} ${r.path}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
      });
      req.on('error', reject);
      req.end(r.body);
    });
  return {
    async run(requests, from, n) {
      for (let i = from; i < from + n; i += wave) {
        const sends: Promise<void>[] = [];
        for (let j = i; j < Math.min(i + wave, from + n); j++) sends.push(send(requests[j % requests.length]));
        await Promise.all(sends);
      }
    },
    close: () => agent.destroy(),
  };
}

/**
 * The bare-Fastify baseline's instructions per request for each op, counted in two processes and
 * the lower count kept. One bare-Fastify process in some runs settled ~35 thousand instructions
 * per request higher than in others (87.5 against 122.3 thousand for GetActivityInst, the same
 * offset on every op): V8 had left one of its object-literal stores on the runtime path, ~27 calls
 * per request of Runtime_DefineKeyedOwnPropertyInLiteral. Which mode a process settles in is
 * chance; the lower of two is more likely the faster mode, and it never flatters Waymark.
 */
export async function countBareFastify(
  routes: BareRoute[],
  ops: { name: string; requests: SerialRequest[] }[],
  plan: CountPlan,
  dumps: string,
  wave = 1,
): Promise<{ base: Record<string, number>; tries: Record<string, number[]> }> {
  const base: Record<string, number> = {};
  const tries: Record<string, number[]> = {};
  for (const attempt of [1, 2]) {
    const bare = await startBare(routes, callgrindWrapper(dumps, `bare${attempt}`));
    try {
      for (const op of ops) {
        const count = (await countRequests(bare.pid, bare.url, op.requests, plan, dumps, `bare${attempt}.out`, { wave })).main;
        (tries[op.name] ??= []).push(Math.round(count));
        base[op.name] = Math.min(base[op.name] ?? Number.POSITIVE_INFINITY, count);
        log(`  ${op.name}: bare Fastify (process ${attempt}) ${Math.round(count).toLocaleString('en-US')} instructions per request`);
      }
    } finally {
      await bare.stop();
    }
  }
  return { base, tries };
}
