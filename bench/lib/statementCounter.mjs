/**
 * Preloaded into a server by the `statements` scenario (node --import, which also runs it in the
 * server's worker threads; plain JavaScript, since a worker's preloads run before tsx's hooks): counts and times every better-sqlite3 statement the server runs
 * (run/get/all/iterate, wrapped on the Statement prototype), by kind and table. On SIGUSR2 the
 * main thread writes its totals to WAYMARK_BENCH_STATEMENTS_FILE and asks every other thread
 * (over a BroadcastChannel: signals reach the main thread only) to write theirs to
 * `<file>.thread<id>`. Never loaded by the product; the server's code is unchanged.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

/** @typedef {{ n: number, ns: number }} Tally */

const out = process.env.WAYMARK_BENCH_STATEMENTS_FILE;
if (out) install(out);

/** @param {string} file */
function install(file) {
  const require = createRequire(path.join(process.cwd(), 'package.json'));
  const SQLite = require('better-sqlite3');
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  /** @type {Map<string, Tally>} */
  const tallies = new Map();
  /** @type {Map<string, string>} */
  const kinds = new Map();
  const kindOf = (/** @type {string} */ source) => {
    let kind = kinds.get(source);
    if (kind === undefined) {
      kind = classify(source);
      kinds.set(source, kind);
    }
    return kind;
  };
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = proto[method];
    proto[method] = function timed(...args) {
      const t0 = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const ns = Number(process.hrtime.bigint() - t0);
        const kind = kindOf(this.source);
        const t = tallies.get(kind);
        if (t) {
          t.n++;
          t.ns += ns;
        } else {
          tallies.set(kind, { n: 1, ns });
        }
      }
    };
  }
  const channel = new BroadcastChannel('waymark-bench-statements');
  channel.unref();
  // Written under another name, then renamed: the reader never sees half a file.
  const dump = (/** @type {string} */ to) => {
    fs.writeFileSync(`${to}.tmp`, JSON.stringify(Object.fromEntries(tallies)));
    fs.renameSync(`${to}.tmp`, to);
  };
  if (isMainThread) {
    process.on('SIGUSR2', () => {
      channel.postMessage('dump');
      dump(file);
    });
  } else {
    channel.onmessage = () => dump(`${file}.thread${threadId}`);
  }
}

/** "select activity_instances", "insert events", "commit", "savepoint", ... */
/** @param {string} source */
function classify(source) {
  const text = source.trim().toLowerCase();
  const verb = /^(\w+)/.exec(text)?.[1] ?? '?';
  if (['begin', 'commit', 'rollback', 'savepoint', 'release'].includes(verb)) return verb;
  // WAYMARK_BENCH_STATEMENT_TEXTS=1 (--server-env): one row per statement text instead of per kind.
  if (process.env.WAYMARK_BENCH_STATEMENT_TEXTS) return text.slice(0, 220);
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/.exec(text)?.[1] ?? '';
  return `${verb} ${table}`.trim();
}
