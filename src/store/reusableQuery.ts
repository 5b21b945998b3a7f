/**
 * Queries of a fixed shape, built and compiled by Kysely once per database handle and then run
 * with new values. The read operations' queries never change shape, only their values; building
 * and compiling them anew on every call was part of the 7 % of the server's CPU that Kysely took
 * in `bench reads` (beside the statements themselves), for text that is the same every time.
 */
import { CompiledQuery, sql, type Compilable, type Insertable, type RawBuilder, type Updateable } from 'kysely';
import type { DB } from './schema.ts';
import type { Executor } from './Store.ts';

/** Runs a compiled SELECT at once on a connection of its own (see registerDirectReader). */
export interface DirectReader {
  all(sql: string, values: readonly unknown[]): unknown[];
}

const directReaders = new WeakMap<object, DirectReader>();

/** Runs a compiled statement at once on the connection that holds the current transaction. */
export interface DirectWriter {
  /** The rows of a statement that returns rows (SELECT, RETURNING); [] for the others. */
  execute(sql: string, values: readonly unknown[]): unknown[];
  /** Runs an INSERT of one row and answers its rowid (the table's INTEGER PRIMARY KEY). */
  insertRowid(sql: string, values: readonly unknown[]): number;
}

const directWriters = new WeakMap<object, DirectWriter>();

/**
 * Inside a transaction on SQLite, the compiled statements run straight on the connection that
 * holds it instead of through Kysely's driver: the driver's path per statement (connection
 * provider, mutex, promise hops, result transform) cost more than many of the statements it ran
 * (bench statements: 70 statements per e2e instance). Only valid where the database has a single
 * connection that every transaction runs on (SQLite), which is the only place it is registered.
 */
export function registerDirectWriter(db: Executor, writer: DirectWriter): void {
  directWriters.set(db.getExecutor().adapter, writer);
}

/** Whether `db`'s database is written through one connection that runs statements directly (SQLite). */
export function hasDirectWriter(db: Executor): boolean {
  return directWriters.has(db.getExecutor().adapter);
}

/** Run a compiled text with its values: on the transaction's connection directly where possible. */
async function run<R>(db: Executor, text: string, values: readonly unknown[]): Promise<R[]> {
  const direct = db.isTransaction ? directWriters.get(db.getExecutor().adapter) : undefined;
  if (direct) return direct.execute(text, values) as R[];
  return (await db.executeQuery<R>(CompiledQuery.raw(text, values as unknown[]))).rows;
}

/**
 * A statement without values (transaction control: SAVEPOINT, RELEASE, ROLLBACK TO) on the
 * transaction's connection directly where there is one (SQLite), else through Kysely. Run as
 * `sql\`savepoint …\`.execute(trx)`, each went through Kysely's builder, compiler and driver
 * (connection provider, mutex, promise hops): ~16 thousand instructions a statement, four a group
 * commit, 66 thousand of an AssignWorkItem's ~670 thousand on the writer thread when alone in its
 * commit (docs/performance-log.md, nineteenth round).
 */
export async function runFixed(db: Executor, text: string): Promise<void> {
  await selectFixed(db, text);
}

/** As runFixed, answering the statement's rows. */
export async function selectFixed(db: Executor, text: string): Promise<unknown[]> {
  const direct = db.isTransaction ? directWriters.get(db.getExecutor().adapter) : undefined;
  if (direct) return direct.execute(text, []);
  return (await db.executeQuery(CompiledQuery.raw(text, []))).rows;
}

const preparers = new WeakMap<object, (text: string) => void>();

/**
 * `fn` is told every text compiled once for `db`, where the database can keep statements
 * prepared per connection (PostgreSQL, see pgPrepared.ts).
 */
export function registerPreparer(db: Executor, fn: (text: string) => void): void {
  preparers.set(db.getExecutor().adapter, fn);
}

function compiledOnce(adapter: object, text: string): void {
  preparers.get(adapter)?.(text);
}

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
export function reusableQuery<A extends unknown[], R>(build: (db: Executor, ...values: A) => Compilable<R>): ReusableQuery<A, R> {
  const texts = new WeakMap<object, string>();
  const query = async (db: Executor, ...values: A): Promise<R[]> => {
    const key = db.getExecutor().adapter;
    const text = texts.get(key) ?? compileFor(texts, key, build(db, ...values), values);
    const direct = db.isTransaction ? undefined : directReaders.get(key);
    if (direct) return direct.all(text, values) as R[];
    return run<R>(db, text, values);
  };
  return Object.assign(query, {
    now(db: Executor, ...values: A): R[] | undefined {
      if (db.isTransaction) return undefined;
      const key = db.getExecutor().adapter;
      const direct = directReaders.get(key);
      if (!direct) return undefined;
      const text = texts.get(key) ?? compileFor(texts, key, build(db, ...values), values);
      return direct.all(text, values) as R[];
    },
  });
}

