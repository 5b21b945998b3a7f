/**
 * Run `fn` inside a savepoint of `trx`: if it throws, only its own writes are rolled back and the
 * surrounding transaction goes on (on PostgreSQL this also clears the aborted state).
 */
import { sql, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

export type Isolated<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function inSavepoint<T>(trx: Transaction<DB>, fn: () => Promise<T>): Promise<Isolated<T>> {
  await sql`savepoint waymark_sp`.execute(trx);
  try {
    const value = await fn();
    await sql`release savepoint waymark_sp`.execute(trx);
    return { ok: true, value };
  } catch (error) {
    try {
      await sql`rollback to savepoint waymark_sp`.execute(trx);
      await sql`release savepoint waymark_sp`.execute(trx);
    } catch {
      // SQLite ended the whole transaction itself (SQLITE_FULL, SQLITE_IOERR): there is nothing
      // to go on with; fail with the real cause, not with "no such savepoint".
      throw error;
    }
    return { ok: false, error };
  }
}
