import type { Executor } from '../Store.ts';

export async function getSetting(db: Executor, key: string): Promise<string | undefined> {
  const r = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return r?.value;
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