/**
 * A read query (reusableQuery) that can also answer at once. `now` gives the rows synchronously
 * where the database is read that way (SQLite, outside a transaction: the read-only connection),
 * and undefined elsewhere (PostgreSQL, or inside a transaction), where the caller awaits the query
 * instead. The single-record reads use it to answer without a promise (engine/queries/
 * workflowQueries.ts): under `AsyncLocalStorage` every promise also runs a hook, and the promises
 * of one read were about an eighth of the instructions its request cost (docs/performance-log.md,
 * sixteenth round).
 */
export interface ReusableQuery<A extends unknown[], R> {
  (db: Executor, ...values: A): Promise<R[]>;
  now(db: Executor, ...values: A): R[] | undefined;
}

/**
 * Compiles `query` once for the database `key`, checking that it binds exactly `values`, in order.
 * Keyed by the database's adapter, which a transaction shares with the Kysely instance it came
 * from: keyed by the handle itself, every group-commit or dispatcher transaction (a new handle
 * each) compiled the query again.
 */
function compileFor(texts: WeakMap<object, string>, key: object, query: Compilable<unknown>, values: readonly unknown[]): string {
  const compiled = query.compile();
  if (compiled.parameters.length !== values.length || compiled.parameters.some((p, i) => p !== values[i])) {
    throw new Error(`reusableQuery: the parameters of "${compiled.sql}" are not the values given, in order`);
  }
  texts.set(key, compiled.sql);
  compiledOnce(key, compiled.sql);
  return compiled.sql;
}

/**
 * A LIMIT written into the statement's text instead of bound. SQLite (3.53 here) reads a bound
 * LIMIT while planning, so it prepares such a statement again every time it runs: measured on this
 * machine, a primary-key SELECT with `LIMIT ?` took 9.6 µs against 6.8 µs with `LIMIT 1`, and
 * `select * from process_instances where proc_inst_id = ? LIMIT ?` 17.2 µs against 5.9 µs; in
 * `bench e2e` re-preparing the dispatcher's batch query was 1.5 % of the writer thread (perf:
 * sqlite3Reprepare). For a whole number chosen by the code, never one from a request.
 */
export function literalLimit(n: number): RawBuilder<number> {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`literalLimit: ${n} is not a whole number of rows`);
  return sql.lit(n);
}

/** As reusableQuery, with the LIMIT (`build`'s first value) written into the text: one statement per limit. */
export function reusableQueryPerLimit<A extends unknown[], R>(
  build: (db: Executor, limit: RawBuilder<number>, ...values: A) => Compilable<R>,
): (db: Executor, limit: number, ...values: A) => Promise<R[]> {
  const byLimit = new Map<number, (db: Executor, ...values: A) => Promise<R[]>>();
  return (db, limit, ...values) => {
    let query = byLimit.get(limit);
    if (query === undefined) {
      const literal = literalLimit(limit);
      query = reusableQuery((d: Executor, ...v: A) => build(d, literal, ...v));
      byLimit.set(limit, query);
    }
    return query(db, ...values);
  };
}

/**
 * As reusableQuery, for a statement that writes (UPDATE, DELETE, INSERT ... RETURNING): it always
 * runs on the connection it is given, never on the read-only one.
 */
export function reusableStatement<A extends unknown[], R>(
  build: (db: Executor, ...values: A) => Compilable<R>,
): (db: Executor, ...values: A) => Promise<R[]> {
  const texts = new WeakMap<object, string>();
  return async (db, ...values) => {
    const key = db.getExecutor().adapter;
    return run<R>(db, texts.get(key) ?? compileFor(texts, key, build(db, ...values), values), values);
  };
}

/**
 * `UPDATE table SET <patch> WHERE keyColumn = key`, compiled once per database and set of patched
 * columns. The engine's hot updates (an event's status, a work item's, an activity's) each come in
 * a few fixed shapes; built through Kysely's builder every time, the builder and compiler
 * (`freeze`, `visitNode`, `parseUpdateObjectExpression`, `cloneWithWhere`) took about 7 % of the
 * server's CPU in `bench e2e` beside the statements themselves. A patch whose values Kysely would
 * not bind one to one (an expression, undefined) is run the ordinary way.
 */
export function reusableUpdate<T extends keyof DB & string>(table: T, keyColumn: string): (db: Executor, key: string, patch: Updateable<DB[T]>) => Promise<void> {
  const texts = new WeakMap<object, Map<string, string>>();
  return async (db, key, patch) => {
    const columns = Object.keys(patch);
    const values = [...(Object.values(patch) as unknown[]), key];
    const adapter = db.getExecutor().adapter;
    let byColumns = texts.get(adapter);
    if (!byColumns) texts.set(adapter, (byColumns = new Map()));
    const shape = columns.join(',');
    const text = byColumns.get(shape);
    if (text !== undefined && values.every(isBindable)) {
      await run(db, text, values);
      return;
    }
    // Typed as one concrete table: with the generic T, Kysely's overloads of set() do not resolve.
    // The statement is built from `table`, `patch` and `keyColumn` as given.
    const query: CompiledQuery = db
      .updateTable(table as 'events')
      .set(patch as Updateable<DB['events']>)
      .where(keyColumn as 'event_id', '=', key)
      .compile();
    if (bindsExactly(query, values)) {
      byColumns.set(shape, query.sql);
      compiledOnce(adapter, query.sql);
    }
    await db.executeQuery(query);
  };
}

