/**
 * Markdown for docs/performance.md from a results file (default bench/results/latest.json):
 * the machine, the date, the figures table and how busy the machine was during each scenario.
 *
 *   node --import tsx bench/lib/report.ts [bench/results/latest.json]
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Row } from './context.ts';
import type { PgInfo } from './pg.ts';
import { RESULTS, fmt } from './util.ts';

/** One line on the PostgreSQL cluster the pg and nodes scenarios ran on. */
export function pgLine(p: PgInfo): string {
  const s = Object.entries(p.settings).map(([k, v]) => `${k} ${v}`).join(', ');
  return `PostgreSQL ${p.version} (throwaway cluster in the system temp dir; ${s}).`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|');
}

export function markdown(results: any): string {
  const m = results.machine;
  const out: string[] = [];
  out.push(`Measured ${results.date.slice(0, 16).replace('T', ' ')} UTC, full run ${Math.round(results.seconds)} s, node ${m.node}, ${m.nproc} cores (${m.cpuModel}), ${m.memTotalGiB} GiB RAM, ${m.platform}.`);
  if (results.postgres) out.push(pgLine(results.postgres));
  if (results.serverEnv && Object.keys(results.serverEnv).length) out.push(`Diagnostic run with ${JSON.stringify(results.serverEnv)}.`);
  out.push('');
  out.push('| Scenario | Figure | Unit | Baseline (same run) | Ratio | Target | Met? |');
  out.push('|---|---:|---|---|---:|---|---|');
  for (const r of results.rows as Row[]) {
    const base = r.baseline === undefined || r.baseline === null ? '' : `${fmt(r.baseline)}${r.baselineName ? ` ${r.baselineName}` : ''}`;
    const ratio = r.ratio === undefined || r.ratio === null ? '' : `${fmt(r.ratio, 2)}×`;
    const met = r.met === null ? 'info' : r.met ? 'yes' : '**no**';
    const metric = r.note ? `${r.scenario}: ${r.metric} <br><sub>${cell(r.note)}</sub>` : `${r.scenario}: ${r.metric}`;
    out.push(`| ${cell(metric)} | ${fmt(r.figure)} | ${r.unit} | ${cell(base)} | ${ratio} | ${cell(r.target)} | ${met} |`);
  }
  out.push('');
  out.push('| Scenario | Seconds | Load average (start → end) | CPU pressure, some avg60 (end) |');
  out.push('|---|---:|---|---:|');
  for (const [name, s] of Object.entries<any>(results.scenarios)) {
    const b = s.busy;
    out.push(`| ${name} | ${Math.round(s.seconds)} | ${b ? `${b.before.load1} → ${b.after.load1}` : ''} | ${b?.after.cpuSomeAvg60 ?? ''}% |`);
  }
  return out.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const file = process.argv[2] ?? path.join(RESULTS, 'latest.json');
  console.log(markdown(JSON.parse(fs.readFileSync(file, 'utf8'))));
}
