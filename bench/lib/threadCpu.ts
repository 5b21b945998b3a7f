/**
 * CPU time of a process's threads, read from /proc (Linux): user + system clock ticks per thread.
 * Used to say which thread limits a scenario — a profile shows where a thread's time goes, not
 * which of the threads is full. Ticks are 1/100 s on Linux (USER_HZ).
 */
import fs from 'node:fs';

const TICK_US = 10_000;

export type ThreadTicks = Map<number, number>;

/** Ticks used so far by each thread of `pid` (empty where /proc is not there). */
export function threadTicks(pid: number): ThreadTicks {
  const out: ThreadTicks = new Map();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const ticks = readTicks(`/proc/${pid}/task/${tid}/stat`);
    if (ticks !== null) out.set(Number(tid), ticks);
  }
  return out;
}

/** Ticks used so far by the whole process `pid` (all its threads), or null. */
export function processTicks(pid: number): number | null {
  return readTicks(`/proc/${pid}/stat`);
}

/**
 * Ticks used so far by `rootPid` and every process under it: each live one's own, plus what its
 * children that already ended used (the root's cutime and cstime count those it has waited for).
 * For PostgreSQL's postmaster, that is the cluster's backends, its background workers and the
 * backends that ended in the meantime. Null where /proc is not there or the root is gone.
 */
export function processTreeTicks(rootPid: number): number | null {
  const stats = new Map<number, { ppid: number; own: number; reaped: number }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(`/proc/${name}/stat`);
    // ppid is the 2nd field after ')', utime, stime, cutime, cstime the 12th to 15th.
    if (f) stats.set(Number(name), { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) });
  }
  const root = stats.get(rootPid);
  if (!root) return null;
  const children = new Map<number, number[]>();
  for (const [pid, st] of stats) children.set(st.ppid, [...(children.get(st.ppid) ?? []), pid]);
  let total = root.reaped;
  const todo = [rootPid];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    total += stats.get(pid)?.own ?? 0;
    todo.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** The fields of a /proc stat line after the command name (which is in parentheses and may hold spaces). */
function statFields(file: string): string[] | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

function readTicks(file: string): number | null {
  // utime is the 14th field of the line, stime the 15th, i.e. the 12th and 13th after ')'.
  const rest = statFields(file);
  return rest && Number(rest[11]) + Number(rest[12]);
}

export interface ServerCpu {
  /** µs of CPU per unit of work: the thread that serves HTTP (the process's main thread). */
  requestThread: number;
  /** µs per unit: the busiest other thread (the writer thread, where there is one). */
  busiestOther: number;
  /** µs per unit: every remaining thread (GC, libuv pool, compiler). */
  rest: number;
}

/** Splits a server's CPU between two snapshots per unit of work (`units` completed). */
export function serverCpuPer(pid: number, before: ThreadTicks, after: ThreadTicks, units: number): ServerCpu {
  const used = new Map<number, number>();
  for (const [tid, ticks] of after) used.set(tid, (ticks - (before.get(tid) ?? 0)) * TICK_US);
  const request = used.get(pid) ?? 0;
  used.delete(pid);
  const others = [...used.values()].sort((a, b) => b - a);
  const busiest = others[0] ?? 0;
  const rest = others.slice(1).reduce((a, b) => a + b, 0);
  const per = (us: number) => (units > 0 ? us / units : 0);
  return { requestThread: per(request), busiestOther: per(busiest), rest: per(rest) };
}

/** µs of CPU per unit of a whole process (or process tree) between two readings. */
export function processCpuPer(before: number | null, after: number | null, units: number): number | null {
  if (before === null || after === null || units <= 0) return null;
  return ((after - before) * TICK_US) / units;
}

export interface CpuPerUnit extends ServerCpu {
  /** µs per unit in the load generator's process (null where /proc is not there). */
  load: number | null;
  /** Rate at which the server's and the load generator's CPU per unit would fill every core. */
  coresFull: number;
  /** Rate at which the busiest thread (request thread or writer thread) would be full alone. */
  threadFull: number;
}

/**
 * CPU per unit of work over a window, for every thread of the server and for the load generator,
 * and the two rates that bound the window's figure on this machine: all cores full (server and
 * load generator share them) and the busiest single thread full.
 */
export function cpuWindow(serverPid: number, loadPid: number | null, cores: number): { stop(units: number): CpuPerUnit } {
  const threads = threadTicks(serverPid);
  const load = loadPid === null ? null : processTicks(loadPid);
  return {
    stop(units) {
      const cpu = serverCpuPer(serverPid, threads, threadTicks(serverPid), units);
      const loadCpu = loadPid === null ? null : processCpuPer(load, processTicks(loadPid), units);
      const total = cpuTotal({ ...cpu, load: loadCpu });
      const busiest = Math.max(cpu.requestThread, cpu.busiestOther);
      return {
        ...cpu,
        load: loadCpu,
        coresFull: total > 0 ? (cores * 1e6) / total : 0,
        threadFull: busiest > 0 ? 1e6 / busiest : 0,
      };
    },
  };
}

/** µs per unit, server and load generator together. */
export function cpuTotal(c: ServerCpu & { load: number | null }): number {
  return c.requestThread + c.busiestOther + c.rest + (c.load ?? 0);
}

/** One line: the CPU per unit of each part and the two bounds. */
export function describeCpu(c: CpuPerUnit, unit: string): string {
  const load = c.load === null ? '?' : c.load.toFixed(0);
  return (
    `request thread ${c.requestThread.toFixed(0)}, writer thread ${c.busiestOther.toFixed(0)}, other ${c.rest.toFixed(0)}, ` +
    `load generator ${load} µs per ${unit}; every core full at ${Math.round(c.coresFull)}/s, the busiest thread at ${Math.round(c.threadFull)}/s`
  );
}
