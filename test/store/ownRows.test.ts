/**
 * On PostgreSQL every query of the store's connections (pgPrepared.ts PreparedTexts.attach)
 * answers its rows in an array and a result of their own, and leaves the driver's array empty:
 * the driver makes that array when the statement is sent, it is often in V8's old generation by
 * the time the rows arrive, and a young row that only it references survives every young
 * collection until it is promoted (docs/performance-log.md, fortieth round: GetRegisterUsers'
 * pages). Named (compiled once) and unnamed statements alike, through a real connection whose
 * unwrapped query keeps each result the driver gave.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { PreparedTexts } from '../../src/store/pgPrepared.ts';
import { databaseEnv, DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-own-rows-');
const skip = DIALECT !== 'postgres' && 'the pg driver: PostgreSQL only (SQLite rows come from better-sqlite3 at once)';

test('a query through an attached connection answers rows of its own and empties the driver’s', { skip }, async () => {
  const url = (await databaseEnv(tempDb())).WAYMARK_DATABASE_URL;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // What the driver itself answers, kept as it was handed over.
    const driver: pg.QueryResult[] = [];
    const query = client.query as (...args: unknown[]) => unknown;
    client.query = function (this: pg.Client, ...args: unknown[]) {
      const answer = query.apply(this, args);
      return answer instanceof Promise ? answer.then((r: pg.QueryResult) => (driver.push(r), r)) : answer;
    } as typeof client.query;
    const texts = new PreparedTexts();
    const named = 'select $1::text as a, $2::text as b';
    texts.add(named);
    texts.attach(client as pg.PoolClient);

    for (const text of [named, 'select $1::text as a, $2::text as b, 1 as unnamed']) {
      const before = driver.length;
      const page = '{"UserName":"LOCAL\\\\u"}'.repeat(50);
      const result = await client.query(text, ['x', page]);
      assert.equal(driver.length, before + 1, 'the statement went through the driver');
      const theirs = driver[before];
      assert.equal(result.rows.length, 1);
      assert.equal(result.rows[0].a, 'x');
      assert.equal(result.rows[0].b, page);
      assert.equal(result.rowCount, 1);
      assert.equal(result.command, 'SELECT');
      assert.notEqual(result, theirs, 'not the driver’s result');
      assert.notEqual(result.rows, theirs.rows, 'not the driver’s array');
      assert.equal(theirs.rows.length, 0, 'the driver’s array no longer holds the row');
    }
    // A query with a callback (no promise) is left as it is.
    const viaCallback = await new Promise<pg.QueryResult>((resolve, reject) => client.query('select 2 as two', (e: Error | null, r: pg.QueryResult) => (e ? reject(e) : resolve(r))));
    assert.equal(viaCallback.rows[0].two, 2);
  } finally {
    await client.end();
  }
});
