/**
 * What findWorkItemWithContext (workItemWithContext.ts) learned about a work item beside its row —
 * whether a user is in its pool, how large the pool is, whether an open item depends on it — kept
 * as the row is (transactionRows.ts: the single SQLite writer, from one transaction to the next
 * while nothing else writes; a rollback forgets everything).
 *
 * Why: the admission of AssignWorkItem and CompleteWorkItem reads these flags, and the application
 * of the event, in the same group commit, read them again: one statement per call
 * (`bench statements`, e2e; twenty-fifth round in docs/performance-log.md).
 *
 * Every write that can change a flag forgets it: the writes of pool rows by item (workItems.ts)
 * or by member (users.ts, every item), and the writes of items that may depend on another one, by
 * the item they depend on (or every item, where that is not known).
 */
import type { Executor } from '../Store.ts';
import { keptRows } from '../transactionRows.ts';

export interface ItemFlags {
  /** Pool membership by user key. */
  poolMember: Map<string, boolean>;
  poolSize?: number;
  openDependents?: boolean;
  /**
   * Every member key of the item's pool, where all of them are known: an item inserted while rows
   * are kept has none, and gets those addPoolMembers writes. Answers poolMember and poolSize.
   */
  pool?: Set<string>;
}

/** The flags kept on the connection of `db`, by work item id; undefined where nothing is kept. */
export function keptItemFlags(db: Executor): Map<string, ItemFlags> | undefined {
  return keptRows<ItemFlags>(db, 'work item flags');
}

/**
 * `id` was just inserted: its pool is empty (pool rows name an existing item, foreign_keys on).
 * Whether open items depend on it is not assumed (an item linked to an id that did not exist yet).
 */
export function keepNewItemFlags(db: Executor, id: string): void {
  keptItemFlags(db)?.set(id, { poolMember: new Map(), pool: new Set() });
}

/** Pool rows of `id` were written for `keys` (ignored where they were already there). */
export function poolMembersAdded(db: Executor, id: string, keys: readonly string[]): void {
  const pool = keptItemFlags(db)?.get(id)?.pool;
  if (pool) for (const key of keys) pool.add(key);
  else forgetPoolFlags(db, [id]);
}

/** The pools of `ids` changed. */
export function forgetPoolFlags(db: Executor, ids: Iterable<string>): void {
  const kept = keptItemFlags(db);
  if (!kept || kept.size === 0) return;
  for (const id of ids) {
    const flags = kept.get(id);
    if (flags) {
      flags.poolMember.clear();
      flags.poolSize = undefined;
      flags.pool = undefined;
    }
  }
}

/** Pool rows of unknown items changed (a user's memberships dropped): every flag is forgotten. */
export function forgetEveryPoolFlag(db: Executor): void {
  keptItemFlags(db)?.clear();
}

/**
 * An item that may depend on `sourceId` was written; `undefined`: on an unknown item (then every
 * kept dependents flag is forgotten). `''` names no item.
 */
export function forgetDependentsFlag(db: Executor, sourceId: string | undefined): void {
  const kept = keptItemFlags(db);
  if (!kept || kept.size === 0 || sourceId === '') return;
  if (sourceId !== undefined) {
    const flags = kept.get(sourceId);
    if (flags) flags.openDependents = undefined;
    return;
  }
  // Rows are kept across transactions (transactionRows.ts): forgetting every flag at once costs
  // nothing, where going through them cost a step per kept item.
  kept.clear();
}
