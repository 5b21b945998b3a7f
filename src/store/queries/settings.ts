import { sql } from 'kysely';
import { reusableQuery } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';

// Compiled once: read on every GetRegisterUsers (the security epoch) and every request of a node
// that shares its database.
const selectSetting = reusableQuery((db, key: string) => db.selectFrom('settings').select('value').where('key', '=', key));

export async function getSetting(db: Executor, key: string): Promise<string | undefined> {
  return (await selectSetting(db, key))[0]?.value;
}

const selectTwoSettings = reusableQuery((db, first: string, second: string) => db.selectFrom('settings').select(['key', 'value']).where('key', 'in', [first, second]));

/** Two settings in one statement (undefined where one is not set). */
export async function getTwoSettings(db: Executor, first: string, second: string): Promise<[string | undefined, string | undefined]> {
  const rows = await selectTwoSettings(db, first, second);
  return [rows.find((r) => r.key === first)?.value, rows.find((r) => r.key === second)?.value];
}

export async function setSetting(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/**
 * Bump a counter setting (the security epoch) and return its new value, in one statement: two
 * bumps at once, on two nodes, give two values. Read and then written (as this did), both could
 * write the same value, and a node that had read the first would not see the second change.
 */
export async function bumpCounter(db: Executor, key: string): Promise<number> {
  const row = await db
    .insertInto('settings')
    .values({ key, value: '1' })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: sql<string>`cast(cast(settings.value as bigint) + 1 as text)` }))
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}
