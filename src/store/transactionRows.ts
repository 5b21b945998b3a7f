/**
 * Rows kept in memory by the single SQLite writer, from one transaction to the next, while nothing
 * but that connection's own transactions can have changed them: on a database written through a
 * single connection (SQLite, registerDirectWriter), a row read or written once inside a
 * transaction is the row as it stands, provided every write to its table goes through the code
 * that keeps it up to date (see queries/instances.ts, workItems.ts, activities.ts).
 *
 * Kept rows are forgotten, all of them at once:
 * - when a savepoint is rolled back (savepoint.ts), or a transaction (Store.transaction);
 * - when a transaction begins and another connection has committed since the last one ended (a
 *   new `data_version`: the request thread's writing connection, the `waymark` CLI), or this
 *   connection changed rows outside the transactions that keep them (a new `total_changes()`);
 * - when a transaction begins and more than MAX_KEPT rows are kept (memory stays bounded).
 * Outside a transaction that Store.transaction opened (openKeptRows), nothing is kept or answered.
 *
 * Why: on the writer thread a group commit admits events and then applies them in the same
 * transaction (Dispatcher.inlineTail), and the application read again the instance row that the
 * admission had just read or inserted: one statement per event, three per instance in `bench e2e`.
 * Kept per transaction, CompleteWorkItem still read the task's activity row and the visits of the
 * end event that CreateProcInst had written in an earlier commit (docs/performance-log.md,
 * twenty-sixth round): those now come from memory too.
 */
import { hasDirectWriter, selectFixed } from './reusableQuery.ts';
import type { Executor } from './Store.ts';

/** Rows kept at most, over every table, before a transaction begins: about 10 MB of rows. */
export const MAX_KEPT = 20_000;

interface ConnectionRows {
  /** The transaction that keeps and answers rows now (opened by openKeptRows); null between transactions. */
  current: object | null;
  tables: Map<string, Map<string, unknown>>;
  /** total_changes() when the last transaction ended, -1 when nothing kept is vouched for. */
  changes: number;
  /** data_version as the last transaction saw it. */
  version: number;
}

const byConnection = new WeakMap<object, ConnectionRows>();

/** One statement: the connection's own changes so far, and the database's version as this snapshot sees it. */
const PROBE = 'select total_changes() as c, (select data_version from pragma_data_version) as v';
const CHANGES = 'select total_changes() as c';

function stateOf(db: Executor): ConnectionRows | undefined {
  return byConnection.get(db.getExecutor().adapter);
}

/**
 * A transaction of Store.transaction began on `trx`: where rows are kept (SQLite's direct writer),
 * the rows kept so far are vouched for if nothing else wrote since the last transaction ended, and
 * forgotten otherwise.
 */
export async function openKeptRows(trx: Executor): Promise<void> {
  if (!trx.isTransaction || !hasDirectWriter(trx)) return;
  const adapter = trx.getExecutor().adapter;
  let state = byConnection.get(adapter);
  if (!state) byConnection.set(adapter, (state = { current: null, tables: new Map(), changes: -1, version: -1 }));
  const [probe] = (await selectFixed(trx, PROBE)) as { c: number; v: number }[];
  if (probe.c !== state.changes || probe.v !== state.version || keptCount(state) > MAX_KEPT) state.tables.clear();
  state.version = probe.v;
  state.changes = -1;
  state.current = trx;
}

/** The last statement of `trx` before its COMMIT has run: what it kept stays for the next transaction. */
export async function closeKeptRows(trx: Executor): Promise<void> {
  const state = stateOf(trx);
  if (!state || state.current !== trx) return;
  const [row] = (await selectFixed(trx, CHANGES)) as { c: number }[];
  state.changes = row.c;
  state.current = null;
}

function keptCount(state: ConnectionRows): number {
  let n = 0;
  for (const rows of state.tables.values()) n += rows.size;
  return n;
}

/** The rows of `table` kept on the connection of the transaction `db`, or undefined where rows are not kept. */
export function keptRows<T extends object>(db: Executor, table: string): Map<string, T> | undefined {
  if (!db.isTransaction) return undefined;
  const state = stateOf(db);
  if (!state || state.current !== db) return undefined;
  let rows = state.tables.get(table);
  if (!rows) state.tables.set(table, (rows = new Map()));
  return rows as Map<string, T>;
}

/**
 * The row `id` of `kept` as a copy, or else the first row `read` answers, kept (a copy) when rows
 * are kept and `keep` allows it: the find functions of the kept tables (instances, work items,
 * activities).
 */
export async function keptOrRead<T extends object>(
  kept: Map<string, T> | undefined,
  id: string,
  read: () => Promise<T[]>,
  keep: (row: T) => boolean = () => true,
): Promise<T | undefined> {
  const hit = kept?.get(id);
  if (hit) return { ...hit };
  const row = (await read())[0];
  if (row && kept && keep(row)) kept.set(id, { ...row });
  return row;
}

/**
 * Forget every row kept on the connection of `db` (a savepoint of its transaction, or the
 * transaction itself, was rolled back); the transaction goes on keeping rows from here.
 */
export function forgetKeptRows(db: Executor): void {
  const state = stateOf(db);
  if (!state) return;
  state.tables.clear();
  state.changes = -1;
}

/** The transaction of `db` failed: nothing kept is vouched for, and none is kept until the next one opens. */
export function abandonKeptRows(db: Executor): void {
  const state = stateOf(db);
  if (!state) return;
  forgetKeptRows(db);
  state.current = null;
}
