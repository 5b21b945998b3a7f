/**
 * Applies `Sent` events: claims them in order (high priority first, then admission order), runs
 * the handler of each EventName inside a savepoint of one batch transaction, and marks the event
 * Processed, or Failed with its Error. Re-reading the status inside the transaction makes a
 * handler run at most once per event even if an event is picked twice.
 */
import { sql, type Transaction } from 'kysely';
import { isWaymarkError } from '../domain/errors.ts';
import { insertAudit } from '../store/queries/audit.ts';
import { findEvent, nextSentEvents, updateEvent, type EventRow } from '../store/queries/events.ts';
import { findInstance, updateInstance } from '../store/queries/instances.ts';
import type { DB } from '../store/schema.ts';
import type { EngineDeps } from './context.ts';
import type { EventWaiters } from './EventWaiters.ts';
import { HANDLERS } from './handlers/index.ts';
import { AuditCategory, type RunContext } from './RunContext.ts';

/** Events per batch transaction: bounds how long one batch holds the single SQLite writer. */
const BATCH_SIZE = 64;
/** A technical failure (not a business rule) is retried this many times, then the event fails. */
const MAX_ATTEMPTS = 5;

export class Dispatcher {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: EngineDeps, private readonly waiters: EventWaiters) {}

  /** Ask for a pass over the Sent events (cheap to call often). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Let the current batch finish; no new ones start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    while (this.running) await this.running;
  }

  /** For tests and shutdown: resolve once no Sent event is left (or the dispatcher stopped). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        while (!this.stopped && (await this.runBatch()) > 0) await new Promise((r) => setImmediate(r));
      } while (this.again && !this.stopped);
    } catch (e) {
      this.deps.logger.error({ err: e }, 'dispatcher pass failed; retrying in 1 s');
      this.retryTimer = setTimeout(() => this.wake(), 1000);
      this.retryTimer.unref();
    }
  }

  private async runBatch(): Promise<number> {
    const finalized: string[] = [];
    let retry = false;
    const count = await this.deps.store.transaction(async (trx) => {
      const batch = await nextSentEvents(trx, BATCH_SIZE);
      for (const event of batch) {
        const outcome = await this.applyIsolated(trx, event, finalized);
        if (outcome === 'retry') retry = true;
      }
      return batch.length;
    });
    this.waiters.notify(finalized);
    if (retry) {
      this.retryTimer = setTimeout(() => this.wake(), 200);
      this.retryTimer.unref();
      return 0;
    }
    return count;
  }

  private async applyIsolated(trx: Transaction<DB>, event: EventRow, finalized: string[]): Promise<'done' | 'retry'> {
    await sql`savepoint apply`.execute(trx);
    try {
      const sideEffects = await this.apply(trx, event);
      await sql`release savepoint apply`.execute(trx);
      finalized.push(event.event_id, ...sideEffects);
      return 'done';
    } catch (e) {
      await sql`rollback to savepoint apply`.execute(trx);
      await sql`release savepoint apply`.execute(trx);
      return this.recordFailure(trx, event, e, finalized);
    }
  }

  /** Apply one event; returns the ids of other events it finalized. */
  private async apply(trx: Transaction<DB>, claimed: EventRow): Promise<string[]> {
    const event = await findEvent(trx, claimed.event_id);
    if (!event || event.status !== 'Sent') return [];
    const handler = HANDLERS.get(event.event_name);
    if (!handler) throw new Error(`No handler for event ${event.event_name}.`);
    const instance = await findInstance(trx, event.proc_inst_id);
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
    };
    await handler.apply(rc);
    await insertAudit(trx, rc.audit);
    await updateEvent(trx, event.event_id, { status: 'Processed', end_date: now, entries: event.entries + 1 });
    return rc.finalized;
  }

  private async recordFailure(trx: Transaction<DB>, event: EventRow, e: unknown, finalized: string[]): Promise<'done' | 'retry'> {
    const now = this.deps.now();
    const business = isWaymarkError(e);
    const attempts = event.entries + 1;
    if (!business && attempts < MAX_ATTEMPTS) {
      this.deps.logger.warn({ err: e, eventId: event.event_id, attempt: attempts }, 'event application failed; will retry');
      await updateEvent(trx, event.event_id, { entries: attempts });
      return 'retry';
    }
    if (!business) this.deps.logger.error({ err: e, eventId: event.event_id }, 'event failed after retries');
    const code = business ? e.code : 'InternalError';
    const message = business ? e.message : `The event could not be applied after ${attempts} attempts.`;
    await updateEvent(trx, event.event_id, { status: 'Failed', end_date: now, entries: attempts, error_code: code, error_message: message });
    await insertAudit(trx, {
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
    finalized.push(event.event_id);
    return 'done';
  }
}
