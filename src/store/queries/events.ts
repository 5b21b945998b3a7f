import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { capsOf } from '../dialect.ts';
import { literalLimit, reusableInsertRowid, reusableQuery, reusableQueryPerLimit, reusableStatement, reusableUpdate } from '../reusableQuery.ts';
import {
  flushHeldEvents,
  forgetInserted,
  forgetInsertedEvent,
  heldEvent,
  heldEvents,
  holdEvent,
  holdsEvents,
  insertedSentRows,
  rememberInserted,
  replaceHeldEvent,
} from './transactionEvents.ts';
import type { Executor } from '../Store.ts';
import type { EventsTable } from '../schema.ts';

export type EventRow = Selectable<EventsTable>;

/**
 * `status = 'Sent'` as a literal, in every query that picks Sent events: events_pending and
 * events_instance_pending are partial indexes (WHERE status = 'Sent', migration 0003), so applied
 * events cost nothing in them (about 200 bytes less per simple instance). A literal matches the
 * index in every plan; with a bound 'Sent', SQLite matches it only by re-preparing the statement
 * each time the value is bound, and PostgreSQL only in a custom plan.
 */
const SENT = sql.lit('Sent');

/**
 * Store a new event. Where several nodes write (row locks exist), the instance's row is locked
 * first, so that the events of one instance get their `seq` in the order their admissions commit:
 * `seq` order is then the order in which they were accepted, which the dispatcher keeps. In a
 * transaction of Store.transaction the event is held until the end of the transaction and
 * inserted then, in the status it has reached (transactionEvents.ts); elsewhere it is inserted
 * at once.
 */
export async function insertEvent(db: Executor, row: Omit<EventRow, 'seq'>): Promise<number> {
  const sent = row.status === 'Sent';
  // Noted for the dispatcher's batch (below), but no row is forgotten: an insert changes none.
  if (sent) eventWrites.get(db)?.add(row.proc_inst_id);
  if (holdsEvents(db)) return holdEvent(db, row);
  const seq = capsOf(db)?.rowLocks ? await insertEventLockingInstance(db, row) : await insertEventRow(db, row);
  // Also a row not Sent: its seq may be one that a rolled-back insert had, remembered here.
  rememberInserted(db, seq, sent ? { seq, ...row } : null);
  return seq;
}

const insertEventRow = reusableInsertRowid('events', 'seq');

/** The columns of an event row as insertEventLockingInstance writes them, in its statement's order. */
const EVENT_COLUMNS = [
  'event_id', 'event_name', 'status', 'proc_inst_id', 'activity_inst_id', 'work_item_id', 'source_work_item_id', 'user_id', 'sender',
  'sent_date', 'end_date', 'entries', 'error_code', 'error_message', 'high_priority', 'auto_start', 'params', 'params_xml_packed',
  'proc_def_id', 'proc_inst_name', 'parent_proc_inst_id', 'work_object_id', 'work_object_info', 'claimed_by', 'claimed_at',
] as const satisfies readonly (keyof Omit<EventRow, 'seq'>)[];

/**
 * Where row locks exist (PostgreSQL): the instance's row locked and the event inserted in one
 * statement, one round trip instead of two (the lock was 3.1 of the ~44 statements of a completed
 * e2e instance in `bench pg`, docs/performance-log.md, thirty-second round). The lock is a CTE
 * that the INSERT's one row is joined to (LEFT JOIN: an event whose instance has no row is
 * inserted all the same, as before), so it is taken before the row is made, and with it the
 * `seq` its default draws: an admission that waits for the lock draws its seq after the one
 * holding it has committed, which keeps seq order the order in which the instance's events were
 * admitted (the plan: LockRows under the join, nextval in the join's output).
 */
const insertLockingInstance = reusableStatement((db, procInstId: string, ...values: unknown[]) => ({
  compile: () =>
    sql<{ seq: number | string }>`with locked as (select proc_inst_id from process_instances where proc_inst_id = ${procInstId} for update) insert into events (${sql.join(
      EVENT_COLUMNS.map((c) => sql.ref(c)),
    )}) select ${sql.join(values)} from (values (1)) as one left join locked on true returning seq`.compile(db),
}));

async function insertEventLockingInstance(db: Executor, row: Omit<EventRow, 'seq'>): Promise<number> {
  const [inserted] = (await insertLockingInstance(db, row.proc_inst_id, ...EVENT_COLUMNS.map((c) => row[c] ?? null))) as { seq: number | string }[];
  return Number(inserted.seq);
}

const selectEvent = reusableQuery((db, eventId: string) => db.selectFrom('events').selectAll().where('event_id', '=', eventId));

