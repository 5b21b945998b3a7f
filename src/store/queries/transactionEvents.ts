/**
 * Events of the transaction under way, in memory (events.ts reads and writes through these).
 *
 * Held events. Inside a transaction opened by Store.transaction, a new event is not inserted when
 * it is admitted: it is held here, with the `seq` it will have, and inserted once, in the status
 * it has then, before the transaction commits (flushHeldEvents, called by Store.transaction). An
 * event admitted by a group commit and applied by the same commit (Dispatcher.inlineTail, the
 * usual case) was inserted as Sent — a row, its unique id, and entries in events_proc and the two
 * partial indexes of Sent events — and updated to Processed a moment later in the same
 * transaction, which took the entries out of the partial indexes again. Held, it is written once,
 * as Processed, and never enters the partial indexes (docs/performance-log.md, twentieth round on
 * SQLite's single writer; thirty-third round on PostgreSQL, where the UPDATE was also a round trip
 * of its own, 3.05 of the ~36 statements of a completed e2e instance).
 *
 * Its seq: on SQLite's single writer, one above every seq the table has given, read once per
 * transaction. Where several transactions write at once (PostgreSQL), drawn from the table's
 * sequence by a statement that first locks the event's instance (as the insert did before):
 * the seqs of one instance's events then follow the order in which their admissions got the
 * lock, which is the order the dispatcher keeps, and the lock is held until the commit inserts
 * the row, as it was when the row was inserted at once.
 *
 * What keeps that correct: every statement on the events table is in events.ts (and the LATERAL
 * read of lockFreeInstances, which merges the held rows, instances.ts), and each of them
 * either answers from the held rows too (findEvent, nextSentEvents, hasEarlierPendingEvent,
 * countSentEvents, updateEvent of a held event) or first inserts the held rows it could touch
 * (flushHeldEvents with a filter), so that no statement ever misses a held event. A savepoint
 * rolled back undoes what it did to the held rows (the journal below), as the database undoes its
 * rows. A transaction not opened by Store.transaction holds nothing: its events are inserted at
 * once, so no path can commit with events left in memory.
 *
 * Inserted Sent events. The Sent events inserted in a transaction, as inserted, by seq:
 * nextSentEvents answers the dispatcher's batch from these rows and the seqs of the partial index
 * alone, instead of reading every row of the batch again (thirteenth round). A row is forgotten as
 * soon as a statement may change it; a seq not remembered sends the batch to the full read. A
 * savepoint rolled back may leave a row remembered whose insert it undid: its seq is then not Sent
 * in the table (never picked), or the row is inserted again later, which replaces it here.
 */
import { sql, type Selectable } from 'kysely';
import { capsOf } from '../dialect.ts';
import { hasDirectWriter, insertChunks, reusableInsertRows, reusableStatement, selectFixed } from '../reusableQuery.ts';
import type { EventsTable } from '../schema.ts';
import type { Executor } from '../Store.ts';

type EventRow = Selectable<EventsTable>;

interface Held {
  /** event_id -> the row as it will be inserted; rows are replaced, never changed in place. */
  rows: Map<string, EventRow>;
  /** The seq the next held event gets (null: not read yet in this transaction). */
  nextSeq: number | null;
  /** While a savepoint is open: how to undo each change to `rows`, newest last. */
  undo: Array<() => void> | null;
  /** Savepoints open. */
  depth: number;
  /** Changes to `rows` so far (held events are writes that total_changes() does not see yet). */
  changes: number;
}

const held = new WeakMap<object, Held>();

/** Events are held in `trx` from now on (Store.transaction: SQLite's single writer, and PostgreSQL). */
export function startHolding(trx: Executor): void {
  if (trx.isTransaction && (hasDirectWriter(trx) || capsOf(trx)?.rowLocks)) held.set(trx, { rows: new Map(), nextSeq: null, undo: null, depth: 0, changes: 0 });
}

/** Whether `db` holds its new events (then holdEvent is how they are stored). */
export function holdsEvents(db: Executor): boolean {
  return held.has(db);
}

/**
 * Hold a new event of `db` and answer its seq. On SQLite's single writer: one above every seq the
 * table has given (its sqlite_sequence, as AUTOINCREMENT keeps it) or holds, read once per
 * transaction; seqs of held events a rolled-back savepoint dropped are not given again: a gap, as
 * a deleted event leaves. Where row locks exist: drawn after the event's instance is locked.
 */
