import type { Insertable, Selectable } from 'kysely';
import { literalLimit, reusableQuery } from '../reusableQuery.ts';
import type { Executor } from '../Store.ts';
import type { ProcessDefinitionsTable } from '../schema.ts';
import { keptOrRead, keptRows } from '../transactionRows.ts';
import { capsOf } from '../dialect.ts';
import { bumpCounter } from './settings.ts';

export type DefinitionRow = Selectable<ProcessDefinitionsTable>;
export type DefinitionSummary = Omit<DefinitionRow, 'xml'>;

const SUMMARY_COLUMNS = [
  'def_id', 'base_def_id', 'def_name', 'def_name_key', 'version', 'status', 'description',
  'created_by', 'created_date', 'release_date',
] as const;

export function findDefinition(db: Executor, defId: string): Promise<DefinitionRow | undefined> {
  return db.selectFrom('process_definitions').selectAll().where('def_id', '=', defId).executeTakeFirst();
}

/**
 * A definition without its BPMN text, compiled once (reusableQuery.ts): what starting an instance
 * needs. Through findDefinition, the admission of CreateProcInst read the whole XML of the model
 * on every call and built the query anew (findDefinition 2.6 % of the writer thread's profile in
 * `bench e2e`, about 58 µs per call).
 */
export async function findDefinitionSummary(db: Executor, defId: string): Promise<DefinitionSummary | undefined> {
  const kept = keptSummaries(db);
  if (kept || !capsOf(db)?.sharedByNodes) return keptOrRead(kept, defId, () => selectSummary(db, defId));
  // A transaction that wrote definitions sees its own uncommitted rows: they are neither kept
  // nor answered from what is kept (found in review, thirty-fourth round).
  if (wroteDefinitions.has(db)) return (await selectSummary(db, defId))[0];
  const adapter = db.getExecutor().adapter;
  const epoch = sharedSummaries.get(adapter);
  const hit = epoch?.rows.get(defId);
  if (hit) return { ...hit };
  const [row] = await selectSummary(db, defId);
  // Kept only if the epoch did not change during the read (noteDefinitionsEpoch replaces it).
  if (row && epoch && sharedSummaries.get(adapter) === epoch && epoch.rows.size < MAX_SHARED) epoch.rows.set(defId, { ...row });
  return row;
}

/**
 * Where nodes share the database (PostgreSQL), summaries are kept for as long as the definitions
 * epoch stays the same: a counter that every release bumps in its transaction (releaseDefinition),
 * read once per turn of the event loop with the security epoch (Authenticator), before the
 * requests of that turn run. A CreateProcInst then sees every release committed before it
 * arrived, as its own read of the row did — with no read of its own (1 of the ~28 round trips of
 * a completed e2e instance in `bench pg`; docs/performance-log.md, thirty-fourth round). Per
 * database (its Kysely adapter).
 */
export const DEFINITIONS_EPOCH_KEY = 'definitions_epoch';
const MAX_SHARED = 10_000;
const sharedSummaries = new WeakMap<object, { epoch: number; rows: Map<string, DefinitionSummary> }>();
/** Transactions that wrote process_definitions (insertDefinition, releaseDefinition). */
const wroteDefinitions = new WeakSet<object>();

function noteDefinitionsWritten(db: Executor): void {
  if (db.isTransaction) wroteDefinitions.add(db);
}

/** The definitions epoch just read (Authenticator, once per turn): summaries kept under another are forgotten. */
export function noteDefinitionsEpoch(db: Executor, epoch: number): void {
  const adapter = db.getExecutor().adapter;
  if (sharedSummaries.get(adapter)?.epoch !== epoch) sharedSummaries.set(adapter, { epoch, rows: new Map() });
}

/**
 * Summaries kept by the single SQLite writer (transactionRows.ts), as instance rows are: every
 * write to process_definitions goes through this file; a release forgets them all (it archives
 * another version). Why: every CreateProcInst read its definition's row (`bench statements`, e2e;
 * twenty-sixth round in docs/performance-log.md).
 */
function keptSummaries(db: Executor): Map<string, DefinitionSummary> | undefined {
  return keptRows<DefinitionSummary>(db, 'process_definitions');
}

const selectSummary = reusableQuery((db, defId: string) => db.selectFrom('process_definitions').select(SUMMARY_COLUMNS).where('def_id', '=', defId));

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
    .limit(literalLimit(1))
    .executeTakeFirst();
}

export async function insertDefinition(db: Executor, row: Insertable<ProcessDefinitionsTable>): Promise<void> {
  noteDefinitionsWritten(db);
  await db.insertInto('process_definitions').values(row).execute();
  // A new id, which nothing kept names (only rows found are kept).
}

/** Release one version: the previously released version of the same name becomes Archived. */
export async function releaseDefinition(db: Executor, defId: string, nameKey: string, now: number): Promise<void> {
  keptSummaries(db)?.clear();
  noteDefinitionsWritten(db);
  if (capsOf(db)?.sharedByNodes) {
    // Every node forgets its summaries at its next turn, this one at once.
    sharedSummaries.get(db.getExecutor().adapter)?.rows.clear();
    await bumpCounter(db, DEFINITIONS_EPOCH_KEY);
  }
  await db
    .updateTable('process_definitions')
    .set({ status: 'Archived' })
    .where('def_name_key', '=', nameKey)
    .where('status', '=', 'Released')
    .execute();
  await db.updateTable('process_definitions').set({ status: 'Released', release_date: now }).where('def_id', '=', defId).execute();
}
