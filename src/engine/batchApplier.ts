/**
 * What one apply transaction of the dispatcher does with its events (Dispatcher.ts decides when
 * batches run, claims them where nodes share the database, and applies them at the end of group
 * commits): each event rechecked (still Sent, no earlier event of its instance pending), its
 * handler run, the event marked Processed — or, when it fails, retried or marked Failed with its
 * Error — and the batch's audit rows written together. On a single writer the batch runs as a
 * whole first, guarded by its transaction (applyBatch).
 */
import type { Insertable, Transaction } from 'kysely';
import { isTransientDbError } from '../domain/dbErrors.ts';
import { isWaymarkError } from '../domain/errors.ts';
import { insertAudit } from '../store/queries/audit.ts';
import { nextSentEvents, updateEvent, watchEventWrites, type EventRow } from '../store/queries/events.ts';
import { findInstance, lockFreeInstances, updateInstance } from '../store/queries/instances.ts';
import type { AuditTrailTable, DB } from '../store/schema.ts';
import { recheck, type Batch } from './eventRecheck.ts';
import { inSavepoint } from '../store/savepoint.ts';
import type { EngineDeps } from './context.ts';
import { HANDLERS } from './handlers/index.ts';
import { flushInstanceWrites, newInstanceWrites } from './instanceWrites.ts';
import { AuditCategory, type RunContext } from './RunContext.ts';

/** Events per batch: bounds how long one batch holds the single SQLite writer. */
export const BATCH_SIZE = 64;
/** A technical failure (not a business rule) is retried this many times, then the event fails. */
const MAX_ATTEMPTS = 5;
/** After a batch applied as a whole had a failing event, this many batches have a savepoint per event. */
const ISOLATED_AFTER_FAILURE = 16;
/** Where nodes share the database, the ids of events that reached a final status are announced here. */
export const FINAL_CHANNEL = 'waymark_final';

type Outcome = 'done' | 'retry' | 'later';

/**
 * A batch applied as a whole in a transaction that guards it (`unguarded`, see applyBatch) had an
 * event that failed: the caller rolls the transaction back and applies the batch again; the next
 * ISOLATED_AFTER_FAILURE batches have a savepoint per event.
 */
