/**
 * `npm run build`: src/ compiled to JavaScript in dist/ (TypeScript's compiler, emit only: type
 * checking is `npm run typecheck`'s job), so that a server starts without tsx's loader hooks.
 * Those hooks ran every module's resolution and load through another thread, in both of the
 * server's threads: a start took 2.4 s from the sources and 1.3 s from dist/ (docs/performance.md).
 *
 * dist/ runs only while it matches the sources: the build records a hash of src/ and the build
 * settings, and bin/waymark.js runs dist/ when that hash is still the sources' hash, the sources
 * through tsx otherwise. An edit therefore never runs stale code; it runs slower until the next
 * build. Plain JavaScript, so that bin/waymark.js can use it before any loader is registered.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const CONFIG = path.join(ROOT, 'tsconfig.build.json');
const STAMP = '.source-hash';

/** Every file under dir, as sorted paths relative to it. */
function filesUnder(dir, rel = '') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const name = path.join(rel, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(dir, name));
    else out.push(name);
  }
  return out.sort();
}

/** The hash of what a build reads: every file of src/ (name and content) and the build settings. */
export function sourceHash() {
  const h = createHash('sha256');
  for (const file of [...filesUnder(SRC).map((f) => path.join(SRC, f)), CONFIG]) {
    h.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return h.digest('hex');
}

/** dist/cli/main.js when outDir holds a build of the current sources, else null. */
export function builtEntry(outDir = path.join(ROOT, 'dist')) {
  let stamp;
  try {
    stamp = fs.readFileSync(path.join(outDir, STAMP), 'utf8');
  } catch {
    return null;
  }
  return stamp === sourceHash() ? path.join(outDir, 'cli', 'main.js') : null;
}

/**
 * The module bin/waymark.js runs: the build in outDir when it is of the current sources, else
 * src/cli/main.ts (`built: false`: register tsx's loader first).
 */
export function serverEntry(outDir = path.join(ROOT, 'dist')) {
  const built = builtEntry(outDir);
  return { built: built !== null, url: pathToFileURL(built ?? path.join(SRC, 'cli', 'main.ts')).href };
}

/**
 * Builds into outDir unless it already holds this build. The compiler writes into a fresh
 * directory that then replaces outDir, so a server starting meanwhile sees the old build or the
 * new one, never half of one. Returns what it did; throws when the compiler fails.
 */
export function build(outDir = path.join(ROOT, 'dist')) {
  const hash = sourceHash();
  if (builtEntry(outDir)) return 'up to date';
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!fs.existsSync(tsc)) return 'skipped: no TypeScript compiler (dev dependencies not installed); the server runs from the sources';
  const next = `${outDir}.next-${process.pid}`;
  fs.rmSync(next, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, '-p', CONFIG, '--outDir', next], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    fs.rmSync(next, { recursive: true, force: true });
    throw new Error(`tsc failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  fs.writeFileSync(path.join(next, STAMP), hash);
  const old = `${outDir}.old-${process.pid}`;
  if (fs.existsSync(outDir)) fs.renameSync(outDir, old);
  fs.renameSync(next, outDir);
  fs.rmSync(old, { recursive: true, force: true });
  return 'built';
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outArg = process.argv.indexOf('--out-dir');
  const outDir = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : undefined;
  const t0 = Date.now();
  try {
    const what = build(outDir);
    process.stdout.write(`build: ${what} (${Date.now() - t0} ms)\n`);
  } catch (e) {
    process.stderr.write(`build: ${e.message}\n`);
    process.exitCode = 1;
  }
}
