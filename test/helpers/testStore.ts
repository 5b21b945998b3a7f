/**
 * A Store on this run's dialect (WAYMARK_TEST_DIALECT): the SQLite file `file`, or the PostgreSQL
 * database that harness.ts's databaseEnv gives for it. The same `file` opens the same database.
 */
import { Store } from '../../src/store/Store.ts';
import { databaseEnv } from './harness.ts';

export async function openTestStore(file: string): Promise<Store> {
  const env = await databaseEnv(file);
  return Store.open({ sqlitePath: file, postgresUrl: env.WAYMARK_DATABASE_URL ?? null });
}

/** openTestStore, migrated. */
export async function openMigratedStore(file: string): Promise<Store> {
  const store = await openTestStore(file);
  await store.migrate();
  return store;
}
