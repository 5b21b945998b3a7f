/**
 * Diagnostic report: lines up the answers of paced windows (WAYMARK_BENCH_PACED_TRACE, one file
 * per window: each answer's due time and latency) with a server's collections and event-loop
 * stalls (stallTimer.mjs, WAYMARK_BENCH_STALLS_FILE). Per window of at least 1 s (the 0.5-s
 * warm-ups are left out): its p99, how many answers took over 10 ms, how many of those were due
 * from 40 ms before to 15 ms after a full (major) collection of either thread and what share of
 * the window those stretches cover, and each thread's collections and stalls.
 *
 *   node --import tsx bench/lib/stallReport.ts /tmp/trace /tmp/stalls.log [BELOW]
 *
 * BELOW: only the windows offered at fewer than BELOW requests/s (in `latency`, 12000 keeps the
 * writes and leaves out the reads and their bare-Fastify windows, which ran at 15,000/s or more).
 */
import fs from 'node:fs';
import path from 'node:path';

/** One line of the stalls file. */
export interface StallEvent {
  atMs: number;
  thread: string;
  /** `gc` or `stall`. */
  what: string;
  /** For a collection: major, minor, incremental, weakcb. */
  kind: string;
  ms: number;
  /** For a stall (when the thread's scheduler counters could be read): ms run on a core and waited for one. */
  ran?: number;
  waited?: number;
}

export function parseStalls(text: string): StallEvent[] {
  const out: StallEvent[] = [];
  for (const line of text.split('\n')) {
    const p = line.trim().split(/\s+/);
    if (p.length < 4 || p[1] !== 'thread') continue;
    const what = p[3];
    if (what === 'gc') out.push({ atMs: Number(p[0]), thread: p[2], what, kind: p[4], ms: Number(p[5]) });
    else {
      const e: StallEvent = { atMs: Number(p[0]), thread: p[2], what, kind: '', ms: Number(p[4]) };
      if (p[5] === 'ran' && p[7] === 'waited') {
        e.ran = Number(p[6]);
        e.waited = Number(p[8]);
      }
      out.push(e);
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** Before and after a major collection's start: answers due in this stretch are counted "near" it. */
export const NEAR_BEFORE_MS = 40;
export const NEAR_AFTER_MS = 15;

export interface WindowReport {
  answers: number;
  p99: number;
  /** Answers over 10 ms. */
  slow: number;
  /** Of those, due near a major collection. */
  slowNearMajor: number;
  /** Share of the window within NEAR_BEFORE_MS / NEAR_AFTER_MS of a major collection. */
  nearShare: number;
  /** Per thread: `gc <kind>` and `stall` counts and milliseconds (for stalls, also ms run and waited for a core). */
  threads: Record<string, Record<string, { n: number; ms: number; ran?: number; waited?: number }>>;
}

/** `answers`: [due epoch ms, latency ms] in due order. */
export function windowReport(answers: [number, number][], events: StallEvent[]): WindowReport {
  const start = answers[0][0];
  const end = answers[answers.length - 1][0];
  const inWindow = events.filter((e) => e.atMs >= start - NEAR_BEFORE_MS && e.atMs <= end + NEAR_BEFORE_MS);
  const near = inWindow.filter((e) => e.what === 'gc' && e.kind === 'major').map((e) => [e.atMs - NEAR_BEFORE_MS, e.atMs + NEAR_AFTER_MS] as const);
  let covered = 0;
  let reached = start;
  for (const [a, b] of near) {
    const from = Math.max(a, reached);
    const to = Math.min(b, end);
    if (to > from) {
      covered += to - from;
      reached = to;
    }
  }
  const latencies = answers.map((a) => a[1]).sort((x, y) => x - y);
  const slow = answers.filter((a) => a[1] > 10);
  const threads: WindowReport['threads'] = {};
  for (const e of inWindow) {
    if (e.atMs < start || e.atMs > end) continue;
    const key = e.what === 'gc' ? `gc ${e.kind}` : e.what;
    const t = (threads[e.thread] ??= {});
    const c = (t[key] ??= { n: 0, ms: 0 });
    c.n++;
    c.ms += e.ms;
    if (e.ran !== undefined && e.waited !== undefined) {
      c.ran = (c.ran ?? 0) + e.ran;
      c.waited = (c.waited ?? 0) + e.waited;
    }
  }
  return {
    answers: answers.length,
    p99: latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)],
    slow: slow.length,
    slowNearMajor: slow.filter(([due]) => near.some(([a, b]) => due >= a && due <= b)).length,
    nearShare: end > start ? covered / (end - start) : 0,
    threads,
  };
}

function main(traceDir: string, stallsFile: string, below: number): void {
  const events = parseStalls(fs.readFileSync(stallsFile, 'utf8'));
  const files = fs.readdirSync(traceDir).filter((f) => /^paced-\d+-\d+\.txt$/.test(f)).sort();
  const total = { slow: 0, near: 0, covered: 0, seconds: 0, answers: 0 };
  for (const f of files) {
    const answers = fs
      .readFileSync(path.join(traceDir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => l.split(' ').map(Number) as [number, number]);
    if (answers.length < 2) continue;
    const seconds = (answers[answers.length - 1][0] - answers[0][0]) / 1000;
    if (seconds < 1) continue;
    const r = windowReport(answers, events);
    const rate = f.split('-')[2].replace('.txt', '');
    if (Number(rate) >= below) continue;
    const threads = Object.entries(r.threads)
      .map(([t, kinds]) => `thread ${t}: ${Object.entries(kinds).map(([k, c]) => `${k} ${c.n} (${Math.round(c.ms)} ms${c.waited !== undefined ? `: ran ${Math.round(c.ran ?? 0)}, waited for a core ${Math.round(c.waited)}` : ''})`).join(', ')}`)
      .join('; ');
    console.log(`${new Date(answers[0][0]).toISOString()} ${rate}/s ${seconds.toFixed(1)} s: p99 ${r.p99.toFixed(2)} ms; ${r.slow} of ${r.answers} over 10 ms, ${r.slowNearMajor} of them near a major collection (${(r.nearShare * 100).toFixed(1)} % of the window); ${threads || 'no collection or stall recorded'}`);
    total.slow += r.slow;
    total.near += r.slowNearMajor;
    total.covered += r.nearShare * seconds;
    total.seconds += seconds;
    total.answers += r.answers;
  }
  if (total.slow) console.log(`all windows: ${total.slow} of ${total.answers} answers over 10 ms, ${total.near} (${((total.near / total.slow) * 100).toFixed(0)} %) near a major collection, which covers ${((total.covered / total.seconds) * 100).toFixed(1)} % of the time`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [traceDir, stallsFile, below] = process.argv.slice(2);
  if (!traceDir || !stallsFile) {
    console.error('usage: stallReport.ts TRACE_DIR STALLS_FILE [BELOW]');
    process.exit(2);
  }
  main(traceDir, stallsFile, below ? Number(below) : Infinity);
}
