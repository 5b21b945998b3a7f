/**
 * Waymark benchmark suite. `npm run bench` runs every scenario; `npm run bench -- NAME...` runs
 * some (their dependencies first). Flags: --profile (servers run under node --cpu-prof and their
 * top self-time functions are printed), --keep (keep data directories), --list.
 *
 * --server-env=NAME=VALUE (repeatable) passes a setting to every server started, for diagnostic
 * runs (e.g. WAYMARK_SQLITE_SYNCHRONOUS=NORMAL to see what fsync costs); the targets assume
 * the defaults.
 *
 * Prints a table (scenario | figure | unit | baseline | ratio | target | met?) and writes
 * bench/results/latest.json. Never part of `npm test`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ctx, ensureResultsDir, type Row, type Scenario } from './lib/context.ts';
import { pgLine } from './lib/report.ts';
import { RESULTS, fmt, log, machine } from './lib/util.ts';
import { maxRow } from './lib/workload.ts';
import { buildServer } from './lib/server.ts';
import { reads } from './scenarios/reads.ts';
import { writes } from './scenarios/writes.ts';
import { dispatch } from './scenarios/dispatch.ts';
import { e2e } from './scenarios/e2e.ts';
import { storage } from './scenarios/storage.ts';
import { users10k } from './scenarios/users10k.ts';
import { latency } from './scenarios/latency.ts';
import { scale } from './scenarios/scale.ts';
import { overload } from './scenarios/overload.ts';
import { soak } from './scenarios/soak.ts';
import { pgScenario } from './scenarios/pg.ts';
import { nodes } from './scenarios/nodes.ts';
import { statements } from './scenarios/statements.ts';
import { instructions } from './scenarios/instructions.ts';
import { writeInstructions } from './scenarios/writeInstructions.ts';
import { e2eInstructions } from './scenarios/e2eInstructions.ts';
import { pgScale } from './scenarios/pgScale.ts';
import { pgLatency } from './scenarios/pgLatency.ts';

const ALL: Scenario[] = [reads, writes, dispatch, e2e, storage, users10k, latency, scale, overload, pgScenario, nodes];
/**
 * Run only when named: `npm run bench -- soak` takes 30 minutes; `statements` (where the time
 * goes, 25 s) is a diagnosis rather than a figure with a target, and the full run stays under 10
 * minutes without it.
 */
const ON_REQUEST: Scenario[] = [soak, statements, instructions, writeInstructions, e2eInstructions, pgScale, pgLatency];
/** What a full run may take: 10 minutes. */
const FULL_RUN_BUDGET_S = 600;

function table(rows: Row[]): string {
  const head = ['scenario', 'figure', 'unit', 'baseline', 'ratio', 'target', 'met?'];
  const body = rows.map((r) => [
    `${r.scenario}: ${r.metric}`,
    fmt(r.figure),
    r.unit,
    r.baseline === undefined || r.baseline === null ? '' : `${fmt(r.baseline)}${r.baselineName ? ` (${r.baselineName})` : ''}`,
    r.ratio === undefined || r.ratio === null ? '' : `${fmt(r.ratio, 2)}×`,
    r.target,
    r.met === null ? 'info' : r.met ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const flags = new Set(args.filter((a) => a.startsWith('--') && !a.startsWith('--server-env=')));
  const serverEnv: Record<string, string> = {};
  for (const a of args.filter((x) => x.startsWith('--server-env='))) {
    const kv = a.slice('--server-env='.length);
    const eq = kv.indexOf('=');
    if (eq <= 0) {
      console.error(`--server-env needs NAME=VALUE, got "${kv}"`);
      return 2;
    }
    serverEnv[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const names = args.filter((a) => !a.startsWith('--'));
  const registry = new Map([...ALL, ...ON_REQUEST].map((s) => [s.name, s]));
  if (flags.has('--list') || flags.has('--help')) {
    for (const s of [...ALL, ...ON_REQUEST]) console.log(`${s.name.padEnd(10)} ${s.title}${s.needs?.length ? ` (needs ${s.needs.join(', ')})` : ''}`);
    return 0;
  }
  for (const n of names) if (!registry.has(n)) {
    console.error(`unknown scenario "${n}"; one of: ${[...registry.keys()].join(', ')}`);
    return 2;
  }
  ensureResultsDir();
  const ctx = new Ctx({ profile: flags.has('--profile'), keep: flags.has('--keep'), serverEnv }, registry);
  const started = new Date();
  const t0 = performance.now();
  log(buildServer());
  try {
    for (const name of names.length ? names : ALL.map((s) => s.name)) await ctx.require(name);
  } finally {
    ctx.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  const results = [...ctx.results.values()];
  const rows = results.flatMap((r) => r.rows);
  // The whole run must stay under 10 minutes (issue 5): checked in every full run, so that a
  // scenario that grows past the budget shows as a missed row, not only in the closing line.
  if (names.length === 0) rows.push(maxRow('run', 'every scenario, start to end', seconds, 's', FULL_RUN_BUDGET_S, undefined, undefined, `${results.length} scenarios`));
  const out = {
    date: started.toISOString(),
    seconds,
    machine: machine(),
    argv: args,
    serverEnv,
    postgres: ctx.pg.info,
    rows,
    scenarios: Object.fromEntries(results.map((r) => [r.name, { seconds: r.seconds, busy: r.busy, data: r.data, error: r.error, profiles: r.profiles }])),
  };
  fs.writeFileSync(path.join(RESULTS, 'latest.json'), JSON.stringify(out, null, 2));
  fs.writeFileSync(path.join(RESULTS, `run-${started.toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(out, null, 2));
  console.log(`\nWaymark benchmark, ${started.toISOString()}, ${seconds.toFixed(0)} s, ${(out.machine as any).nproc} cores ${(out.machine as any).cpuModel}, node ${process.version}`);
  if (ctx.pg.info) console.log(pgLine(ctx.pg.info));
  if (Object.keys(serverEnv).length) console.log(`Diagnostic run: servers started with ${JSON.stringify(serverEnv)} (the targets assume the defaults).`);
  console.log(table(rows));
  const missed = rows.filter((r) => r.met === false);
  console.log(`\n${rows.filter((r) => r.met === true).length} met, ${missed.length} missed, ${rows.filter((r) => r.met === null).length} informational. Results: ${path.relative(process.cwd(), path.join(RESULTS, 'latest.json'))}`);
  for (const r of results) {
    const b = r.busy;
    if (b) console.log(`  ${r.name.padEnd(9)} ${r.seconds.toFixed(0).padStart(4)} s; load average ${b.before.load1} -> ${b.after.load1}; CPU pressure (some, avg60) ${b.after.cpuSomeAvg60 ?? '?'}%`);
  }
  for (const r of results) for (const p of r.profiles ?? []) log(`profile ${r.name}: ${p.file}`);
  return results.some((r) => r.error) ? 1 : 0;
}

process.exitCode = await main();
