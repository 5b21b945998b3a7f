/**
 * Diagnostic preload (never loaded by the product): times every SQLite write transaction of a
 * server, in each of its threads, from its BEGIN to the end of its COMMIT (or ROLLBACK), and the
 * COMMIT statement alone (the WAL writes and the fsync). Each thread appends to
 * WAYMARK_BENCH_COMMITS_FILE, once a second, a histogram of its transaction times (upper bounds
 * in ms, powers of two) and one line per transaction slower than WAYMARK_BENCH_COMMITS_SLOW_MS
 * (default 20), with its statement count. Plain JavaScript, like statementCounter.mjs: a worker's
 * preloads run before tsx's hooks.
 *
 *   npm run bench -- latency "--server-env=NODE_OPTIONS=--import tsx --import $PWD/bench/lib/commitTimer.mjs" \
 *     --server-env=WAYMARK_BENCH_COMMITS_FILE=/tmp/commits.log
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

const out = process.env.WAYMARK_BENCH_COMMITS_FILE;
if (out) install(out, Number(process.env.WAYMARK_BENCH_COMMITS_SLOW_MS ?? 20));

/**
 * @param {string} file
 * @param {number} slowMs
 */
function install(file, slowMs) {
  const require = createRequire(path.join(process.cwd(), 'package.json'));
  const SQLite = require('better-sqlite3');
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  /** @type {bigint | null} */
  let begun = null;
  let statements = 0;
  /** @type {Map<number, number>} */
  const histogram = new Map();
  /** @type {string[]} */
  const slow = [];
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = proto[method];
    proto[method] = function timed(...args) {
      const verb = /^\s*(\w+)/.exec(this.source)?.[1]?.toLowerCase() ?? '';
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const ended = process.hrtime.bigint();
        if (verb === 'begin') {
          begun = started;
          statements = 0;
        } else if (begun !== null) {
          statements++;
          if (verb === 'commit' || verb === 'rollback') {
            const ms = Number(ended - begun) / 1e6;
            const bound = 2 ** Math.max(-2, Math.ceil(Math.log2(Math.max(ms, 1e-3))));
            histogram.set(bound, (histogram.get(bound) ?? 0) + 1);
            if (ms >= slowMs) {
              slow.push(`${new Date().toISOString()} thread ${threadId} transaction ${ms.toFixed(1)} ms (${statements} statements), of which its ${verb.toUpperCase()} ${(Number(ended - started) / 1e6).toFixed(1)} ms`);
            }
            begun = null;
          }
        }
      }
    };
  }
  const flush = () => {
    const lines = slow.splice(0);
    const bins = [...histogram].sort((a, b) => a[0] - b[0]).map(([ms, n]) => `<=${ms}ms:${n}`);
    histogram.clear();
    if (bins.length > 0) lines.push(`${new Date().toISOString()} thread ${threadId} transactions ${bins.join(' ')}`);
    if (lines.length > 0) fs.appendFileSync(file, lines.map((l) => `${l}\n`).join(''));
  };
  setInterval(flush, 1000).unref();
}
