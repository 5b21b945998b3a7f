/**
 * `npm test`: the type check and the build (scripts/build.mjs), then every suite on SQLite, then
 * the store, engine and black-box suites again on PostgreSQL — the server in WAYMARK_TEST_PG, or
 * else a throwaway cluster started here from the machine's PostgreSQL binaries. Each pass is one
 * run of node's test runner, whose summary lines close it; the exit code is non-zero if the type
 * check, the build or either pass failed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from './build.mjs';
import { findPgBin, startPgCluster, type PgCluster } from './pg-cluster.ts';

const root = path.join(import.meta.dirname, '..');
const DIALECT_NEUTRAL = ['test/domain', 'test/model', 'test/bench'];

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(rel));
    else if (entry.name.endsWith('.test.ts')) out.push(rel);
  }
  return out.sort();
}

function runPass(label: string, files: string[], env: Record<string, string>): number {
  process.stdout.write(`\n# ${label}: ${files.length} files\n`);
  const args = ['--import', 'tsx', '--test', '--test-concurrency=2', ...files];
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

/** The type check (the build below only strips types), then the build that spawned servers run. */
function typecheckAndBuild(): number {
  process.stdout.write('# typecheck: tsc --noEmit -p .\n');
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', '.'], { cwd: root, stdio: 'inherit' });
  try {
    process.stdout.write(`# build: ${build()}\n`);
  } catch (e) {
    process.stdout.write(`# build failed: ${(e as Error).message}\n`);
    return 1;
  }
  return tsc.status ?? 1;
}

const only = process.argv.slice(2);
const all = only.length > 0 ? only : testFiles('test');
// Servers that tests spawn (`node bin/waymark.js`) run dist/ once it is built, as `npm start` does.
const buildStatus = typecheckAndBuild();
const sqliteStatus = runPass('SQLite', all, { WAYMARK_TEST_DIALECT: 'sqlite' });

const pgFiles = all.filter((f) => !DIALECT_NEUTRAL.some((d) => f.startsWith(d)));
let pgStatus = 0;
let cluster: PgCluster | null = null;
let url = process.env.WAYMARK_TEST_PG;
if (!url && process.env.WAYMARK_TEST_SKIP_PG !== '1') {
  const bin = findPgBin();
  if (bin) {
    cluster = await startPgCluster(bin);
    url = cluster.url;
  } else {
    process.stdout.write('\n# PostgreSQL: no server binaries under /usr/lib/postgresql and no WAYMARK_TEST_PG; PostgreSQL pass skipped\n');
  }
}
try {
  if (url && pgFiles.length > 0) pgStatus = runPass('PostgreSQL', pgFiles, { WAYMARK_TEST_DIALECT: 'postgres', WAYMARK_TEST_PG: url });
} finally {
  cluster?.stop();
}
process.exitCode = buildStatus || sqliteStatus || pgStatus;
