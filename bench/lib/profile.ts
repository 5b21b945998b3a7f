/**
 * Summarise a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per area
 * (src/<layer>, node_modules/<package>, node internals, GC, idle).
 *
 *   node --import tsx bench/lib/profile.ts FILE.cpuprofile|DIR [TOP]
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './util.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  busyMs: number;
  functions: { name: string; where: string; area: string; selfMs: number; pct: number }[];
  areas: { area: string; selfMs: number; pct: number }[];
  /**
   * Inclusive (total) time of the project's own functions and of the SQLite driver's transaction
   * calls: native SQLite work (and the fsync of COMMIT) shows as self time of the driver's
   * executeQuery, so this is where it can be told apart by caller.
   */
  inclusive: { name: string; where: string; totalMs: number; pct: number }[];
}

function shortUrl(url: string): string {
  if (!url) return '';
  let u = url.replace(/^file:\/\//, '');
  if (u.startsWith(ROOT)) u = path.relative(ROOT, u);
  return u;
}

export function areaOf(name: string, url: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)') return 'idle';
  if (name === '(program)') return 'V8/native (program)';
  if (name === '(root)') return 'root';
  const u = shortUrl(url);
  if (u === '') return 'native';
  if (u.startsWith('node:')) return `node:${u.slice(5).split('/')[0]}`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (nm) return `npm:${nm[1]}`;
  // A server runs its build (dist/, scripts/build.mjs): its areas are named after the sources.
  const src = /^(src|dist|bench|bin)\/([^/]+)/.exec(u);
  if (src && src[1] === 'dist') return `src/${src[2].replace(/\.js$/, '.ts')}`;
  if (src) return src[1] === 'src' && src[2].endsWith('.ts') ? `src/${src[2]}` : `${src[1]}/${src[2]}`;
  return u;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const fn = new Map<string, { name: string; where: string; area: string; us: number }>();
  const area = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const name = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const a = areaOf(name, url);
    const key = `${name}@${where}`;
    const e = fn.get(key) ?? { name, where, area: a, us: 0 };
    e.us += us;
    fn.set(key, e);
    area.set(a, (area.get(a) ?? 0) + us);
    total += us;
    if (a === 'idle') idle += us;
  }
  const busy = total - idle;
  // Inclusive time: walk each sample's stack once, crediting every distinct function on it.
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map<number, string>();
  const meta = new Map<string, { name: string; where: string }>();
  for (const n of p.nodes) {
    const { functionName, url, lineNumber } = n.callFrame;
    const u = shortUrl(url);
    const wanted = /^(src|bin|dist)\//.test(u) || (/kysely\/dist\/esm\/dialect\/sqlite\/sqlite-driver/.test(u) && /Transaction|savepoint/i.test(functionName));
    if (!wanted) continue;
    const name = functionName || '(anonymous)';
    const where = `${u}:${lineNumber + 1}`;
    const key = `${name}@${where}`;
    keyOf.set(n.id, key);
    meta.set(key, { name, where });
  }
  const incl = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const seen = new Set<string>();
    for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
      const k = keyOf.get(id);
      if (k && !seen.has(k)) {
        seen.add(k);
        incl.set(k, (incl.get(k) ?? 0) + (p.timeDeltas[i] ?? 0));
      }
    }
  }
  const pct = (us: number) => Math.round((us / (busy || 1)) * 1000) / 10;
  return {
    file,
    totalMs: total / 1000,
    busyMs: busy / 1000,
    functions: [...fn.values()]
      .filter((f) => f.area !== 'idle')
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, area: f.area, selfMs: Math.round(f.us / 100) / 10, pct: pct(f.us) })),
    inclusive: [...incl.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({ ...meta.get(k)!, totalMs: Math.round(us / 100) / 10, pct: pct(us) })),
    areas: [...area.entries()]
      .filter(([a]) => a !== 'idle')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([a, us]) => ({ area: a, selfMs: Math.round(us / 100) / 10, pct: pct(us) })),
  };
}

export function formatProfile(s: ProfileSummary): string {
  const lines = [`Profile ${path.relative(ROOT, s.file)}: ${Math.round(s.busyMs)} ms busy of ${Math.round(s.totalMs)} ms (percentages of busy time)`];
  lines.push('  Self time by area:');
  for (const a of s.areas) lines.push(`    ${a.pct.toFixed(1).padStart(5)}%  ${String(a.selfMs).padStart(8)} ms  ${a.area}`);
  lines.push('  Top functions by self time:');
  for (const f of s.functions) lines.push(`    ${f.pct.toFixed(1).padStart(5)}%  ${String(f.selfMs).padStart(8)} ms  ${f.name}  ${f.where}`);
  lines.push('  Inclusive time of project functions (and SQLite transaction calls):');
  for (const f of s.inclusive) lines.push(`    ${f.pct.toFixed(1).padStart(5)}%  ${String(f.totalMs).padStart(8)} ms  ${f.name}  ${f.where}`);
  return lines.join('\n');
}

/**
 * The main thread's profile in a directory: node writes one file per thread (tsx's module loader
 * runs in a worker thread of its own), named CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile;
 * the main thread is thread 0. Falls back to the largest file.
 */
export function newestProfile(dir: string): string | null {
  if (!fs.existsSync(dir)) return null;
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
  files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size);
  return files.find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)) ?? files[0] ?? null;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const arg = process.argv[2];
  const top = Number(process.argv[3] ?? 25);
  if (!arg || !Number.isInteger(top)) {
    console.error('usage: node --import tsx bench/lib/profile.ts FILE.cpuprofile|DIR [TOP]');
    process.exit(2);
  }
  const file = fs.statSync(arg).isDirectory() ? newestProfile(arg) : arg;
  if (!file) {
    console.error(`no .cpuprofile in ${arg}`);
    process.exit(2);
  }
  console.log(formatProfile(summarizeProfile(file, top)));
}
