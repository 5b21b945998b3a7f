/**
 * Starts `node bin/waymark.js serve` as a child process on a fresh (or given) data directory and a
 * free port, with the default log level, and stops it with SIGTERM (a graceful stop, which also
 * writes the CPU profile when --cpu-prof is on).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Api } from './api.ts';
import { ADMIN_PASSWORD, ROOT, freePort, log, rssKb, sleep, tempDir } from './util.ts';

/**
 * The checkout whose server is measured: this one, or another (WAYMARK_BENCH_SERVER_ROOT, e.g. a
 * `git worktree` of an earlier commit), so that a change is measured before and after with the
 * same harness, in the same quiet window.
 */
const SERVER_ROOT = process.env.WAYMARK_BENCH_SERVER_ROOT ?? ROOT;

export interface ServerOptions {
  /** Existing data directory (kept); default a fresh temp dir. */
  dataDir?: string;
  env?: Record<string, string>;
  /** A postgres:// URL: the server runs on that PostgreSQL database instead of an SQLite file. */
  databaseUrl?: string;
  /** Write a V8 CPU profile of the server into this directory (node --cpu-prof). */
  profileDir?: string;
  /** A program that runs node (e.g. valgrind and its flags): `wrapper... node bin/waymark.js serve`. */
  wrapper?: string[];
  /** How long the server may take to answer its first request (default 60 s). */
  startTimeoutMs?: number;
}

export interface ServerHandle {
  url: string;
  pid: number;
  dataDir: string;
  /** The SQLite file (meaningless when `databaseUrl` is set). */
  dbPath: string;
  /** The PostgreSQL database, when the server runs on one. */
  databaseUrl?: string;
  logFile: string;
  api: Api;
  rssKb(): number;
  stop(): Promise<void>;
}

/**
 * The measured checkout's JavaScript build (scripts/build.mjs), as `npm start` makes it: servers
 * start from dist/ in ~1.3 s instead of ~2.4 s through tsx. A checkout without the script (an
 * earlier commit) runs from its sources.
 */
export function buildServer(): string {
  const script = path.join(SERVER_ROOT, 'scripts', 'build.mjs');
  if (!fs.existsSync(script)) return 'no build script: servers run from the sources';
  const r = spawnSync(process.execPath, [script], { cwd: SERVER_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the build failed:\n${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}

export async function startServer(opts: ServerOptions = {}): Promise<ServerHandle> {
  const dataDir = opts.dataDir ?? tempDir('data');
  fs.mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const logFile = path.join(dataDir, `server-${Date.now()}.log`);
  const out = fs.openSync(logFile, 'a');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WAYMARK_') && k !== 'NODE_OPTIONS') env[k] = v;
  Object.assign(env, {
    WAYMARK_DATA_DIR: dataDir,
    WAYMARK_PORT: String(port),
    WAYMARK_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ...opts.env,
    ...(opts.databaseUrl ? { WAYMARK_DATABASE_URL: opts.databaseUrl } : {}),
  });
  const nodeArgs = opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [];
  // Diagnostic: V8 and Node options that NODE_OPTIONS refuses (GC flags), for every server.
  nodeArgs.push(...(process.env.WAYMARK_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''));
  if (opts.profileDir) fs.mkdirSync(opts.profileDir, { recursive: true });
  const [command, ...wrapperArgs] = opts.wrapper ?? [process.execPath];
  const args = [...wrapperArgs, ...(opts.wrapper ? [process.execPath] : []), ...nodeArgs, 'bin/waymark.js', 'serve'];
  const child: ChildProcess = spawn(command, args, { cwd: SERVER_ROOT, env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) => child.once('exit', (code) => { exited = code; resolve(); }));
  const url = `http://127.0.0.1:${port}`;
  const api = new Api(url);
  const t0 = Date.now();
  for (;;) {
    if (exited !== undefined) throw new Error(`the server exited with ${exited} while starting:\n${tail(logFile)}`);
    try {
      const r = await api.get('/EngineServer/Workflow/GetUUID');
      if (r.status === 200) break;
      throw new Error(`GetUUID answered ${r.status}: ${r.text.slice(0, 200)}`);
    } catch (e) {
      if (Date.now() - t0 > (opts.startTimeoutMs ?? 60_000)) {
        child.kill('SIGKILL');
        throw new Error(`the server did not start within ${(opts.startTimeoutMs ?? 60_000) / 1000} s (${(e as Error).message}):\n${tail(logFile)}`);
      }
      await sleep(100);
    }
  }
  log(`server pid ${child.pid} on ${url} (${opts.databaseUrl ? `database ${opts.databaseUrl}` : `data ${dataDir}`}) started in ${Date.now() - t0} ms`);
  return {
    url,
    pid: child.pid!,
    dataDir,
    dbPath: path.join(dataDir, 'waymark.db'),
    databaseUrl: opts.databaseUrl,
    logFile,
    api,
    rssKb: () => rssKb(child.pid!),
    async stop() {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

export function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