export async function findEvent(db: Executor, eventId: string): Promise<EventRow | undefined> {
  const held = heldEvent(db, eventId);
  if (held !== undefined) return { ...held };
  return (await selectEvent(db, eventId))[0];
}

/**
 * The event `eventId` and whether an earlier event of its instance is pending
 * (hasEarlierPendingEvent), in one statement instead of two: for a caller that holds the
 * instance's lock already, so that no other transaction can admit or apply an event of it
 * between the two reads (BatchApplier, for the events its own transaction admitted). On
 * PostgreSQL each statement is a round trip: this saves one per event applied in a group commit
 * (docs/performance-log.md, thirtieth round). A held event is in memory: only the earlier pending
 * ones are asked for; and a stored event's earlier ones may be held.
 */
export async function findEventAndEarlierPending(db: Executor, eventId: string): Promise<{ event: EventRow; earlierPending: boolean } | undefined> {
  const held = heldEvent(db, eventId);
  if (held !== undefined) {
    const event = { ...held };
    return { event, earlierPending: await hasEarlierPendingEvent(db, event) };
  }
  const [row] = (await selectEventAndEarlierPending(db, eventId)) as (EventRow & { earlier_pending: unknown })[];
  if (!row) return undefined;
  const { earlier_pending, ...event } = row;
  return { event, earlierPending: earlier_pending === true || earlier_pending === 1 || heldEarlierPending(db, event) };
}

const selectEventAndEarlierPending = reusableQuery((db, eventId: string) =>
  db
    .selectFrom('events as e')
    .selectAll('e')
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('events as p')
            .select('p.seq')
            .whereRef('p.proc_inst_id', '=', 'e.proc_inst_id')
            .where('p.status', '=', SENT)
            .where((w) => w.or([w('p.high_priority', '>', w.ref('e.high_priority')), w.and([w('p.high_priority', '=', w.ref('e.high_priority')), w('p.seq', '<', w.ref('e.seq'))])])),
        )
        .as('earlier_pending'),
    )
    .where('e.event_id', '=', eventId),
);

export async function listEventsOfInstance(db: Executor, procInstId: string): Promise<EventRow[]> {
  await flushHeldEvents(db, (row) => row.proc_inst_id === procInstId);
  return db.selectFrom('events').selectAll().where('proc_inst_id', '=', procInstId).orderBy('seq').execute();
}

/**
 * The next `Sent` events to apply: high-priority ones (cancel, suspend, resume) first, then in
 * admission order. Within one process instance this keeps FIFO order inside each priority class.
 */
export async function nextSentEvents(db: Executor, limit: number): Promise<EventRow[]> {
  const stored = await nextStoredSentEvents(db, limit);
  // Held events are not in the table yet: the first `limit` of both, in claim order.
  let merged: EventRow[] | null = null;
  for (const row of heldEvents(db)) if (row.status === 'Sent') (merged ??= [...stored]).push({ ...row });
  if (merged === null) return stored;
  return merged.sort((a, b) => b.high_priority - a.high_priority || a.seq - b.seq).slice(0, limit);
}

async function nextStoredSentEvents(db: Executor, limit: number): Promise<EventRow[]> {
  const inserted = insertedSentRows(db);
  if (inserted === undefined || inserted.size === 0) return selectNextSent(db, limit);
  // The events inserted in this transaction are the usual batch (the group commit's own, where
  // they are not held): their seqs from the partial index alone (covering), their rows from
  // memory. Any other (an older backlog, a row changed since) and the rows are read as before.
  const picked = await selectNextSentSeqs(db, limit);
  const rows = new Array<EventRow>(picked.length);
  for (let i = 0; i < picked.length; i++) {
    const row = inserted.get(picked[i].seq);
    if (row === undefined) return selectNextSent(db, limit);
    rows[i] = { ...row };
  }
  return rows;
}

const selectNextSent = reusableQueryPerLimit((db, limit) =>
  db.selectFrom('events').selectAll().where('status', '=', SENT).orderBy('high_priority', 'desc').orderBy('seq').limit(limit),
);

// SQLite: SCAN events USING COVERING INDEX events_pending (seq is the rowid).
const selectNextSentSeqs = reusableQueryPerLimit((db, limit) =>
  db.selectFrom('events').select('seq').where('status', '=', SENT).orderBy('high_priority', 'desc').orderBy('seq').limit(limit),
);

export async function countSentEvents(db: Executor): Promise<number> {
  let held = 0;
  for (const row of heldEvents(db)) if (row.status === 'Sent') held++;
  const r = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', SENT)
    .executeTakeFirstOrThrow();
  return Number(r.n) + held;
}

