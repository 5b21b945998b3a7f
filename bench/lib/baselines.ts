/**
 * Baselines (2) and (3):
 * - raw better-sqlite3 single-row durable commits (WAL, synchronous FULL) on the same disk as the
 *   server's data directory: one INSERT per transaction, as fast as the disk allows;
 * - the bpmn-engine package running the same BPMN in-process with no persistence, in a child
 *   process of its own (bpmnEngineWorker.ts).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { fixture, removeDir, tempDir } from './util.ts';

export interface RawCommitResult {
  commitsPerSec: number;
  commits: number;
  seconds: number;
  rowBytes: number;
  /** How long one commit took (its fsync included), in ms: the disk's own tail. */
  commitMs: { p50: number; p99: number; max: number };
}

export function rawSqliteCommits(seconds = 3): RawCommitResult {
  const dir = tempDir('rawsqlite');
  try {
    const db = new SQLite(path.join(dir, 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('create table events (seq integer primary key autoincrement, event_id text not null unique, status text not null, body text not null)');
    const insert = db.prepare('insert into events (event_id, status, body) values (?, ?, ?)');
    const body = 'x'.repeat(600); // about the size of a WFEvent row
    let n = 0;
    const durations: number[] = [];
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    for (let now = t0; now < end; n++) {
      insert.run(`${Date.now().toString(16).toUpperCase().padStart(12, '0')}${String(n).padStart(20, '0')}`, 'Sent', body);
      const after = performance.now();
      durations.push(after - now);
      now = after;
    }
    const s = (performance.now() - t0) / 1000;
    db.close();
    durations.sort((a, b) => a - b);
    const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? 0;
    return { commitsPerSec: n / s, commits: n, seconds: s, rowBytes: body.length + 40, commitMs: { p50: at(0.5), p99: at(0.99), max: durations[durations.length - 1] ?? 0 } };
  } finally {
    removeDir(dir);
  }
}

export interface BpmnEngineResult {
  instancesPerSec: number;
  completed: number;
  seconds: number;
  concurrency: number;
  version: string;
  /** Its process's CPU (user + system, every thread) per completed instance, µs. */
  cpuUsPerInstance: number;
  /** That CPU over the window's wall time: how many cores it kept busy. */
  cores: number;
}

/** Completed instances per second of `file` in bpmn-engine, each user task signalled at once. */
export function bpmnEngineRate(file: string, seconds = 5, concurrency = 50): Promise<BpmnEngineResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'bpmnEngineWorker.ts'), String(seconds), String(concurrency)],
      { env: { ...process.env, BENCH_BPMN: fixture(file) }, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`bpmn-engine baseline failed: ${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop()!));
      },
    );
  });
}