function bindsExactly(query: CompiledQuery, values: unknown[]): boolean {
  return (
    query.parameters.length === values.length &&
    query.parameters.every((p, i) => p === values[i]) &&
    values.every(isBindable)
  );
}

/** A value bound as it is (an expression or undefined would change the statement's text). */
function isBindable(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
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
  const insert = reusableInsertRows(table);
  return async (db, row) => {
    await insert(db, [row]);
  };
}

/**
 * As reusableInsert, answering the new row's `rowidColumn`, the table's INTEGER PRIMARY KEY: on
 * SQLite inside a transaction from the statement's own result (INSERT ... RETURNING cost ~2.8 µs
 * more per event inserted in `bench statements`), elsewhere with RETURNING.
 */
export function reusableInsertRowid<T extends keyof DB & string, C extends keyof DB[T] & string>(
  table: T,
  rowidColumn: C,
): (db: Executor, row: Insertable<DB[T]>) => Promise<number> {
  const insert = reusableInsertRows(table, { rowid: rowidColumn });
  return async (db, row) => Number(((await insert(db, [row]))[0] as Record<string, unknown>)[rowidColumn]);
}

/**
 * A multi-row INSERT of rows that share their columns, compiled once per database, number of rows
 * and columns (audit rows in chunks of fixed sizes, pool members, participants). With
 * `ignoreConflicts`, rows that clash with an existing key are skipped (ON CONFLICT DO NOTHING).
 * Rows of different columns, or values Kysely would not bind one to one, go the ordinary way.
 */
export function reusableInsertRows<T extends keyof DB & string>(
  table: T,
  opts: { ignoreConflicts?: boolean; rowid?: string } = {},
): (db: Executor, rows: Insertable<DB[T]>[]) => Promise<unknown[]> {
  const texts = new WeakMap<object, Map<string, string>>();
  return async (db, rows) => {
    if (rows.length === 0) return [];
    const columns = Object.keys(rows[0]);
    const values: unknown[] = [];
    let uniform = true;
    for (const row of rows) {
      const keys = Object.keys(row);
      if (keys.length !== columns.length || keys.some((k, i) => k !== columns[i])) uniform = false;
      for (const v of Object.values(row)) values.push(v);
    }
    const adapter = db.getExecutor().adapter;
    let byShape = texts.get(adapter);
    if (!byShape) texts.set(adapter, (byShape = new Map()));
    const bindable = values.every(isBindable);
    // The rowid asked for: from the statement's result on the transaction's connection (one row,
    // values bound as they are), else with RETURNING.
    const direct = opts.rowid !== undefined && rows.length === 1 && uniform && bindable && db.isTransaction ? directWriters.get(adapter) : undefined;
    const returning = direct ? undefined : opts.rowid;
    const shape = `${rows.length}:${returning ?? ''}:${columns.join(',')}`;
    let text = uniform ? byShape.get(shape) : undefined;
    if (text === undefined || !bindable) {
      const insert = db.insertInto(table).values(rows as never);
      const guarded = opts.ignoreConflicts ? insert.onConflict((oc) => oc.doNothing()) : insert;
      const query: CompiledQuery = (returning ? guarded.returning(returning as never) : guarded).compile();
      if (!uniform || !bindsExactly(query, values)) return (await db.executeQuery(query)).rows;
      text = query.sql;
      byShape.set(shape, text);
      compiledOnce(adapter, text);
    }
    if (direct) return [{ [opts.rowid as string]: direct.insertRowid(text, values) }];
    return run(db, text, values);
  };
}

/**
 * `rows` in the chunks a multi-row INSERT takes them in: 64 rows, then 16, then the rest (fewer
 * than 16) in one. Few statement texts (64, 16 and 1-15 rows), each prepared once; one statement
 * of all the rows would have a new text for every count, and preparing a statement of a few
 * thousand parameters each time took 2.8 % of the server's CPU in `bench e2e`. (The rest went in
 * chunks of 4 and 1 until the twentieth round: a CompleteWorkItem's two audit rows were two
 * statements.)
 */
export function insertChunks<T>(rows: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let i = 0;
  for (const size of [64, 16]) for (; rows.length - i >= size; i += size) chunks.push(rows.slice(i, i + size));
  if (i < rows.length) chunks.push(rows.slice(i));
  return chunks;
}
