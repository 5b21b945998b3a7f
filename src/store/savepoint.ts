/**
 * Run `fn` inside a savepoint of `trx`: if it throws, only its own writes are rolled back and the
 * surrounding transaction goes on (on PostgreSQL this also clears the aborted state).
 */
import type { Transaction } from 'kysely';
import { runFixed, selectFixed } from './reusableQuery.ts';
import type { DB } from './schema.ts';
import { endHeldSavepoint, forgetNewInstances, forgetPredrawnSeqs, heldEventChanges, markHeldEvents } from './queries/transactionEvents.ts';
import { forgetKeptRows } from './transactionRows.ts';
import { forgetWrittenActivities } from './queries/activities.ts';

export type Isolated<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function inSavepoint<T>(trx: Transaction<DB>, fn: () => Promise<T>): Promise<Isolated<T>> {
  await runFixed(trx, 'savepoint waymark_sp');
  const held = markHeldEvents(trx);
  try {
    const value = await fn();
    await runFixed(trx, 'release savepoint waymark_sp');
    endHeldSavepoint(trx, held, false);
    return { ok: true, value };
  } catch (error) {
    // Rows kept (transactionRows.ts) may hold writes that the rollback undoes; events held in
    // memory go back to what they were when the savepoint began.
    forgetKeptRows(trx);
    forgetWrittenActivities(trx);
    forgetNewInstances(trx);
    forgetPredrawnSeqs(trx);
    endHeldSavepoint(trx, held, true);
    try {
      await runFixed(trx, 'rollback to savepoint waymark_sp');
      await runFixed(trx, 'release savepoint waymark_sp');
    } catch {
      // SQLite ended the whole transaction itself (SQLITE_FULL, SQLITE_IOERR): there is nothing
      // to go on with; fail with the real cause, not with "no such savepoint".
      throw error;
    }
    return { ok: false, error };
  }
}

/**
 * Run `fn`, whose only write is its last statement (one INSERT or UPDATE), without a savepoint:
 * the two statements a savepoint costs (`savepoint`, `release`) were a third of an admission's
 * six (AssignWorkItem: three reads, the event's insert). Only for a database whose failed
 * statement undoes itself alone (`caps.statementRollback`, SQLite):
 * - an error thrown before the write that is not a database error (a business rule) leaves
 *   nothing to undo;
 * - a constraint error of the write itself (SQLITE_CONSTRAINT_*, conflict resolution ABORT) was
 *   undone by SQLite, the transaction goes on;
 * - any other database error (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, ...) may have ended the whole
 *   transaction (SQLite's own advice is to roll it back): it is thrown, as inSavepoint does when the
 *   transaction is gone, and the surrounding batch fails as a whole.
 */
export async function withoutSavepoint<T>(fn: () => Promise<T>): Promise<Isolated<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (mayHaveEndedTransaction(error)) throw error;
    return { ok: false, error };
  }
}

/**
 * Writes of `trx` so far: the rows its connection has inserted, updated or deleted (SQLite's
 * total_changes(): one cheap statement, which counts only changes that held, not a statement that
 * failed) and the changes to the events it holds in memory (transactionEvents.ts). Equal before
 * and after a job that failed: the job wrote nothing, so nothing of it needs undoing.
 */
export async function changesSoFar(trx: Transaction<DB>): Promise<number> {
  const [row] = (await selectFixed(trx, 'select total_changes() as c')) as { c: number }[];
  return row.c + heldEventChanges(trx);
}

function mayHaveEndedTransaction(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
  return code.startsWith('SQLITE_') && !code.startsWith('SQLITE_CONSTRAINT');
}
