/**
 * A throwaway PostgreSQL cluster from the installed server binaries, on a free loopback port, for
 * tests and benchmarks. As root it runs the server as the unprivileged `postgres` user.
 * Nothing is downloaded: it uses what the machine has (/usr/lib/postgresql/<version>/bin).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PgCluster {
  url: string;
  /** The directory of the server's Unix socket (`.s.PGSQL.<port>`). */
  socketDir: string;
  port: number;
  /** Stop the server process, keeping its data (a database outage). */
  pause(): void;
  /** Start it again on the same port. */
  resume(): void;
  /** Stop it and delete its data. */
  stop(): void;
  /**
   * Stop it without a shutdown checkpoint (`pg_ctl -m immediate`) and delete its data: for
   * throwaway clusters whose data nobody needs (a clean stop can spend seconds flushing buffers).
   */
  discard(): void;
  /** The postmaster's process id while the server runs (its backends are its children), else null. */
  postmasterPid(): number | null;
}

export interface PgClusterOptions {
  /**
   * Server settings beyond the fixed ones, each passed as `-c name=value` (the bench preloads
   * pg_stat_statements with it). Names and values are the code's own, never a request's.
   */
  settings?: Record<string, string>;
}

export function findPgBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : null;
}

export async function startPgCluster(bin: string, options: PgClusterOptions = {}): Promise<PgCluster> {
  // Checked before anything is made: pg_ctl passes these through a shell-like split.
  const extra = Object.entries(options.settings ?? {}).map(([name, value]) => {
    if (!/^[a-z_.]+$/.test(name) || !/^[\w.,-]+$/.test(value)) throw new Error(`startPgCluster: setting ${name}=${value} is not a plain name and value`);
    return ` -c ${name}=${value}`;
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  };
  if (asRoot) {
    fs.chmodSync(dir, 0o755);
    fs.mkdirSync(data, { mode: 0o700 });
    execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  }
  run('initdb', ['-D', data, '-U', 'waymark', '--auth=trust', '--encoding=UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c max_connections=200 -c fsync=on${extra.join('')}`;
  const start = () => run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const halt = (mode: 'fast' | 'immediate' = 'fast') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  /**
   * Stop it if it still runs, then delete it. A server found already gone (no postmaster.pid) is
   * reported with the end of its log instead of throwing: thrown from a test's `finally`, that
   * error would hide the test's own.
   */
  const finish = (mode: 'fast' | 'immediate') => {
    try {
      if (fs.existsSync(path.join(data, 'postmaster.pid'))) halt(mode);
      else process.stderr.write(`# PostgreSQL cluster in ${dir} was no longer running; the end of its log:\n${logTail(path.join(dir, 'server.log'))}\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  start();
  return {
    url: `postgres://waymark@127.0.0.1:${port}/postgres`,
    socketDir: dir,
    port,
    pause: () => halt(),
    resume: start,
    stop: () => finish('fast'),
    discard: () => finish('immediate'),
    postmasterPid: () => {
      try {
        // postmaster.pid's first line is the postmaster's process id.
        const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
      } catch {
        return null;
      }
    },
  };
}

function logTail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).map((l) => `#   ${l}`).join('\n');
  } catch (e) {
    return `#   (no log: ${(e as Error).message})`;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

// `node --import tsx scripts/pg-cluster.ts` starts one and prints its URL until interrupted.
if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = findPgBin();
  if (!bin) throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql.');
  const cluster = await startPgCluster(bin);
  process.stdout.write(`${cluster.url}\n`);
  const stop = () => {
    cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => {}, 1 << 30);
}
