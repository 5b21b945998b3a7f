/**
 * A digest of every row of every table of a server's database (SQLite or PostgreSQL): equal
 * digests before and after a request mean the request changed nothing.
 */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { TestServer } from './harness.ts';

export async function databaseDigest(s: TestServer): Promise<string> {
  const db = s.waymark.store.db;
  const tables = (await db.introspection.getTables()).map((t) => t.name).sort();
  const hash = crypto.createHash('sha256');
  for (const table of tables) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    const rows = result.rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k]]))).sort();
    hash.update(`${table}\n${rows.join('\n')}\n`);
  }
  return hash.digest('hex');
}
