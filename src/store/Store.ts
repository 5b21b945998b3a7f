/**
 * The store: one Kysely instance over the configured database (an SQLite file by default, or
 * PostgreSQL), migrations, transactions, group commit, row locks and cross-node notifications.
 * The only place (with src/store/queries) that knows SQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { DB } from './schema.ts';
import { WaymarkError } from '../domain/errors.ts';
import { POSTGRES_CAPS, SQLITE_CAPS, registerCaps, type DialectCaps } from './dialect.ts';
import { findInstance, lockAndFindInstance, type InstanceRow } from './queries/instances.ts';
import { KNOWN_MIGRATIONS, migrationsFor } from './migrations/index.ts';
import { GroupCommitter, type GroupCommitTail, type JobOptions } from './GroupCommitter.ts';
import { LocalNotifier, PgNotifier, type Listener, type Notifier } from './Notifier.ts';
import { PreparedTexts } from './pgPrepared.ts';
import { registerDirectReader, registerDirectWriter, registerPreparer, type DirectWriter } from './reusableQuery.ts';
import { flushHeldEvents, startHolding } from './queries/transactionEvents.ts';
import { abandonKeptRows, closeKeptRows, openKeptRows } from './transactionRows.ts';
import { rawRunner, type RowsRunner } from './rawRows.ts';
import { cachingDatabase } from './StatementCache.ts';
import { ThreadWriteLock, type LockSide } from './threadWriteLock.ts';
import { TurnSnapshot } from './turnSnapshot.ts';

export type Executor = Kysely<DB> | Transaction<DB>;

const READ_COMMITTED = 'set session characteristics as transaction isolation level read committed';

export interface StoreOptions {
  /** Path of the SQLite file, or ':memory:' (ignored when postgresUrl is given). */
  sqlitePath?: string;
  /** FULL (default, power-loss safe) or NORMAL (faster, may lose the last commits on power loss). */
  synchronous?: 'FULL' | 'NORMAL';
  /** postgres://user:password@host:port/database */
  postgresUrl?: string | null;
  /** Connections in the PostgreSQL pool. */
  poolSize?: number;
  /** Writes queued for the next group commit above which new ones are refused (503); 0 = no limit. */
  maxPendingWrites?: number;
  logger?: Logger;
  /**
   * SQLite file written by two threads of this process (the request thread and the writer thread,
   * see engine/writerThread.ts): the lock they share and this connection's side of it.
   */
  writeLock?: { buffer: SharedArrayBuffer; side: LockSide };
}

export class SchemaTooNewError extends Error {}

/** Statements kept prepared per direct path (the compiled texts are a fixed set, far fewer). */
const MAX_DIRECT_STATEMENTS = 1000;