export async function holdEvent(db: Executor, row: Omit<EventRow, 'seq'>): Promise<number> {
  const h = held.get(db)!;
  let seq: number;
  if (capsOf(db)?.rowLocks) {
    const ahead = predrawn.get(db);
    const early = ahead?.get(row.proc_inst_id);
    if (early !== undefined) ahead!.delete(row.proc_inst_id);
    // An instance this transaction inserted takes every seq from the blocks, in the order they are
    // handed out (a seq drawn by a read could be above one the block hands out after it).
    if (newInstances.get(db)?.has(row.proc_inst_id)) seq = await seqFromBlock(db);
    else if (early !== undefined) seq = early;
    else seq = Number(((await drawSeqLockingInstance(db, row.proc_inst_id)) as { seq: number | string }[])[0].seq);
  } else {
    if (h.nextSeq === null) {
      const [top] = (await selectFixed(db, NEXT_SEQ)) as { seq: number | bigint }[];
      h.nextSeq = Number(top.seq) + 1;
    }
    seq = h.nextSeq++;
  }
  setRow(h, row.event_id, { seq, ...row });
  return seq;
}

const NEXT_SEQ = `select max(coalesce((select "seq" from "sqlite_sequence" where "name" = 'events'), 0), coalesce((select max("seq") from "events"), 0)) as "seq"`;

/**
 * The instance's row locked and the event's seq drawn from the table's sequence, in one
 * statement: the lock is a CTE that the one row is joined to (LEFT JOIN: an event whose instance
 * has no row gets its seq all the same), so it is taken before `nextval` runs in the join's
 * output, and an admission that waits for the lock draws its seq after the holder has committed.
 */
const drawSeqLockingInstance = reusableStatement((db, procInstId: string) => ({
  compile: () =>
    sql<{ seq: number | string }>`with locked as (select proc_inst_id from process_instances where proc_inst_id = ${procInstId} for update) select nextval(pg_get_serial_sequence('events', 'seq')) as seq from (values (1)) as one left join locked on true`.compile(db),
}));

/**
 * Seqs drawn by an admission's read, after it locked the instance (workItemWithContext.ts, the
 * work-item calls on PostgreSQL): the read, the lock and the draw are one round trip instead of
 * two (docs/performance-log.md, thirty-fourth round). The next event this transaction stores for
 * that instance takes it: no seq of the instance is drawn in between, since whichever event comes
 * next takes this one, and the lock is held from the draw to the commit, as drawSeqLockingInstance
 * holds it. Forgotten when a savepoint is rolled back (savepoint.ts): the lock may go with it.
 */
const predrawn = new WeakMap<Executor, Map<string, number>>();

/** `seq` was drawn by `db` after it locked `procInstId`'s row: its next event of that instance takes it. */
export function notePredrawnSeq(db: Executor, procInstId: string, seq: number): void {
  let seqs = predrawn.get(db);
  if (!seqs) predrawn.set(db, (seqs = new Map()));
  seqs.set(procInstId, seq);
}

/** A savepoint of `db` was rolled back: the locks its predrawn seqs relied on may be gone. */
export function forgetPredrawnSeqs(db: Executor): void {
  predrawn.delete(db);
}

/**
 * The draw of a seq once the row of `locked` (a CTE of the statement that locks an instance) is
 * locked: `nextval` runs in the projection of the CTE's row (workItemWithContext.ts).
 */
export const SEQ_AFTER_LOCK = `(select nextval(pg_get_serial_sequence('events', 'seq')) from locked)`;

/**
 * Instances this transaction inserted (instances.ts), where row locks exist: no other transaction
 * can see them, let alone admit an event of theirs, before this one commits, so their events need
 * no lock to keep their seqs in admission order. Such an event takes its seq from a block drawn
 * ahead for the database (one round trip per SEQ_BLOCK events instead of one each: the
 * CreateProcessInstance event of every CreateProcInst, 1 of the ~32 round trips of a completed e2e
 * instance, docs/performance-log.md, thirty-third round). Every seq of a block was drawn before
 * any that a transaction draws after it, so an event of the instance admitted after this
 * transaction commits still gets a greater seq; across instances seq order was never the order of
 * the commits, which concurrent transactions interleave anyway. Forgotten when a savepoint is
 * rolled back (savepoint.ts): the instance's insert may be undone with it.
 */
