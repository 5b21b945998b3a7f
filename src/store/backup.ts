/**
 * Online backup and restore of the SQLite database (docs/operations.md). Backup uses SQLite's
 * online backup API, so it is consistent while a server keeps writing. Both write to a temporary
 * file first and rename it into place, so a crash never leaves half a file under the final name.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { KNOWN_MIGRATIONS } from './migrations/index.ts';
import { SchemaTooNewError } from './Store.ts';

export class BackupError extends Error {}

export interface BackupResult {
  file: string;
  pages: number;
  bytes: number;
}

/** Copy the live database at `source` to `dest` (refused when `dest` exists, unless `overwrite`). */
export async function backupDatabase(source: string, dest: string, overwrite = false): Promise<BackupResult> {
  const target = path.resolve(dest);
  if (path.resolve(source) === target) throw new BackupError('the backup file must not be the database itself.');
  if (!fs.existsSync(source)) throw new BackupError(`there is no database at ${source}.`);
  if (fs.existsSync(target) && !overwrite) throw new BackupError(`${target} exists; choose another file or pass --force.`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  const db = new SQLite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const { totalPages } = await db.backup(partial);
    checkWaymarkDatabase(partial);
    fs.renameSync(partial, target);
    return { file: target, pages: totalPages, bytes: fs.statSync(target).size };
  } catch (e) {
    fs.rmSync(partial, { force: true });
    throw e;
  } finally {
    db.close();
  }
}

export interface RestoreResult {
  /** The database as it was before the restore, kept beside it (null when there was none). */
  previous: string | null;
  migrations: string[];
}

/**
 * Replace the database at `target` with the backup `file`. The caller makes sure no server uses
 * `target` (see serverLock.ts); this also refuses while any connection holds a lock on it.
 */
export async function restoreDatabase(file: string, target: string, now = new Date()): Promise<RestoreResult> {
  if (!fs.existsSync(file)) throw new BackupError(`there is no backup at ${file}.`);
  const migrations = checkWaymarkDatabase(file);
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let previous: string | null = null;
  if (fs.existsSync(target)) {
    previous = `${target}.before-restore-${stamp}`;
    const current = new SQLite(target, { fileMustExist: true, timeout: 200 });
    try {
      try {
        // Nobody may be writing or reading in a transaction right now.
        current.exec('BEGIN EXCLUSIVE');
        current.exec('COMMIT');
      } catch {
        throw new BackupError(`${target} is in use by another process; stop it before restoring.`);
      }
      await current.backup(previous);
    } finally {
      current.close();
    }
  }
  fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  const partial = `${target}.restore-${process.pid}`;
  const source = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    await source.backup(partial);
  } finally {
    source.close();
  }
  // Closing the last connection checkpointed and removed the old WAL; a leftover one (a crash)
  // belongs to the replaced database and must not be replayed onto the restored one.
  for (const suffix of ['-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
  fs.renameSync(partial, target);
  return { previous, migrations };
}

/** Integrity check and schema version of a Waymark SQLite file; returns its migrations. */
export function checkWaymarkDatabase(file: string): string[] {
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch {
    throw new BackupError(`${file} cannot be opened as an SQLite database.`);
  }
  try {
    let integrity: string;
    try {
      integrity = String(db.pragma('integrity_check', { simple: true }));
    } catch {
      throw new BackupError(`${file} is not an SQLite database.`);
    }
    if (integrity !== 'ok') throw new BackupError(`${file} is damaged: ${integrity.slice(0, 200)}`);
    const table = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!table) throw new BackupError(`${file} is not a Waymark database (it has no migration table).`);
    const names = (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name);
    const unknown = names.filter((n) => !KNOWN_MIGRATIONS.includes(n));
    if (unknown.length > 0) throw new SchemaTooNewError(`${file} has a newer schema than this Waymark (unknown migrations: ${unknown.join(', ')}); upgrade Waymark first.`);
    return names;
  } finally {
    db.close();
  }
}
