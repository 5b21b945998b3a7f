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
