/**
 * The disk's own share of a durable write's latency, measured beside a paced window.
 *
 * A durable answer waits for a flush, and this machine's virtual disk stalls now and then: every
 * flush issued meanwhile, of any file by any process, ends together 20 ms to over a second later
 * (2026-11-27: two processes flushing two files saw the same stalls to the millisecond; an 8-KB
 * write and fdatasync 30, 300 or 1,000 times a second met about one a second, 4-12 % of the wall
 * time).
 * A request due during such a stall cannot be answered durably before it ends, whatever the
 * server does.
 *
 * The probe is a child process of its own that writes 4 KB and calls fdatasync on a file in the
 * system temp dir (the disk the servers write to) every PERIOD_MS, and keeps the [start, end] of
 * every flush that took FLUSH_KEPT_MS or more, in epoch milliseconds. `diskFloor` then gives, for
 * the requests of a paced window (due evenly from its start), the latency a server that costs no
 * CPU at all would have had: a request due inside a flush's span waits for its end, any other one
 * none. A stall that began while the probe slept is seen from the probe's next flush on, so the
 * figure errs low (by at most PERIOD_MS per stall).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Between two flushes: ~150-190 a second of 4 KB, ~6 % of a core here by schedstat (every 2 ms:
 * 10 %, too much beside a server measured on two cores; a wake of an idle process alone costs
 * ~160 µs of CPU on this machine). A stall that starts while the probe sleeps is seen up to this
 * much late.
 */
const PERIOD_MS = 5;
/** Flushes shorter than this are not kept (a usual one takes 0.1-0.5 ms). */
const FLUSH_KEPT_MS = 1;

/** A flush of the probe's, epoch milliseconds. */
export interface Flush {
  start: number;
  end: number;
}

export interface DiskFloor {
  /** The latency a server with no CPU cost would have had for the same due times, in ms. */
  p50: number;
  p99: number;
  max: number;
  /** Flushes of the probe over 10 ms in the window, and the time they took together. */
  stalls: number;
  stalledMs: number;
  /** stalledMs over the window's length. */
  stalledShare: number;
}

export interface DiskProbe {
  /** The kept flushes that overlap [from, to] (epoch ms). */
  flushes(from: number, to: number): Promise<Flush[]>;
  stop(): Promise<void>;
}

const now = () => performance.timeOrigin + performance.now();

/** Child side: flush forever, answer `{ from, to }` with the kept flushes overlapping it. */
function probeMain(file: string): void {
  const fd = fs.openSync(file, 'w');
  const page = Buffer.alloc(4096, 0x5a);
  const kept: Flush[] = [];
  let offset = 0;
  const flushOnce = () => {
    fs.writeSync(fd, page, 0, page.length, offset);
    offset = (offset + page.length) % (4 << 20);
    const start = now();
    fs.fdatasyncSync(fd);
    const end = now();
    if (end - start >= FLUSH_KEPT_MS) kept.push({ start, end });
    // An hour of stalls at one a second is 3,600 entries: nothing to trim in a bench run.
    setTimeout(flushOnce, PERIOD_MS);
  };
  process.on('message', (m: { id: number; from: number; to: number }) => {
    process.send!({ id: m.id, flushes: kept.filter((f) => f.end >= m.from && f.start <= m.to) });
  });
  // The bench gone (a crash, Ctrl-C): no probe left flushing the disk for ever.
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: true });
  flushOnce();
}

/** Starts the probe in `dir` (a temp dir of the run's, on the disk the servers use). */
export async function startDiskProbe(dir: string): Promise<DiskProbe> {
  const child: ChildProcess = fork(import.meta.filename, ['--probe', path.join(dir, 'disk-probe.dat')], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`disk probe exited with ${code} while starting`)));
  });
  let nextId = 1;
  const pending = new Map<number, (f: Flush[]) => void>();
  child.on('message', (m: { id?: number; flushes?: Flush[] }) => {
    if (m.id === undefined) return;
    pending.get(m.id)?.(m.flushes ?? []);
    pending.delete(m.id);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    flushes(from, to) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.send({ id, from, to });
      });
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * The disk-only latency of `count` requests due evenly at `rate` a second from `startMs` (epoch),
 * given the probe's flushes of that time: a request due inside a flush's span waits until its end.
 */
export function diskFloor(startMs: number, rate: number, count: number, flushes: Flush[]): DiskFloor {
  const spans = [...flushes].sort((a, b) => a.start - b.start);
  const waits = new Float64Array(count);
  let k = 0;
  for (let i = 0; i < count; i++) {
    const due = startMs + (i * 1000) / rate;
    while (k < spans.length && spans[k].end <= due) k++;
    waits[i] = k < spans.length && spans[k].start <= due ? spans[k].end - due : 0;
  }
  waits.sort();
  const endMs = startMs + (count * 1000) / rate;
  const stalls = spans.filter((f) => f.end - f.start > 10);
  // Only the part of each stall inside the window counts towards its share.
  const stalledMs = stalls.reduce((sum, f) => sum + Math.max(0, Math.min(f.end, endMs) - Math.max(f.start, startMs)), 0);
  return {
    p50: percentile(waits, 0.5),
    p99: percentile(waits, 0.99),
    max: count ? waits[count - 1] : NaN,
    stalls: stalls.length,
    stalledMs,
    stalledShare: endMs > startMs ? stalledMs / (endMs - startMs) : 0,
  };
}

if (process.argv[2] === '--probe') probeMain(process.argv[3]);
