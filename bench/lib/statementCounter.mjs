/**
 * Preloaded into a server by the `statements` scenario (node --import): counts and times every
 * better-sqlite3 statement the server runs (run/get/all/iterate, wrapped on the Statement
 * prototype), by kind and table, and writes the totals to WAYMARK_BENCH_STATEMENTS_FILE on
 * SIGUSR2. Never loaded by the product; the server's code is unchanged.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Tally {
  n: number;
  ns: number;
}

const out = process.env.WAYMARK_BENCH_STATEMENTS_FILE;
if (out) install(out);

function install(file: string): void {
  const require = createRequire(path.join(process.cwd(), 'package.json'));
  const SQLite = require('better-sqlite3');
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  const tallies = new Map<string, Tally>();
  const kinds = new Map<string, string>();
  const kindOf = (source: string): string => {
    let kind = kinds.get(source);
    if (kind === undefined) {
      kind = classify(source);
      kinds.set(source, kind);
    }
    return kind;
  };
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = proto[method];
    proto[method] = function timed(this: { source: string }, ...args: unknown[]) {
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
  process.on('SIGUSR2', () => {
    fs.writeFileSync(file, JSON.stringify(Object.fromEntries(tallies)));
  });
}

/** "select activity_instances", "insert events", "commit", "savepoint", ... */
function classify(source: string): string {
  const text = source.trim().toLowerCase();
  const verb = /^(\w+)/.exec(text)?.[1] ?? '?';
  if (['begin', 'commit', 'rollback', 'savepoint', 'release'].includes(verb)) return verb;
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/.exec(text)?.[1] ?? '';
  return `${verb} ${table}`.trim();
}