const newInstances = new WeakMap<Executor, Set<string>>();

/** `procInstId` was inserted by the transaction `db`. */
export function noteNewInstance(db: Executor, procInstId: string): void {
  if (!db.isTransaction || !capsOf(db)?.rowLocks) return;
  let ids = newInstances.get(db);
  if (!ids) newInstances.set(db, (ids = new Set()));
  ids.add(procInstId);
}

/** A savepoint of `db` was rolled back: the instances it inserted may be gone. */
export function forgetNewInstances(db: Executor): void {
  newInstances.delete(db);
}

/**
 * Seqs drawn a block at a time, per database (its adapter), largest first, with when they were
 * drawn and the last one handed out. A block is used for SEQ_BLOCK_MS at most: the dispatchers
 * take Sent events by seq, and a seq drawn long ago would put a new event ahead of a backlog
 * admitted since (fairness, not correctness); under load a block lasts a fraction of a second.
 *
 * Seqs are handed out in increasing order, across blocks too: a transaction's events of its new
 * instance must get increasing seqs. Two transactions may draw a block at once, and the answer of
 * the draw that ran first (the lower seqs) may arrive last; so a seq at or below the last one
 * handed out is skipped (a gap), and a draw that has nothing above it is made again.
 */
const SEQ_BLOCK = 64;
const SEQ_BLOCK_MS = 5_000;
const seqBlocks = new WeakMap<object, { seqs: number[]; drawnAt: number; last: number }>();
const DRAW_BLOCK = `select nextval(pg_get_serial_sequence('events', 'seq')) as seq from generate_series(1, ${SEQ_BLOCK})`;

async function seqFromBlock(db: Executor): Promise<number> {
  const adapter = db.getExecutor().adapter;
  for (;;) {
    const block = seqBlocks.get(adapter);
    if (block && Date.now() - block.drawnAt <= SEQ_BLOCK_MS) {
      while (block.seqs.length > 0) {
        const seq = block.seqs.pop()!;
        if (seq > block.last) return (block.last = seq);
      }
    }
    const drawn = ((await selectFixed(db, DRAW_BLOCK)) as { seq: number | string }[]).map((r) => Number(r.seq));
    // Another transaction of this node may have handed out seqs meanwhile, from a block it drew.
    const last = seqBlocks.get(adapter)?.last ?? 0;
    const above = drawn.filter((seq) => seq > last).sort((a, b) => b - a);
    if (above.length === 0) continue;
    const seq = above.pop()!;
    seqBlocks.set(adapter, { seqs: above, drawnAt: Date.now(), last: seq });
    return seq;
  }
}

/**
 * Of `stored` (the instance's first Sent event in the table, or null) and the Sent events of the
 * instance held in `db`, the first in claim order (high priority first, then by seq).
 */
export function firstSentWithHeld(db: Executor, procInstId: string, stored: EventRow | null): EventRow | null {
  let first = stored;
  for (const row of heldEvents(db)) {
    if (row.proc_inst_id !== procInstId || row.status !== 'Sent') continue;
    if (first === null || row.high_priority > first.high_priority || (row.high_priority === first.high_priority && row.seq < first.seq)) first = { ...row };
  }
  return first;
}

/** The held event `eventId` of `db`, if it is held. */
export function heldEvent(db: Executor, eventId: string): EventRow | undefined {
  return held.get(db)?.rows.get(eventId);
}

/** The held events of `db` (none where nothing is held). */
export function heldEvents(db: Executor): Iterable<EventRow> {
  return held.get(db)?.rows.values() ?? [];
}

/** Replace the held event `eventId` of `db` with `row` (the same event, changed). */
export function replaceHeldEvent(db: Executor, eventId: string, row: EventRow): void {
  setRow(held.get(db)!, eventId, row);
}

/** Changes to the held events of `db` so far: with total_changes(), every write of the transaction (savepoint.ts changesSoFar). */
export function heldEventChanges(db: Executor): number {
  return held.get(db)?.changes ?? 0;
}

