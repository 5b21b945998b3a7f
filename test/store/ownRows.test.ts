/**
 * Rows read through Kysely's driver (reusableQuery.ts: every read on PostgreSQL, and statements
 * outside the SQLite fast paths) come back in an array of their own, and the driver's array is left
 * empty: on PostgreSQL that array is made when the statement is sent and is often already in V8's
 * old generation when the rows arrive, and a young row that only it references survives every
 * scavenge until it is promoted (docs/performance-log.md, fortieth round: GetRegisterUsers' pages).
 * On this run's dialect, through a Kysely instance whose plugin keeps each array the driver gave.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type KyselyPlugin, type QueryResult, type UnknownRow } from 'kysely';
import pg from 'pg';
import { reusableQuery, selectFixed } from '../../src/store/reusableQuery.ts';
import type { DB } from '../../src/store/schema.ts';
import type { Executor } from '../../src/store/Store.ts';
import { databaseEnv, DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-own-rows-');

/** Keeps every rows array the driver answered with, as it reached Kysely's executor. */
class DriverArrays implements KyselyPlugin {
  readonly seen: unknown[][] = [];
  transformQuery<T>(args: { node: T }): T {
    return args.node;
  }
  async transformResult(args: { result: QueryResult<UnknownRow> }): Promise<QueryResult<UnknownRow>> {
    this.seen.push(args.result.rows as unknown[]);
    return args.result;
  }
}

async function openDb(plugin: DriverArrays): Promise<Kysely<DB>> {
  const file = tempDb();
  const url = (await databaseEnv(file)).WAYMARK_DATABASE_URL;
  const dialect = DIALECT === 'postgres' ? new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) : new SqliteDialect({ database: new Database(file) });
  return new Kysely<DB>({ dialect, plugins: [plugin] });
}

const echo = reusableQuery((db: Executor, a: string, b: string) => db.selectNoFrom([sql<string>`cast(${a} as text)`.as('a'), sql<string>`cast(${b} as text)`.as('b')]));

test('a reusable query answers its rows in an array of its own and leaves the driver’s empty', async () => {
  const plugin = new DriverArrays();
  const db = await openDb(plugin);
  try {
    for (const [a, b] of [['x', 'y'], ['page', '{"UserName":"LOCAL\\\\u"}']]) {
      const before = plugin.seen.length;
      const rows = await echo(db, a, b);
      assert.deepEqual(rows, [{ a, b }]);
      assert.equal(plugin.seen.length, before + 1, 'the statement went through the driver');
      const driver = plugin.seen[before];
      assert.notEqual(rows, driver, 'not the driver’s array');
      assert.equal(driver.length, 0, 'the driver’s array no longer holds the row');
    }
  } finally {
    await db.destroy();
  }
});

test('selectFixed answers its rows in an array of its own and leaves the driver’s empty', async () => {
  const plugin = new DriverArrays();
  const db = await openDb(plugin);
  try {
    const rows = (await selectFixed(db, 'select 1 as one')) as { one: number }[];
    assert.equal(Number(rows[0].one), 1);
    assert.equal(rows.length, 1);
    const driver = plugin.seen.at(-1)!;
    assert.notEqual(rows, driver);
    assert.equal(driver.length, 0);
  } finally {
    await db.destroy();
  }
});
