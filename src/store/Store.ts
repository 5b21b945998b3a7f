/**
 * The store: one Kysely instance over the configured database, migrations, transactions and
 * group commit. The only place (with src/store/queries) that knows SQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import { SQLITE_CAPS, type DialectCaps } from './dialect.ts';
import { KNOWN_MIGRATIONS, migrationsFor } from './migrations/index.ts';
import { GroupCommitter } from './GroupCommitter.ts';
import { cachingDatabase } from './StatementCache.ts';

export type Executor = Kysely<DB> | Transaction<DB>;

export interface StoreOptions {
  /** Path of the SQLite file, or ':memory:'. */
  sqlitePath: string;
  /** FULL (default, power-loss safe) or NORMAL (faster, may lose the last commits on power loss). */
  synchronous?: 'FULL' | 'NORMAL';
}

export class SchemaTooNewError extends Error {}

export class Store {
  readonly db: Kysely<DB>;
  readonly caps: DialectCaps;
  private readonly committer: GroupCommitter;
  private readonly raw: SQLite.Database;

  private constructor(raw: SQLite.Database, caps: DialectCaps) {
    this.raw = raw;
    this.caps = caps;
    this.db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingDatabase(raw) }) });
    this.committer = new GroupCommitter(this.db);
  }

  static open(opts: StoreOptions): Store {
    if (opts.sqlitePath !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(opts.sqlitePath)), { recursive: true });
    const raw = new SQLite(opts.sqlitePath);
    raw.pragma('journal_mode = WAL');
    raw.pragma(`synchronous = ${opts.synchronous ?? 'FULL'}`);
    raw.pragma('busy_timeout = 5000');
    raw.pragma('foreign_keys = ON');
    return new Store(raw, SQLITE_CAPS);
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

  /** One transaction on its own. */
  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /**
   * Group commit: `fn` runs inside a transaction shared with other concurrent callers, isolated by
   * a savepoint (its failure rolls back only its own writes). It resolves after the shared commit
   * is durable, so one fsync serves the whole batch.
   */
  grouped<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.committer.submit(fn);
  }

  /** Integrity check for tests and `waymark doctor`. */
  integrityCheck(): string {
    return String(this.raw.pragma('integrity_check', { simple: true }));
  }

  async close(): Promise<void> {
    await this.committer.drain();
    await this.db.destroy();
  }
}

export { sql };