export async function updateEvent(db: Executor, eventId: string, patch: Updateable<EventsTable>): Promise<void> {
  const held = heldEvent(db, eventId);
  if (held !== undefined) {
    // A held event changes in memory: it is inserted once, as it ends up.
    if (Object.values(patch).every(isPlain)) return replaceHeldEvent(db, eventId, { ...held, ...(patch as Partial<EventRow>) });
    await flushHeldEvents(db, (row) => row.event_id === eventId);
  }
  forgetInsertedEvent(db, eventId);
  return updateEventRow(db, eventId, patch);
}

/** A value the row takes as it is (not an expression for the database to evaluate). */
function isPlain(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number';
}

const updateEventRow = reusableUpdate('events', 'event_id');

/** Mark the not-yet-applied events of an instance Canceled; returns their ids. */
export async function cancelPendingEventsOfInstance(db: Executor, procInstId: string, exceptEventId: string, now: number): Promise<string[]> {
  await noteEventWrite(db, procInstId, exceptEventId);
  const rows = await cancelPending(db, now, procInstId, exceptEventId);
  return rows.map((r) => r.event_id);
}

// Compiled once (reusableQuery.ts): every canceled instance runs it.
const cancelPending = reusableStatement((db, now: number, procInstId: string, exceptEventId: string) =>
  db
    .updateTable('events')
    .set({ status: sql.lit('Canceled'), end_date: now })
    .where('proc_inst_id', '=', procInstId)
    .where('status', 'in', [sql.lit('Sent'), sql.lit('Deferred')])
    .where('event_id', '!=', exceptEventId)
    .returning('event_id'),
);

/**
 * Claim up to `limit` Sent events for `nodeId`: unclaimed ones, our own, and those whose lease
 * ran out (their node died). With row locks, rows another node is claiming right now are skipped.
 * The claim is a lease: it records who holds it and since when.
 */
