/**
 * Rows kept for the rest of one transaction, where nothing but that transaction can change them:
 * on a database written through a single connection (SQLite, registerDirectWriter), inside a
 * transaction, a row read or written once is the row as it stands until the transaction ends,
 * provided every write to its table goes through the code that keeps it up to date (see
 * queries/instances.ts). A savepoint rolled back drops every row kept for its transaction
 * (savepoint.ts), as does the end of the transaction (the map is keyed by the transaction's handle).
 *
 * Why: on the writer thread a group commit admits events and then applies them in the same
 * transaction (Dispatcher.inlineTail), and the application read again the instance row that the
 * admission had just read or inserted: one statement per event, three per instance in `bench e2e`.
 */
import { hasDirectWriter } from './reusableQuery.ts';
import type { Executor } from './Store.ts';

const kept = new WeakMap<object, Map<string, Map<string, Record<string, unknown>>>>();

/** The rows of `table` kept for the transaction `db`, or undefined where rows are not kept. */
export function keptRows<T extends object>(db: Executor, table: string): Map<string, T> | undefined {
  if (!db.isTransaction || !hasDirectWriter(db)) return undefined;
  let tables = kept.get(db);
  if (!tables) kept.set(db, (tables = new Map()));
  let rows = tables.get(table);
  if (!rows) tables.set(table, (rows = new Map()));
  return rows as unknown as Map<string, T>;
}

/**
 * The row `id` of `kept` as a copy, or else the first row `read` answers, kept (a copy) when rows
 * are kept: the find functions of the kept tables (instances, work items, activities).
 */
export async function keptOrRead<T extends object>(kept: Map<string, T> | undefined, id: string, read: () => Promise<T[]>): Promise<T | undefined> {
  const hit = kept?.get(id);
  if (hit) return { ...hit };
  const row = (await read())[0];
  if (row && kept) kept.set(id, { ...row });
  return row;
}

/** Forget every row kept for the transaction `db` (a savepoint of it was rolled back). */
export function forgetKeptRows(db: Executor): void {
  kept.delete(db);
}
