/**
 * Whether an event of a dispatcher batch may be applied now (BatchApplier.apply): still Sent, not
 * another node's, and no earlier event of its instance pending — decided from what the batch
 * already knows where that provably holds, and from the database otherwise. With what one batch
 * carries from event to event.
 */
import type { Insertable, Transaction } from 'kysely';
import { findEvent, findEventAndEarlierPending, hasEarlierPendingEvent, releaseClaims, type EventRow } from '../store/queries/events.ts';
import type { InstanceRow } from '../store/queries/instances.ts';
import type { AuditTrailTable, DB } from '../store/schema.ts';
import type { Store } from '../store/Store.ts';

/**
 * The event as it stands now (with its instance's row where that was locked and read here),
 * 'skip' when it is no longer to be applied (not Sent, or another node's), or 'later' when an
 * earlier event of its instance is still pending.
 *
 * On a single writer the selected row is used as it is, and "an earlier event of the instance is
 * pending" is decided in memory, unless a handler of this batch wrote events of the instance
 * (watchEventWrites in store/queries/events.ts); then the database is asked, as with leases.
 * Why the two agree: the batch is the first BATCH_SIZE (batchApplier.ts) Sent events in claim order
 * (high_priority DESC, seq), read inside this transaction, and no other transaction writes
 * meanwhile (one writer). "Earlier" in hasEarlierPendingEvent (higher priority, or equal
 * priority and smaller seq; high_priority is 0 or 1) is exactly "before in claim order", so every
 * Sent event earlier than this one was selected, before it, in this batch. If no handler wrote
 * the instance's events, the only writes to them since the selection are this loop's own status
 * updates, which never make an event Sent: so this row is still current (Sent, same entries),
 * and an earlier event of the instance is Sent now exactly when it was in this batch and its
 * outcome was 'later' or 'retry' (still Sent) rather than 'done' (Processed, Failed, or found no
 * longer Sent): stillSent. Saves findEvent and one or two probes per event.
 */
export async function recheck(batch: Batch, selected: EventRow, nodeId: string, store: Pick<Store, 'lockInstance'>): Promise<Checked | 'skip' | 'later'> {
  const { trx, single } = batch;
  if (single && !single.eventWrites.has(selected.proc_inst_id)) {
    return single.stillSent.has(selected.proc_inst_id) ? 'later' : { event: selected, locked: false };
  }
  const own = batch.own;
  // The first event of its instance in a batch of events admitted in this transaction, where that
  // instance's first Sent event in claim order, read when its row was locked (lockFreeInstances),
  // is this one, and no handler of this batch has written the instance's events since: it is
  // Sent, and no earlier event of its instance is pending. Its instance has been locked by this
  // transaction since the event's admission, so no other transaction changed either meanwhile.
  const firstSent = own?.has(selected.proc_inst_id) && !batch.firstSent?.eventWrites.has(selected.proc_inst_id) ? batch.firstSent?.rows.get(selected.proc_inst_id) : undefined;
  if (own && firstSent?.event_id === selected.event_id && firstSent.claimed_by === null) {
    const instance = own.get(selected.proc_inst_id);
    own.delete(selected.proc_inst_id);
    return { event: firstSent, locked: true, instance };
  }
  // Events admitted in this transaction: their instances are locked by it since their admission,
  // so the event and "an earlier one is pending" are read together, before the row below.
  const found = own ? await findEventAndEarlierPending(trx, selected.event_id) : undefined;
  const event = own ? found?.event : await findEvent(trx, selected.event_id);
  if (!event || event.status !== 'Sent') return 'skip';
  if (!single && event.claimed_by !== (own ? null : nodeId)) return 'skip';
  // The lock and the instance's row in one round trip; the row serves apply() below. Events
  // admitted in this transaction: the row locked by applyAdmitted serves the instance's first
  // event, and a later one reads it again (the first one's handler changed it).
  const first = own?.get(event.proc_inst_id);
  own?.delete(event.proc_inst_id);
  const instance = first ?? (await store.lockInstance(trx, event.proc_inst_id));
  if (found ? found.earlierPending : await hasEarlierPendingEvent(trx, event)) {
    if (!single && !own) await releaseClaims(trx, nodeId, [event.event_id]);
    return 'later';
  }
  return { event, locked: true, instance };
}

/** An event to apply; `locked`: its instance's row was locked and read (undefined: missing). */
export type Checked = { event: EventRow; locked: false } | { event: EventRow; locked: true; instance: InstanceRow | undefined };

/** What one batch carries from event to event, inside its one apply transaction. */
export interface Batch {
  trx: Transaction<DB>;
  /** Events that reached a final status: their waiters are woken after the commit. */
  finalized: string[];
  /** The final rows of the events applied, for the waiters (the others' rows are read). */
  rows: Map<string, EventRow>;
  /** Audit rows of the events applied or failed so far, inserted together before the commit. */
  audit: Insertable<AuditTrailTable>[];
  /**
   * Events admitted in this transaction (applyAdmitted): the rows of their instances locked for
   * it and not used yet; null for a selected or claimed batch.
   */
  own: Map<string, InstanceRow> | null;
  /**
   * With `own`: the first Sent event of each of those instances in claim order, as read when they
   * were locked, and the instances whose events a handler of this batch has written since (recheck).
   */
  firstSent: { rows: Map<string, EventRow | null>; eventWrites: Set<string> } | null;
  /** On a single writer (no claims), what recheck decides from; null where claims are leased. */
  single: {
    /** Instances whose events a handler of this batch wrote: for them the database is asked. */
    eventWrites: Set<string>;
    /** Instances with an event of this batch that is still Sent ('later' or 'retry'). */
    stillSent: Set<string>;
  } | null;
}