export async function claimEvents(
  db: Executor,
  rowLocks: boolean,
  nodeId: string,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<EventRow[]> {
  let pick = db
    .selectFrom('events')
    .select('seq')
    .where('status', '=', SENT)
    .where((eb) => eb.or([eb('claimed_by', 'is', null), eb('claimed_by', '=', nodeId), eb('claimed_at', '<', now - leaseMs)]))
    .orderBy('high_priority', 'desc')
    .orderBy('seq')
    .limit(literalLimit(limit));
  if (rowLocks) pick = pick.forUpdate().skipLocked();
  await flushHeldEvents(db);
  forgetInserted(db, () => true);
  const seqs = (await pick.execute()).map((r) => r.seq);
  if (seqs.length === 0) return [];
  const rows = await db
    .updateTable('events')
    .set({ claimed_by: nodeId, claimed_at: now })
    .where('seq', 'in', seqs)
    .returningAll()
    .execute();
  return rows.sort((a, b) => b.high_priority - a.high_priority || a.seq - b.seq);
}

/** Give back claims (shutdown, or an event that must wait for an earlier one). */
export async function releaseClaims(db: Executor, nodeId: string, eventIds?: string[]): Promise<void> {
  await flushHeldEvents(db);
  forgetInserted(db, () => true);
  let q = db.updateTable('events').set({ claimed_by: null, claimed_at: null }).where('claimed_by', '=', nodeId).where('status', '=', SENT);
  if (eventIds) {
    if (eventIds.length === 0) return;
    q = q.where('event_id', 'in', eventIds);
  }
  await q.execute();
}

/** Free claims whose lease ran out (the sweeper), or every claim (a single-node start). */
export async function releaseExpiredClaims(db: Executor, olderThan: number): Promise<number> {
  await flushHeldEvents(db);
  forgetInserted(db, () => true);
  const r = await db
    .updateTable('events')
    .set({ claimed_by: null, claimed_at: null })
    .where('status', '=', SENT)
    .where('claimed_at', '<', olderThan)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Whether an event of the same instance comes before this one in dispatch order and is not
 * applied yet: a higher-priority Sent event, or a Sent one of equal priority admitted earlier.
 */
export async function hasEarlierPendingEvent(db: Executor, e: EventRow): Promise<boolean> {
  if (heldEarlierPending(db, e)) return true;
  return (await selectEarlierPending(db, e.proc_inst_id, e.high_priority, e.high_priority, e.seq)).length > 0;
}

/** Whether `db` holds a Sent event of e's instance that comes before `e` in claim order. */
function heldEarlierPending(db: Executor, e: EventRow): boolean {
  for (const row of heldEvents(db)) {
    if (row.proc_inst_id === e.proc_inst_id && row.status === 'Sent' && (row.high_priority > e.high_priority || (row.high_priority === e.high_priority && row.seq < e.seq))) return true;
  }
  return false;
}

/**
 * A Sent event of the instance that comes before `seq` of `priority` in claim order: of a higher
 * priority, or of the same one and an earlier seq. One statement, compiled once, instead of one
 * per priority class: events_instance_pending is partial (Sent only), so the OR is checked over
 * the instance's few Sent events (SQLite: SEARCH ... USING COVERING INDEX events_instance_pending
 * (proc_inst_id=? AND status=?)).
 */
const selectEarlierPending = reusableQuery((db, procInstId: string, priority: number, samePriority: number, seq: number) =>
  db
    .selectFrom('events')
    .select('seq')
    .where('proc_inst_id', '=', procInstId)
    .where('status', '=', SENT)
    .where((eb) => eb.or([eb('high_priority', '>', priority), eb.and([eb('high_priority', '=', samePriority), eb('seq', '<', seq)])]))
    .limit(literalLimit(1)),
);

/**
 * Suspending an instance: its normal-priority events not yet applied wait (`Deferred`) until it is
 * resumed. High-priority events (cancel, suspend, resume) stay `Sent`.
 */
export async function deferSentEventsOfInstance(db: Executor, procInstId: string): Promise<string[]> {
  await noteEventWrite(db, procInstId);
  const rows = await db
    .updateTable('events')
    .set({ status: 'Deferred' })
    .where('proc_inst_id', '=', procInstId)
    .where('status', '=', SENT)
    .where('high_priority', '=', 0)
    .returning('event_id')
    .execute();
  return rows.map((r) => r.event_id);
}

/**
 * Resuming an instance: every `Deferred` event of it is `Sent` again, except the events of timers
 * that are still waiting for their time.
 */
export async function releaseDeferredEventsOfInstance(db: Executor, procInstId: string): Promise<string[]> {
  await noteEventWrite(db, procInstId);
  const rows = await db
    .updateTable('events')
    .set({ status: 'Sent' })
    .where('proc_inst_id', '=', procInstId)
    .where('status', '=', 'Deferred')
    .where('event_id', 'not in', (eb) =>
      eb.selectFrom('timers').select('timers.event_id').where('timers.proc_inst_id', '=', procInstId).where('timers.status', '=', 'Waiting'),
    )
    .returning('event_id')
    .execute();
  return rows.map((r) => r.event_id);
}

/** A timer fired: its `Deferred` event becomes `Sent`. False when the event is no longer Deferred. */
export async function sendDeferredEvent(db: Executor, eventId: string): Promise<boolean> {
  await flushHeldEvents(db, (row) => row.event_id === eventId);
  const r = await db
    .updateTable('events')
    .set({ status: 'Sent' })
    .where('event_id', '=', eventId)
    .where('status', '=', 'Deferred')
    .returning('proc_inst_id')
    .executeTakeFirst();
  if (r) await noteEventWrite(db, r.proc_inst_id);
  return r !== undefined;
}

/** Cancel the events `eventIds` that are still Deferred (the timers that would have sent them were canceled). */
export async function cancelDeferredEvents(db: Executor, eventIds: string[], now: number): Promise<void> {
  const ids = new Set(eventIds);
  await flushHeldEvents(db, (row) => ids.has(row.event_id));
  await db.updateTable('events').set({ status: 'Canceled', end_date: now }).where('event_id', 'in', eventIds).where('status', '=', 'Deferred').execute();
}

/**
 * The dispatcher's batch on a single writer (Dispatcher.ts) decides from the rows it selected
 * whether an event is still Sent and whether an earlier one of its instance is pending, instead
 * of reading the database again. That holds only while nothing but the dispatcher's own status
 * update of the event it applies has written the events of that instance since the selection.
 * So every function here that can turn an event Sent, or change a Sent one (insert a Sent event,
 * cancel, defer, release, send), notes the instance on the transaction it runs in when that
 * transaction is watched; the dispatcher reads the database again for the instances noted.
 * Writes that cannot touch a Sent event are not noted: inserting a Deferred event (a timer's),
 * canceling Deferred events (cancelDeferredEvents, for timers.ts), and the dispatcher's updateEvent of
 * the event it is applying. Notes are never removed: a savepoint rolled back leaves its notes,
 * which only costs a re-read.
 */
const eventWrites = new WeakMap<Executor, Set<string>>();

/** Start noting, on `trx`, the instances whose events this module writes; returns the set it fills. */
export function watchEventWrites(trx: Executor): Set<string> {
  const noted = new Set<string>();
  eventWrites.set(trx, noted);
  return noted;
}

/** Also inserts the instance's held events (but `except`) first: the statement that follows may change them. */
async function noteEventWrite(db: Executor, procInstId: string, except?: string): Promise<void> {
  eventWrites.get(db)?.add(procInstId);
  forgetInserted(db, (row) => row.proc_inst_id === procInstId);
  await flushHeldEvents(db, (row) => row.proc_inst_id === procInstId && row.event_id !== except);
}
