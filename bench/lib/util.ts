/** Small helpers shared by the benchmark: paths, credentials, ports, temp dirs, formatting. */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const BENCH_DIR = path.resolve(import.meta.dirname, '..');
export const ROOT = path.resolve(BENCH_DIR, '..');
export const FIXTURES = path.join(BENCH_DIR, 'fixtures');
export const RESULTS = path.join(BENCH_DIR, 'results');

export const ADMIN = 'LOCAL\\admin';
export const ADMIN_PASSWORD = 'bench-admin-password-1';

/** `Basic base64(user:password)`. */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh directory under the system temp dir (the same disk the server writes to). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `waymark-bench-${prefix}-`));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

/** 12345.6 -> "12,346"; small numbers keep a decimal. */
export function fmt(n: number | null | undefined, digits?: number): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '-';
  const d = digits ?? (Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
  return n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

export function log(...args: unknown[]): void {
  const t = new Date().toISOString().slice(11, 19);
  console.error(`[${t}]`, ...args);
}

/** Resident set size (kB) of a process, from /proc/<pid>/status. */
export function rssKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) : NaN;
}

/** What the figures were measured on. */
export function machine(): Record<string, unknown> {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    nproc: os.availableParallelism(),
    cpuModel: model,
    memTotalGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** How busy the machine is (other people's tests share these 2 cores): load average and CPU pressure. */
export function busyness(): { load1: number; cpuSomeAvg10: number | null; cpuSomeAvg60: number | null } {
  let avg10: number | null = null;
  let avg60: number | null = null;
  try {
    const p = fs.readFileSync('/proc/pressure/cpu', 'utf8');
    const m = /^some avg10=([\d.]+) avg60=([\d.]+)/m.exec(p);
    if (m) {
      avg10 = Number(m[1]);
      avg60 = Number(m[2]);
    }
  } catch {}
  return { load1: Math.round(os.loadavg()[0] * 100) / 100, cpuSomeAvg10: avg10, cpuSomeAvg60: avg60 };
}
