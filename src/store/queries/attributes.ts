import type { Executor } from '../Store.ts';

export async function setAttributes(db: Executor, customId: string, attrs: { name: string; value: string }[]): Promise<void> {
  for (const a of attrs) {
    await db
      .insertInto('custom_attributes')
      .values({ custom_id: customId, name: a.name, value: a.value })
      .onConflict((oc) => oc.columns(['custom_id', 'name']).doUpdateSet({ value: a.value }))
      .execute();
  }
}

export function listAttributes(db: Executor, customId: string): Promise<{ name: string; value: string }[]> {
  return db.selectFrom('custom_attributes').select(['name', 'value']).where('custom_id', '=', customId).orderBy('name').execute();
}

/** Remove the named attributes; returns how many existed. */
export async function removeAttributes(db: Executor, customId: string, names: readonly string[]): Promise<number> {
  if (names.length === 0) return 0;
  const r = await db.deleteFrom('custom_attributes').where('custom_id', '=', customId).where('name', 'in', names).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Copy every attribute of one custom id onto another (existing names are overwritten). */
export async function copyAttributes(db: Executor, fromCustomId: string, toCustomId: string): Promise<void> {
  await setAttributes(db, toCustomId, await listAttributes(db, fromCustomId));
}
