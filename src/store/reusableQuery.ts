/**
 * Queries of a fixed shape, built and compiled by Kysely once per database handle and then run
 * with new values. The read operations' queries never change shape, only their values; building
 * and compiling them anew on every call was part of the 7 % of the server's CPU that Kysely took
 * in `bench reads` (beside the statements themselves), for text that is the same every time.
 */
import { CompiledQuery, type Compilable, type Insertable } from 'kysely';
import type { DB } from './schema.ts';
import type { Executor } from './Store.ts';

/** Runs a compiled SELECT at once on a connection of its own (see registerDirectReader). */
export interface DirectReader {
  all(sql: string, values: readonly unknown[]): unknown[];
}

const directReaders = new WeakMap<object, DirectReader>();

/**
 * Reads outside any transaction run on `reader`, synchronously, instead of through Kysely's
 * driver: on SQLite the driver queues every statement behind one connection's mutex (a read
 * waited for a whole group-commit or dispatcher transaction) and adds several promise hops per
 * statement. The reader is a second, read-only connection to the same WAL file: it sees every
 * committed change and none of a transaction still open on the writing connection.
 */
export function registerDirectReader(db: Executor, reader: DirectReader): void {
  directReaders.set(db.getExecutor().adapter, reader);
}

/**
 * `build` must turn exactly its `values`, in order, into the query's parameters (checked on the
 * first call: a query that inlines a value or binds a constant is refused). The compiled text is
 * kept per database (its Kysely adapter), so SQLite and PostgreSQL each get their own.
 */
export function reusableQuery<A extends unknown[], R>(
  build: (db: Executor, ...values: A) => Compilable<R>,
): (db: Executor, ...values: A) => Promise<R[]> {
  // Keyed by the database's adapter, which a transaction shares with the Kysely instance it came
  // from: keyed by the handle itself, every group-commit or dispatcher transaction (a new handle
  // each) compiled the query again.
  const texts = new WeakMap<object, string>();
  return async (db, ...values) => {
    const key = db.getExecutor().adapter;
    let text = texts.get(key);
    if (text === undefined) {
      const query = build(db, ...values).compile();
      if (query.parameters.length !== values.length || query.parameters.some((p, i) => p !== values[i])) {
        throw new Error(`reusableQuery: the parameters of "${query.sql}" are not the values given, in order`);
      }
      text = query.sql;
      texts.set(key, text);
    }
    const direct = db.isTransaction ? undefined : directReaders.get(key);
    if (direct) return direct.all(text, values) as R[];
    return (await db.executeQuery<R>(CompiledQuery.raw(text, values))).rows;
  };
}

/**
 * A one-row INSERT into `table`, compiled once per database and set of columns, then run with the
 * row's values. The engine inserts events, activity instances and work items with the same
 * columns every time; building each INSERT through Kysely's builder (`parseRowValues`, `freeze`,
 * the compiler's visitor) showed at 4 % (`insertEvent`) and 3.4 % (`insertActivity`) inclusive of
 * the server's CPU in `bench e2e`. A row whose values Kysely would not bind one to one (an
 * expression, undefined) is inserted the ordinary way.
 */
export function reusableInsert<T extends keyof DB & string>(table: T): (db: Executor, row: Insertable<DB[T]>) => Promise<void> {
  const texts = new WeakMap<object, Map<string, string>>();
  return async (db, row) => {
    const columns = Object.keys(row);
    const values = Object.values(row) as unknown[];
    const byColumns = texts.get(db.getExecutor().adapter) ?? new Map<string, string>();
    texts.set(db.getExecutor().adapter, byColumns);
    const key = columns.join(',');
    const text = byColumns.get(key);
    if (text !== undefined) {
      await db.executeQuery(CompiledQuery.raw(text, values));
      return;
    }
    const query: CompiledQuery = db.insertInto(table).values(row as never).compile();
    const bindsEachValue = query.parameters.length === values.length && query.parameters.every((p, i) => p === values[i]);
    if (bindsEachValue && values.every((v) => v === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof v))) byColumns.set(key, query.sql);
    await db.executeQuery(query);
  };
}
