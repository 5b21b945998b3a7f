/**
 * What findWorkItemWithContext (workItemWithContext.ts) learned about a work item beside its row —
 * whether a user is in its pool, how large the pool is, whether an open item depends on it — kept
 * for the rest of the transaction, as the row is (transactionRows.ts: the single SQLite writer,
 * inside a transaction; a savepoint rolled back forgets everything).
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
}

/** The flags kept for the transaction `db`, by work item id; undefined where nothing is kept. */
export function keptItemFlags(db: Executor): Map<string, ItemFlags> | undefined {
  return keptRows<ItemFlags>(db, 'work item flags');
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
    }
  }
}

/** Pool rows of unknown items changed (a user's memberships dropped). */
export function forgetEveryPoolFlag(db: Executor): void {
  forgetPoolFlags(db, keptItemFlags(db)?.keys() ?? []);
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
  for (const flags of kept.values()) flags.openDependents = undefined;
}