function setRow(h: Held, eventId: string, row: EventRow): void {
  h.changes++;
  const old = h.rows.get(eventId);
  h.rows.set(eventId, row);
  h.undo?.push(old === undefined ? () => void h.rows.delete(eventId) : () => void h.rows.set(eventId, old));
}

function dropRow(h: Held, row: EventRow): void {
  h.rows.delete(row.event_id);
  h.undo?.push(() => void h.rows.set(row.event_id, row));
}

const insertEventRows = reusableInsertRows('events');

/**
 * Insert the held events of `db` (those `which` picks; all without it), in seq order, and stop
 * holding them. Store.transaction calls it before every commit; events.ts before each statement
 * that could see a held row.
 */
export async function flushHeldEvents(db: Executor, which?: (row: EventRow) => boolean): Promise<void> {
  const h = held.get(db);
  if (h === undefined || h.rows.size === 0) return;
  const rows: EventRow[] = [];
  for (const row of h.rows.values()) if (which === undefined || which(row)) rows.push(row);
  rows.sort((a, b) => a.seq - b.seq);
  // In chunks of 64, 16 and the rest (64 rows x 26 columns stays far below SQLite's limit on bound
  // parameters). A chunk leaves the held rows only once it is inserted: a statement that fails
  // undoes itself, and its rows stay held (and undone with the savepoint or transaction that fails).
  for (const chunk of insertChunks(rows)) {
    await insertEventRows(db, chunk);
    for (const row of chunk) {
      dropRow(h, row);
      if (row.status === 'Sent') rememberInserted(db, row.seq, row);
    }
  }
}

/** Savepoint `savepoint.ts` opens on `db`: a mark to release or roll back to (null: nothing held there). */
export function markHeldEvents(db: Executor): number | null {
  const h = held.get(db);
  if (h === undefined) return null;
  h.depth++;
  h.undo ??= [];
  return h.undo.length;
}

/** The savepoint of `mark` ended: released (its changes stay), or rolled back (undone). */
export function endHeldSavepoint(db: Executor, mark: number | null, rolledBack: boolean): void {
  const h = held.get(db);
  if (mark === null || h === undefined || h.undo === null) return;
  if (rolledBack) while (h.undo.length > mark) h.undo.pop()!();
  if (--h.depth === 0) h.undo = null;
}

const insertedSent = new WeakMap<Executor, InsertedSent>();

interface InsertedSent {
  bySeq: Map<number, EventRow>;
  /** event_id -> seq of the rows in bySeq: the applier forgets each event it updates. */
  seqOf: Map<string, number>;
}

/** The Sent events inserted in `db` and not changed since, by seq (undefined: none). */
export function insertedSentRows(db: Executor): ReadonlyMap<number, EventRow> | undefined {
  return insertedSent.get(db)?.bySeq;
}

/** An event was inserted in `db` with `seq`: `row` if it is Sent, null if not. */
export function rememberInserted(db: Executor, seq: number, row: EventRow | null): void {
  let inserted = insertedSent.get(db);
  if (row === null) {
    const old = inserted?.bySeq.get(seq);
    if (old !== undefined) forgetInsertedEvent(db, old.event_id);
    return;
  }
  if (inserted === undefined) insertedSent.set(db, (inserted = { bySeq: new Map(), seqOf: new Map() }));
  const replaced = inserted.bySeq.get(seq);
  if (replaced !== undefined) inserted.seqOf.delete(replaced.event_id);
  inserted.bySeq.set(seq, row);
  inserted.seqOf.set(row.event_id, seq);
}

export function forgetInsertedEvent(db: Executor, eventId: string): void {
  const inserted = insertedSent.get(db);
  const seq = inserted?.seqOf.get(eventId);
  if (inserted === undefined || seq === undefined) return;
  inserted.seqOf.delete(eventId);
  inserted.bySeq.delete(seq);
}

export function forgetInserted(db: Executor, which: (row: EventRow) => boolean): void {
  const inserted = insertedSent.get(db);
  if (inserted === undefined) return;
  for (const [seq, row] of inserted.bySeq) {
    if (!which(row)) continue;
    inserted.bySeq.delete(seq);
    inserted.seqOf.delete(row.event_id);
  }
}
