/**
 * `waymark backup FILE [--force]` and `waymark restore FILE` (docs/operations.md). Backup works
 * while a server runs; restore refuses while a server uses the database.
 */
import type { Config } from '../config.ts';
import { BackupError, backupDatabase, restoreDatabase } from '../store/backup.ts';
import { liveServer, serverLockPath } from '../store/serverLock.ts';

export { BackupError };

export async function backupCommand(config: Config, args: string[], say: (text: string) => void): Promise<void> {
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) throw new BackupError('backup needs a file: waymark backup FILE [--force]');
  requireSqlite(config, 'backup');
  const result = await backupDatabase(config.sqlitePath, file, args.includes('--force'));
  say(`Backed up ${config.sqlitePath} to ${result.file} (${result.pages} pages, ${result.bytes} bytes; integrity ok).`);
}

export async function restoreCommand(config: Config, args: string[], say: (text: string) => void): Promise<void> {
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) throw new BackupError('restore needs a backup file: waymark restore FILE');
  requireSqlite(config, 'restore');
  const server = liveServer(config.sqlitePath);
  if (server) {
    throw new BackupError(
      `a Waymark server (pid ${server.pid} on ${server.hostname}, ${server.url}) is using ${config.sqlitePath}; stop it first` +
        ` (if it is gone, delete ${serverLockPath(config.sqlitePath)}).`,
    );
  }
  const result = await restoreDatabase(file, config.sqlitePath);
  say(`Restored ${config.sqlitePath} from ${file} (schema ${result.migrations.join(', ')}).`);
  if (result.previous) say(`The database it replaced is kept as ${result.previous}.`);
}

function requireSqlite(config: Config, what: string): void {
  if (config.postgresUrl) {
    throw new BackupError(`${what} works on the SQLite database; for PostgreSQL use pg_dump / pg_restore (docs/operations.md).`);
  }
}