// int8 (counts, bigint milliseconds) as JavaScript numbers: every value Waymark stores is < 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export class Store {
  readonly db: Kysely<DB>;
  readonly caps: DialectCaps;
  /** Write transactions that may be open at once (1 on SQLite's single writer; see postgresWriteLanes). */
  readonly writeLanes: number;
  private readonly committer: GroupCommitter;
  private readonly raw: SQLite.Database | null;
  private readonly notifier: Notifier;
  private maxPendingWrites = 0;
  /** SQLite: the read-only connection that serves reads outside transactions (reusableQuery.ts). */
  private reader: SQLite.Database | null = null;
  /** The reader's read transaction of the current turn of the event loop (turnSnapshot.ts). */
  private snapshot: TurnSnapshot | null = null;
  /** SQLite file written by two threads: every write transaction holds this (threadWriteLock.ts). */
  private writeLock: ThreadWriteLock | null = null;

  private constructor(db: Kysely<DB>, caps: DialectCaps, raw: SQLite.Database | null, notifier: Notifier, writeLanes = 1) {
    this.db = db;
    this.caps = caps;
    registerCaps(db, caps);
    this.raw = raw;
    this.notifier = notifier;
    this.writeLanes = writeLanes;
    this.committer = new GroupCommitter((fn) => this.transaction(fn), caps.statementRollback, writeLanes);
  }

  static open(opts: StoreOptions): Store {
    const store = Store.openDatabase(opts);
    store.maxPendingWrites = opts.maxPendingWrites ?? 0;
    return store;
  }

  private static openDatabase(opts: StoreOptions): Store {
    if (opts.postgresUrl) return Store.openPostgres(opts.postgresUrl, opts);
    const file = opts.sqlitePath ?? ':memory:';
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const raw = new SQLite(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`synchronous = ${opts.synchronous ?? 'FULL'}`);
    raw.pragma('busy_timeout = 5000');
    raw.pragma('foreign_keys = ON');
    // 64 MiB of page cache instead of SQLite's 2 MiB default: in the soak the p99 of the e2e chain
    // rose from ~90 ms to ~390 ms once the file passed ~600 MB and the indexes left the cache.
    raw.pragma('cache_size = -65536');
    // Savepoints (a dispatcher batch's, an admission's that writes twice) keep the pages they
    // change in a sub-journal, which SQLite spills to a temporary file past 64 KiB: in `bench e2e`
    // the writer thread created and unlinked a file in /var/tmp per group commit and wrote it 7
    // times as often as the WAL, and writing files was ~23 % of that thread's CPU (perf). In memory
    // it is bounded by the pages one transaction changes.
    raw.pragma('temp_store = MEMORY');
    const database = cachingDatabase(raw);
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
    // Statements compiled once (reusableQuery.ts) run inside transactions straight on this, the
    // only connection, each prepared once more for this path in raw mode (rawRows.ts): the
    // statements Kysely's driver keeps (cachingDatabase) must go on answering objects.
    registerDirectWriter(db, directWriter(raw));
    const store = new Store(db, SQLITE_CAPS, raw, new LocalNotifier());
    if (file !== ':memory:') {
      store.reader = new SQLite(file, { readonly: true, fileMustExist: true });
      store.snapshot = openReader(store.reader, db);
    }
    if (opts.writeLock && file !== ':memory:') store.writeLock = new ThreadWriteLock(opts.writeLock.buffer, opts.writeLock.side);
    return store;
  }

  private static openPostgres(url: string, opts: StoreOptions): Store {
    const poolSize = opts.poolSize ?? 10;
    const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000 });
    // A dropped idle connection must not crash the process: the pool replaces it.
    pool.on('error', (e) => opts.logger?.warn({ err: { message: e.message } }, 'idle database connection lost'));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    const prepared = new PreparedTexts();
    pool.on('connect', (client) => {
      prepared.attach(client);
      // The locks and reads of the store are reasoned for READ COMMITTED (each statement sees what
      // committed before it, a row lock waits for its holder's commit), PostgreSQL's default; a
      // database or role set to another level would break that. Queued ahead of the first query.
      client.query(READ_COMMITTED).catch((e: Error) => opts.logger?.warn({ err: { message: e.message } }, 'could not set the isolation level of a database connection'));
    });
    registerPreparer(db, (text) => prepared.add(text));
    return new Store(db, POSTGRES_CAPS, null, new PgNotifier(url, opts.logger ?? null), postgresWriteLanes(poolSize));
  }

  /** Run pending migrations; refuse a database whose schema is newer than this code. */
  async migrate(): Promise<void> {
    await this.refuseNewerSchema();
    const migrator = new Migrator({ db: this.db, provider: { getMigrations: async () => migrationsFor(this.caps) } });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`);
    }
  }

  private async refuseNewerSchema(): Promise<void> {
    const tables = await this.db.introspection.getTables({ withInternalKyselyTables: true });
    if (!tables.some((t) => t.name === 'kysely_migration')) return;
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(this.db);
    const unknown = rows.rows.map((r) => r.name).filter((n) => !KNOWN_MIGRATIONS.includes(n));
    if (unknown.length > 0) {
      throw new SchemaTooNewError(
        `The database schema is newer than this Waymark (unknown migrations: ${unknown.join(', ')}); upgrade Waymark.`,
      );
    }
  }

  /**
   * One transaction on its own. Once it has ended, reads start a new snapshot (turnSnapshot.ts):
   * what it committed is seen by every read that follows.
   */
  async transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    const lock = this.writeLock;
    // On SQLite's single writer and on PostgreSQL, new events are held until the end of the
    // transaction and inserted then, in their final status (queries/transactionEvents.ts); a
    // failure of that insert fails the transaction as a failed statement of a job would. On the
    // single writer, rows are also kept from one transaction to the next while nothing else writes
    // (transactionRows.ts); a transaction that fails forgets them.
    const body = async (trx: Transaction<DB>): Promise<T> => {
      await openKeptRows(trx);
      startHolding(trx);
      const result = await fn(trx);
      await flushHeldEvents(trx);
      await closeKeptRows(trx);
      return result;
    };
    try {
      return await (lock ? lock.run(() => this.db.transaction().execute(body)) : this.db.transaction().execute(body));
    } catch (e) {
      abandonKeptRows(this.db);
      throw e;
    } finally {
      this.snapshot?.refresh();
    }
  }

  /**
   * Another thread reported a commit (the writer thread's answers and final events): reads that
   * follow must see it, so the current turn's snapshot ends now (turnSnapshot.ts).
   */
  refreshReads(): void {
    this.snapshot?.refresh();
  }

  /** The lock shared with the other thread that writes this SQLite file (null if none). */
  get threadLock(): ThreadWriteLock | null {
    return this.writeLock;
  }

  /**
   * Group commit: `fn` runs inside a transaction shared with other concurrent callers, isolated by
   * a savepoint (its failure rolls back only its own writes; a `singleWrite` job on SQLite needs
   * none). It resolves after the shared commit is durable, so one fsync serves the whole batch.
   */
  grouped<T>(fn: (trx: Transaction<DB>) => Promise<T>, opts?: JobOptions): Promise<T> {
    if (this.maxPendingWrites > 0 && this.committer.pending >= this.maxPendingWrites) {
      return Promise.reject(
        new WaymarkError('ServiceUnavailable', 'Too many changes are waiting to be written; retry in a second.', { 'Retry-After': '1' }),
      );
    }
    return this.committer.submit(fn, opts);
  }

  /** Work that every group commit runs after its jobs, in its transaction (GroupCommitTail). */
  setGroupCommitTail<T>(tail: GroupCommitTail<T> | null): void {
    this.committer.setTail(tail);
  }

  /** The work every group commit runs after its jobs (null: none). */
  get groupCommitTail(): GroupCommitTail<unknown> | null {
    return this.committer.tail;
  }

  /** Jobs waiting for the next group commit (an overload signal). */
  get pendingWrites(): number {
    return this.committer.pending;
  }

  /**
   * Lock a process instance's row until the transaction ends, so that the events of one instance
   * are applied one at a time across nodes, and read it as it stands once locked (undefined: no
   * such instance). With a single writer (SQLite) the lock is implicit and this is a plain read.
   */
  lockInstance(trx: Transaction<DB>, procInstId: string): Promise<InstanceRow | undefined> {
    return this.caps.rowLocks ? lockAndFindInstance(trx, procInstId) : findInstance(trx, procInstId);
  }

  /** Send a notification to every node (after the surrounding transaction commits, on PostgreSQL). */
  async notify(db: Executor, channel: string, payload: string): Promise<void> {
    if (this.notifier instanceof LocalNotifier) {
      const local = this.notifier;
      queueMicrotask(() => local.emit(channel, payload));
      return;
    }
    await sql`select pg_notify(${channel}, ${payload})`.execute(db);
  }

  listen(channel: string, fn: Listener): void {
    this.notifier.listen(channel, fn);
  }

  /** SQLite's integrity check ('ok' when sound); PostgreSQL checks itself. */
  integrityCheck(): string {
    return this.raw ? String(this.raw.pragma('integrity_check', { simple: true })) : 'ok';
  }

  /** The underlying SQLite connection, for online backup (null on PostgreSQL). */
  get sqlite(): SQLite.Database | null {
    return this.raw;
  }

  async close(): Promise<void> {
    await this.committer.drain();
    await this.notifier.close();
    await this.db.destroy();
    this.snapshot?.refresh();
    this.reader?.close();
  }
}

/**
 * Write transactions open at once on PostgreSQL, for group commit and again for the dispatcher's
 * parts (Dispatcher.ts): a third of the pool each, at most 4, so that reads, claims and the
 * sweeper keep a third (default pool 10: 3 + 3, leaving 4). One lane ran admissions one after the other,
 * each statement a round trip, in a single transaction: AssignWorkItem was accepted at 618/s
 * against SQLite's 3,929/s (`bench pg`, 17:05 UTC); lanes run them side by side, and PostgreSQL
 * flushes the WAL of concurrent commits together. Two lanes can wait on each other's instance
 * row locks; PostgreSQL then fails one statement as a deadlock, and that job runs again
 * (a transient error, as with several nodes).
 */
function postgresWriteLanes(poolSize: number): number {
  return Math.max(1, Math.min(4, Math.floor(poolSize / 3)));
}

/**
 * Runs a compiled text with its values on `connection`, each text prepared once (its own
 * statement, in raw mode: rawRows.ts) and kept, at most MAX_DIRECT_STATEMENTS of them.
 */
function directRunner(connection: SQLite.Database): (text: string, values: readonly unknown[]) => unknown[] {
  const runners = new Map<string, RowsRunner>();
  return (text, values) => {
    let run = runners.get(text);
    if (!run) {
      run = rawRunner(connection.prepare(text));
      if (runners.size >= MAX_DIRECT_STATEMENTS) runners.delete(runners.keys().next().value as string);
      runners.set(text, run);
    }
    return run(values);
  };
}

/** directRunner, and an INSERT whose rowid is asked for, on a statement of its own run as is. */
function directWriter(connection: SQLite.Database): DirectWriter {
  const inserts = new Map<string, SQLite.Statement>();
  return {
    execute: directRunner(connection),
    insertRowid: (text, values) => {
      let stmt = inserts.get(text);
      if (!stmt) {
        stmt = connection.prepare(text);
        if (inserts.size >= MAX_DIRECT_STATEMENTS) inserts.delete(inserts.keys().next().value as string);
        inserts.set(text, stmt);
      }
      return Number(stmt.run(...values).lastInsertRowid);
    },
  };
}

/**
 * A second, read-only connection to the same SQLite file (WAL: it reads the last committed state
 * while the writing connection holds a transaction open), with its own prepared statements; the
 * reads of one turn of the event loop share one read transaction on it (turnSnapshot.ts).
 */
function openReader(reader: SQLite.Database, db: Kysely<DB>): TurnSnapshot {
  reader.pragma('busy_timeout = 5000');
  reader.pragma('cache_size = -32768');
  const run = directRunner(reader);
  const snapshot = new TurnSnapshot(reader);
  registerDirectReader(db, {
    all: (text, values) => {
      snapshot.enter();
      return run(text, values);
    },
  });
  return snapshot;
}

export { sql };
