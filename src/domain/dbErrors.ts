/**
 * The one table of database errors that are not bugs (STYLE.md: transient errors are classified in
 * one place). `transient`: retrying soon will likely work (a lock, a deadlock, a dropped
 * connection). `unavailable`: the database cannot serve now (also disk full, read-only): the API
 * answers 503 with Retry-After.
 */

/** SQLite result codes (better-sqlite3 `code`, extended codes start with these). */
const SQLITE_TRANSIENT = ['SQLITE_BUSY', 'SQLITE_LOCKED'];
const SQLITE_UNAVAILABLE = ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PROTOCOL'];

/** PostgreSQL SQLSTATEs and node socket errors. */
const PG_TRANSIENT = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000', '08001', '08003', '08004', '08006', // connection exceptions
  '53300', // too_many_connections
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT',
]);
const PG_UNAVAILABLE = new Set(['53100', '53200', '25006']); // disk_full, out_of_memory, read_only_sql_transaction

function codeOf(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : '';
}

export function isTransientDbError(e: unknown): boolean {
  const code = codeOf(e);
  if (SQLITE_TRANSIENT.some((c) => code.startsWith(c))) return true;
  if (PG_TRANSIENT.has(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(messageOf(e));
}

export function isUnavailableDbError(e: unknown): boolean {
  const code = codeOf(e);
  return isTransientDbError(e) || SQLITE_UNAVAILABLE.some((c) => code.startsWith(c)) || PG_UNAVAILABLE.has(code);
}

/** Unique-constraint violations: a race two admissions lost, reported as a conflict, not a bug. */
export function isUniqueViolation(e: unknown): boolean {
  const code = codeOf(e);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
