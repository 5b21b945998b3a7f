/**
 * The store's locks and reads are reasoned for READ COMMITTED, PostgreSQL's default: a database
 * (or role) set to another default isolation level does not change the level of the store's
 * transactions (Store.openPostgres sets it on every connection).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { DIALECT, databaseEnv } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import { openTestStore } from '../helpers/testStore.ts';

const tempDb = tempDbFiles('waymark-isolation-');

async function level(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ transaction_isolation: string }>('show transaction_isolation')).rows[0].transaction_isolation;
  } finally {
    await client.end();
  }
}

test('a database whose default is REPEATABLE READ still gets READ COMMITTED transactions from the store', { skip: DIALECT !== 'postgres' && 'PostgreSQL only' }, async () => {
  const file = tempDb();
  const url = (await databaseEnv(file)).WAYMARK_DATABASE_URL;
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.WAYMARK_TEST_PG });
  await admin.connect();
  try {
    await admin.query(`alter database ${name} set default_transaction_isolation = 'repeatable read'`);
  } finally {
    await admin.end();
  }
  assert.equal(await level(url), 'repeatable read', 'a plain connection gets the database default');
  const store = await openTestStore(file);
  try {
    const inside = await store.transaction(async (trx) => (await sql<{ transaction_isolation: string }>`show transaction_isolation`.execute(trx)).rows[0].transaction_isolation);
    assert.equal(inside, 'read committed');
    const outside = (await sql<{ transaction_isolation: string }>`show transaction_isolation`.execute(store.db)).rows[0].transaction_isolation;
    assert.equal(outside, 'read committed');
  } finally {
    await store.close();
  }
});
