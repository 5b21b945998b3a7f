/**
 * What differs between the databases Waymark runs on, as capability values.
 * Engine code never asks which database it is on; store code asks these flags.
 */
import type { Executor } from './Store.ts';

export interface DialectCaps {
  name: 'sqlite' | 'postgres';
  /** Column type of an auto-incrementing integer primary key. */
  serialType: 'integer' | 'bigserial';
  /** Column type for millisecond timestamps. */
  timeType: 'integer' | 'bigint';
  /** Several server processes may share the database (claims must be leased, caches re-checked). */
  sharedByNodes: boolean;
  /** `SELECT ... FOR UPDATE [SKIP LOCKED]` exists (else the single writer serialises everything). */
  rowLocks: boolean;
  /**
   * A statement that fails (a constraint) undoes only itself and the transaction goes on (SQLite).
   * PostgreSQL aborts the whole transaction instead, so there a job must run in a savepoint to
   * survive its own failure.
   */
  statementRollback: boolean;
}

export const SQLITE_CAPS: DialectCaps = { name: 'sqlite', serialType: 'integer', timeType: 'integer', sharedByNodes: false, rowLocks: false, statementRollback: true };
export const POSTGRES_CAPS: DialectCaps = { name: 'postgres', serialType: 'bigserial', timeType: 'bigint', sharedByNodes: true, rowLocks: true, statementRollback: false };

const capsByDatabase = new WeakMap<object, DialectCaps>();

/** The Store records its database's capabilities, for query functions that get only a handle. */
export function registerCaps(db: Executor, caps: DialectCaps): void {
  capsByDatabase.set(db.getExecutor().adapter, caps);
}

/** The capabilities of the database behind `db` (a transaction shares its database's). */
export function capsOf(db: Executor): DialectCaps | undefined {
  return capsByDatabase.get(db.getExecutor().adapter);
}
