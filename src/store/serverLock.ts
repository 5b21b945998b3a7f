/**
 * `<database>.server.json`: written by a listening server, removed when it stops. Restore reads
 * it to refuse replacing a database a live server uses. A file left by a server that crashed names
 * a process that no longer exists and is ignored.
 */
import fs from 'node:fs';
import os from 'node:os';

export interface ServerLockInfo {
  pid: number;
  hostname: string;
  url: string;
  startedAt: string;
}

export function serverLockPath(sqlitePath: string): string {
  return `${sqlitePath}.server.json`;
}

/** Record that this process serves the database; returns a function that removes the record. */
export function claimServerLock(sqlitePath: string, url: string): () => void {
  const file = serverLockPath(sqlitePath);
  const info: ServerLockInfo = { pid: process.pid, hostname: os.hostname(), url, startedAt: new Date().toISOString() };
  fs.writeFileSync(file, `${JSON.stringify(info)}\n`, { mode: 0o644 });
  return () => {
    try {
      const current = JSON.parse(fs.readFileSync(file, 'utf8')) as ServerLockInfo;
      if (current.pid === process.pid) fs.rmSync(file, { force: true });
    } catch {
      // Already gone or replaced: nothing of ours to remove.
    }
  };
}

/** The live server using the database, or null (no record, or its process is gone). */
export function liveServer(sqlitePath: string): ServerLockInfo | null {
  let info: ServerLockInfo;
  try {
    info = JSON.parse(fs.readFileSync(serverLockPath(sqlitePath), 'utf8')) as ServerLockInfo;
  } catch {
    return null;
  }
  if (typeof info.pid !== 'number') return null;
  // Another machine's process cannot be checked from here: assume it is alive.
  if (info.hostname !== os.hostname()) return info;
  try {
    process.kill(info.pid, 0);
    return info;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? info : null;
  }
}