export class WholeBatchFailed extends Error {
  constructor(readonly reason: unknown) {
    super(`an event of a batch applied as a whole failed: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.name = 'WholeBatchFailed';
  }
}

export class BatchApplier {
  /** Batches left to apply with a savepoint per event from the start (see applyBatch). */
  private isolatedBatchesLeft = 0;

  /** `nodeId`: the claims this node holds (where nodes share the database). */
  constructor(
    private readonly deps: EngineDeps,
    private readonly nodeId: string,
  ) {}

  /**
   * Applies `claimed` events, or the next Sent ones (single writer: null), inside `trx`.
   *
   * On a single writer the batch is first applied as a whole, in one savepoint, and only if one of
   * its events fails is that undone and the batch applied again with a savepoint per event (the
   * failing event then fails alone, the others hold). A savepoint copies every page its statements
   * change, the first time each, into SQLite's sub-journal: one per event copied most pages an
   * event touches (the instance's, the work items', the indexes') once per event: without any
   * savepoint (an unsafe experiment) the writer thread used 16-23 % less CPU in `bench e2e`, with
   * this 13-16 % less (docs/performance-log.md, seventh round). Events that fail when applied are rare
   * (admission refuses what it can tell); after a batch that had one, the next
   * ISOLATED_AFTER_FAILURE batches start with a savepoint per event, so a load where failures are
   * common does not pay every batch twice.
   *
   * A claimed batch (nodes sharing PostgreSQL) is applied the same way since the thirty-first
   * round: there a savepoint per event was two round trips (SAVEPOINT, RELEASE) of the 11
   * statements an event cost the dispatcher alone (`bench pg`, docs/performance-log.md). The
   * claims were committed before, so undoing the batch's savepoint leaves them held, and the
   * second pass reads every row afresh (a new Batch).
   *
   * `unguarded`: the caller's transaction is the batch's undo — it is rolled back and the batch
   * applied again (WholeBatchFailed) should an event fail — so the whole batch, even a single
   * event, runs without a savepoint of its own: that savepoint still copied every page the batch
   * changed into the sub-journal, 2.6 % of the writer thread's instructions in `bench
   * instructions-e2e` with the job savepoints (twenty-seventh round, docs/performance-log.md).
   */
  async applyBatch(trx: Transaction<DB>, claimed: EventRow[] | null, opts: { unguarded?: boolean } = {}): Promise<PartResult> {
    const { store } = this.deps;
    const events = claimed ?? (await nextSentEvents(trx, BATCH_SIZE));
    let pass: PartResult | null = null;
    const whole = this.isolatedBatchesLeft === 0 && events.length > (opts.unguarded ? 0 : 1);
    if (whole && opts.unguarded) {
      try {
        pass = await this.applyEach(this.newBatch(trx, claimed), events, false);
      } catch (error) {
        this.isolatedBatchesLeft = ISOLATED_AFTER_FAILURE;
        throw new WholeBatchFailed(error);
      }
    } else if (whole) {
      const applied = await inSavepoint(trx, () => this.applyEach(this.newBatch(trx, claimed), events, false));
      if (applied.ok) pass = applied.value;
      else this.isolatedBatchesLeft = ISOLATED_AFTER_FAILURE;
    } else if (this.isolatedBatchesLeft > 0) {
      this.isolatedBatchesLeft--;
    }
    pass ??= await this.applyEach(this.newBatch(trx, claimed), events, true);
    // The batch's audit rows in one statement (chunked by insertAudit), in the events' order.
    await insertAudit(trx, pass.batch.audit);
    if (store.caps.sharedByNodes) await this.announce(trx, pass.batch.finalized);
    return pass;
  }

  /**
   * Where nodes share the database: applies, before the group commit that admitted them commits,
   * the events its jobs admitted (Dispatcher.inlineTail). With `together`, all of them in the
   * caller's savepoint, a failure thrown (the caller rolls back and applies them again without
   * `together`); otherwise each in a savepoint of its own, as a claimed batch is: two round trips
   * per event (SAVEPOINT, RELEASE), 6 of the ~58 statements of a completed e2e instance on
   * PostgreSQL (docs/performance-log.md, thirtieth round). Admission locked each event's instance
   * already (insertEvent); the rows are read again with SKIP LOCKED (lockFreeInstances), so that
   * nothing here ever waits for a lock: an instance whose lock went with a rolled-back savepoint
   * and is someone else's now is left to the dispatchers. Each event is rechecked as a claimed
   * one is (still Sent, no earlier event of its instance pending), but nobody holds a claim on
   * it: no other transaction can see it before this one commits. The first event of each instance
   * is rechecked from the instance's first Sent event, read with its row (recheck); since the
   * thirty-second round that saves a statement per event, 3 of the ~39 of a completed e2e
   * instance (docs/performance-log.md).
   * Why: on PostgreSQL an admitted event waited for a notification, a claim (a commit of its
   * own) and an apply transaction (another), so a call with `Prefer: wait` took three commits
   * and two wake-ups (docs/performance-log.md, twenty-first round).
   */
  async applyAdmitted(trx: Transaction<DB>, admitted: readonly EventRow[], opts: { together?: boolean } = {}): Promise<PartResult> {
    const locked = await lockFreeInstances(trx, [...new Set(admitted.map((e) => e.proc_inst_id))]);
    const free = new Map(locked.map(({ instance }) => [instance.proc_inst_id, instance]));
    const events = admitted.filter((e) => free.has(e.proc_inst_id));
    const batch: Batch = {
      ...this.newBatch(trx, events),
      own: free,
      firstSent: { rows: new Map(locked.map(({ instance, firstSent }) => [instance.proc_inst_id, firstSent])), eventWrites: watchEventWrites(trx) },
    };
    const pass = await this.applyEach(batch, events, !opts.together);
    await insertAudit(trx, pass.batch.audit);
    await this.announce(trx, pass.batch.finalized);
    return { ...pass, waitALittle: pass.waitALittle || events.length < admitted.length };
  }

  /**
   * Whether the next batch of admitted events (applyAdmitted) is first applied together: yes
   * unless one applied together failed within the last ISOLATED_AFTER_FAILURE batches, so that a
   * load where failures are common does not pay every batch twice.
   */
  takeTogetherTurn(): boolean {
    if (this.isolatedBatchesLeft === 0) return true;
    this.isolatedBatchesLeft--;
    return false;
  }

  /** A batch applied together failed (its caller applies it again, a savepoint per event). */
  togetherFailed(): void {
    this.isolatedBatchesLeft = ISOLATED_AFTER_FAILURE;
  }

  private newBatch(trx: Transaction<DB>, claimed: EventRow[] | null): Batch {
    return { trx, finalized: [], rows: new Map(), audit: [], single: claimed ? null : { eventWrites: watchEventWrites(trx), stillSent: new Set() }, own: null, firstSent: null };
  }

  /**
   * Applies `events` in order into `batch`: each in a savepoint of its own (`isolated`), where a
   * failure is recorded on the event; or all in the caller's savepoint, where a failure is thrown.
   */
  private async applyEach(batch: Batch, events: EventRow[], isolated: boolean): Promise<PartResult> {
    let applied = 0;
    let waitALittle = false;
    for (const event of events) {
      if ((isolated ? await this.applyIsolated(batch, event) : await this.applyTogether(batch, event)) === 'done') {
        applied++;
      } else {
        waitALittle = true;
        batch.single?.stillSent.add(event.proc_inst_id);
      }
    }
    return { batch, applied, waitALittle };
  }

  private async announce(trx: Transaction<DB>, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 200) await this.deps.store.notify(trx, FINAL_CHANNEL, ids.slice(i, i + 200).join(','));
  }

  /** Apply one event in a savepoint; its audit rows and finalized ids join the batch only if it holds. */
  private async applyIsolated(batch: Batch, event: EventRow): Promise<Outcome> {
    const own: Applied = { audit: [], finalized: [] };
    const result = await inSavepoint(batch.trx, () => this.apply(batch, event, own));
    if (!result.ok) return this.recordFailure(batch, event, result.error);
    joinBatch(batch, own);
    return result.value;
  }

  /** Apply one event in the savepoint of its whole batch: a failure is thrown, undoing the batch. */
  private async applyTogether(batch: Batch, event: EventRow): Promise<Outcome> {
    const own: Applied = { audit: [], finalized: [] };
    const outcome = await this.apply(batch, event, own);
    joinBatch(batch, own);
    return outcome;
  }

  private async apply(batch: Batch, selected: EventRow, own: Applied): Promise<Outcome> {
    const { trx } = batch;
    const checked = await recheck(batch, selected, this.nodeId, this.deps.store);
    if (checked === 'skip') return 'done';
    if (checked === 'later') return 'later';
    const { event } = checked;
    const handler = HANDLERS.get(event.event_name);
    if (!handler) throw new Error(`No handler for event ${event.event_name}.`);
    const instance = checked.locked ? checked.instance : await findInstance(trx, event.proc_inst_id);
    if (!instance) throw new Error(`Event ${event.event_id} names missing instance ${event.proc_inst_id}.`);
    const now = this.deps.now();
    const rc: RunContext = {
      deps: this.deps,
      trx,
      now,
      event,
      instance,
      model: await this.deps.models.get(trx, instance.def_id),
      finalized: [],
      audit: [],
      writes: newInstanceWrites(),
    };
    await handler.apply(rc);
    await flushInstanceWrites(rc);
    const final = { status: 'Processed', end_date: now, entries: event.entries + 1, ...this.unclaim(batch) } as const;
    await updateEvent(trx, event.event_id, final);
    // The row as the update leaves it (no handler writes the event it is applied for): waiters in
    // this process answer from it once the batch commits.
    own.row = { ...event, ...final };
    own.audit = rc.audit;
    own.finalized = [event.event_id, ...rc.finalized];
    return 'done';
  }

  /** With leases, an event leaves its claim when it is finished; a single writer never claims. */
  private unclaim(batch: Batch): { claimed_by?: null; claimed_at?: null } {
    return batch.single ? {} : { claimed_by: null, claimed_at: null };
  }

  private async recordFailure(batch: Batch, event: EventRow, e: unknown): Promise<Outcome> {
    const { trx } = batch;
    const now = this.deps.now();
    const business = isWaymarkError(e);
    const attempts = event.entries + 1;
    if (!business && (isTransientDbError(e) || attempts < MAX_ATTEMPTS)) {
      this.deps.logger.warn({ err: e, eventId: event.event_id, attempt: attempts }, 'event application failed; will retry');
      await updateEvent(trx, event.event_id, { entries: isTransientDbError(e) ? event.entries : attempts, ...this.unclaim(batch) });
      return 'retry';
    }
    if (!business) this.deps.logger.error({ err: e, eventId: event.event_id }, 'event failed after retries');
    const code = business ? e.code : 'InternalError';
    const message = business ? e.message : `The event could not be applied after ${attempts} attempts.`;
    await updateEvent(trx, event.event_id, {
      status: 'Failed', end_date: now, entries: attempts, error_code: code, error_message: message, ...this.unclaim(batch),
    });
    batch.audit.push({
      category: AuditCategory.ProcessInstance,
      date_occurred: now,
      description: `${event.event_name} failed: ${message}`,
      object_id: event.proc_inst_id,
      object_info: event.proc_inst_name,
      performer: event.sender,
      purpose: event.event_name,
      status: 1,
      event_id: event.event_id,
    });
    if (event.event_name === 'CreateProcessInstance') {
      await updateInstance(trx, event.proc_inst_id, { incident: message, last_modified_date: now });
    }
    batch.finalized.push(event.event_id);
    return 'done';
  }
}

function joinBatch(batch: Batch, own: Applied): void {
  batch.audit.push(...own.audit);
  batch.finalized.push(...own.finalized);
  if (own.row) batch.rows.set(own.row.event_id, own.row);
}

/** What one apply transaction did. */
export interface PartResult {
  batch: Batch;
  applied: number;
  waitALittle: boolean;
}

/** What an applied event adds to its batch, once its savepoint is released. */
interface Applied {
  audit: Insertable<AuditTrailTable>[];
  finalized: string[];
  row?: EventRow;
}
