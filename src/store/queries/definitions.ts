import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../Store.ts';
import type { ProcessDefinitionsTable } from '../schema.ts';

export type DefinitionRow = Selectable<ProcessDefinitionsTable>;
export type DefinitionSummary = Omit<DefinitionRow, 'xml'>;

const SUMMARY_COLUMNS = [
  'def_id', 'base_def_id', 'def_name', 'def_name_key', 'version', 'status', 'description',
  'created_by', 'created_date', 'release_date',
] as const;

export function findDefinition(db: Executor, defId: string): Promise<DefinitionRow | undefined> {
  return db.selectFrom('process_definitions').selectAll().where('def_id', '=', defId).executeTakeFirst();
}

export function listDefinitions(db: Executor): Promise<DefinitionSummary[]> {
  return db.selectFrom('process_definitions').select(SUMMARY_COLUMNS).orderBy('def_name_key').orderBy('version').execute();
}

export function listReleasedDefinitions(db: Executor): Promise<DefinitionSummary[]> {
  return db
    .selectFrom('process_definitions')
    .select(SUMMARY_COLUMNS)
    .where('status', '=', 'Released')
    .orderBy('def_name_key')
    .execute();
}

export function findReleasedByName(db: Executor, nameKey: string): Promise<DefinitionSummary | undefined> {
  return db
    .selectFrom('process_definitions')
    .select(SUMMARY_COLUMNS)
    .where('def_name_key', '=', nameKey)
    .where('status', '=', 'Released')
    .executeTakeFirst();
}

export function latestVersionOf(db: Executor, nameKey: string): Promise<DefinitionSummary | undefined> {
  return db
    .selectFrom('process_definitions')
    .select(SUMMARY_COLUMNS)
    .where('def_name_key', '=', nameKey)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertDefinition(db: Executor, row: Insertable<ProcessDefinitionsTable>): Promise<void> {
  await db.insertInto('process_definitions').values(row).execute();
}

/** Release one version: the previously released version of the same name becomes Archived. */
export async function releaseDefinition(db: Executor, defId: string, nameKey: string, now: number): Promise<void> {
  await db
    .updateTable('process_definitions')
    .set({ status: 'Archived' })
    .where('def_name_key', '=', nameKey)
    .where('status', '=', 'Released')
    .execute();
  await db.updateTable('process_definitions').set({ status: 'Released', release_date: now }).where('def_id', '=', defId).execute();
}
