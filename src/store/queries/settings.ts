import { reusableQuery } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';

// Compiled once: read on every GetRegisterUsers (the security epoch) and every request of a node
// that shares its database.
const selectSetting = reusableQuery((db, key: string) => db.selectFrom('settings').select('value').where('key', '=', key));

export async function getSetting(db: Executor, key: string): Promise<string | undefined> {
  return (await selectSetting(db, key))[0]?.value;
}

export async function setSetting(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** Bump a counter setting (the security epoch) and return its new value. */
export async function bumpCounter(db: Executor, key: string): Promise<number> {
  const current = Number((await getSetting(db, key)) ?? '0');
  const next = current + 1;
  await setSetting(db, key, String(next));
  return next;
}
