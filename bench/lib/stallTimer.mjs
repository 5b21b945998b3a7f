/**
 * Diagnostic preload (never loaded by the product): in each thread of a server, records with
 * their wall-clock times (epoch ms) every garbage collection (kind, duration) and every stretch
 * longer than WAYMARK_BENCH_STALLS_MS (default 3) during which the thread's event loop could not
 * run a 1-ms timer. Each thread appends its lines to WAYMARK_BENCH_STALLS_FILE once a second:
 *
 *   <epoch ms> thread <id> gc <kind> <ms>
 *   <epoch ms> thread <id> stall <ms> ran <ms> waited <ms>
 *
 * A stall's epoch ms is when the stretch began; `ran` and `waited` are the thread's time on a core
 * and waiting for one (its /proc/thread-self/schedstat) from the tick before the stall to the one
 * that ended it: a long synchronous stretch runs, a thread the two cores had no room for waits.
 *
 * Set beside WAYMARK_BENCH_PACED_TRACE (each paced answer's due time and latency) it tells whether
 * a latency tail lines up with a collection or a long synchronous stretch, and on which thread.
 * Plain JavaScript, like commitTimer.mjs: a worker's preloads run before tsx's hooks.
 *
 *   npm run bench -- latency "--server-env=NODE_OPTIONS=--import tsx --import $PWD/bench/lib/stallTimer.mjs" \
 *     --server-env=WAYMARK_BENCH_STALLS_FILE=/tmp/stalls.log
 */
import fs from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';

const out = process.env.WAYMARK_BENCH_STALLS_FILE;
if (out) install(out, Number(process.env.WAYMARK_BENCH_STALLS_MS ?? 3));

/**
 * @param {string} file
 * @param {number} thresholdMs
 */
function install(file, thresholdMs) {
  /** @type {string[]} */
  const lines = [];
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      // @ts-ignore detail.kind (Node >= 16)
      const kind = kinds[e.detail?.kind] ?? String(e.detail?.kind);
      lines.push(`${(performance.timeOrigin + e.startTime).toFixed(3)} thread ${threadId} gc ${kind} ${e.duration.toFixed(3)}`);
    }
  }).observe({ entryTypes: ['gc'] });
  // The thread's own scheduler counters (Linux): nanoseconds run on a core and waited for one.
  // Read on every tick, so that a stall says which of the two it was.
  const schedstat = () => {
    try {
      const [run, wait] = fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
      return [Number(run) / 1e6, Number(wait) / 1e6];
    } catch {
      return null;
    }
  };
  let last = performance.now();
  let lastSched = schedstat();
  const tick = setInterval(() => {
    const now = performance.now();
    const late = now - last - 1;
    const sched = lastSched && schedstat();
    if (late > thresholdMs) {
      const how = sched && lastSched ? ` ran ${(sched[0] - lastSched[0]).toFixed(3)} waited ${(sched[1] - lastSched[1]).toFixed(3)}` : '';
      lines.push(`${(performance.timeOrigin + last + 1).toFixed(3)} thread ${threadId} stall ${late.toFixed(3)}${how}`);
    }
    last = now;
    lastSched = sched;
  }, 1);
  tick.unref();
  const flush = () => {
    if (lines.length) fs.appendFileSync(file, `${lines.splice(0).join('\n')}\n`);
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
}
