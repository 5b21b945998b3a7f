/**
 * Applies `Sent` events. A pass claims a batch (a lease: who, since when), then applies each event
 * in a savepoint of one transaction: lock the instance's row, skip an event whose instance still
 * has an earlier event pending (per-instance order across nodes), run the handler for its
 * EventName, mark it Processed — or Failed with its Error. The status is re-read inside the
 * transaction, so an event picked twice is applied once: delivery is at-least-once, the
 * observable result exactly-once. Notifications only wake passes early; polling is the mechanism.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Transaction } from 'kysely';
import { isTransientDbError } from '../domain/dbErrors.ts';
import { isWaymarkError } from '../domain/errors.ts';
import { insertAudit } from '../store/queries/audit.ts';
import {
  claimEvents,
  findEvent,
  hasEarlierPendingEvent,
  releaseClaims,
  releaseExpiredClaims,
  updateEvent,
  type EventRow,
} from '../store/queries/events.ts';
import { findInstance, updateInstance } from '../store/queries/instances.ts';
import type { DB } from '../store/schema.ts';
import { inSavepoint } from '../store/savepoint.ts';
import type { EngineDeps } from './context.ts';
import type { EventWaiters } from './EventWaiters.ts';
import { HANDLERS } from './handlers/index.ts';
import { AuditCategory, type RunContext } from './RunContext.ts';

/** Events per batch: bounds how long one batch holds the single SQLite writer. */
const BATCH_SIZE = 64;
/** A technical failure (not a business rule) is retried this many times, then the event fails. */
const MAX_ATTEMPTS = 5;
/** Default lease: a claim older than this is free for any node, its holder presumed dead. */
export const CLAIM_LEASE_MS = 30_000;
/** Idle polling interval: the real mechanism behind the wake-ups. */
const POLL_MS = 500;
export const SENT_CHANNEL = 'waymark_sent';
export const FINAL_CHANNEL = 'waymark_final';

type Outcome = 'done' | 'retry' | 'later';

export class Dispatcher {
  readonly nodeId = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private backoffMs = 0;

  constructor(
    private readonly deps: EngineDeps,
    private readonly waiters: EventWaiters,
    private readonly leaseMs = CLAIM_LEASE_MS,
  ) {}

  /** Begin polling; on a database no other node uses, free every leftover claim first. */
  async start(): Promise<void> {
    this.stopped = false;
    const store = this.deps.store;
    if (!store.caps.sharedByNodes) await releaseExpiredClaims(store.db, Number.MAX_SAFE_INTEGER);
    store.listen(SENT_CHANNEL, () => this.wake());
    store.listen(FINAL_CHANNEL, (ids) => this.waiters.notify(ids.split(',')));
    this.sweeper = setInterval(() => void this.sweep(), Math.max(this.leaseMs / 3, 100));
    this.sweeper.unref();
    this.wake();
  }

  /** The sweeper: frees claims whose lease ran out, so that they show as unclaimed again. */
  private async sweep(): Promise<void> {
    try {
      const freed = await releaseExpiredClaims(this.deps.store.db, this.deps.now() - this.leaseMs);
      if (freed > 0) this.deps.logger.warn({ freed }, 'freed expired event claims (a node stopped mid-batch)');
      if (freed > 0) this.wake();
    } catch (e) {
      this.deps.logger.warn({ err: e }, 'claim sweeper failed');
    }
  }

  /** Ask for a pass over the Sent events (cheap to call often). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
      this.schedule(this.backoffMs || POLL_MS);
    });
  }

  /** Let the current batch finish, give back unapplied claims; no new passes start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    while (this.running) await this.running;
    await releaseClaims(this.deps.store.db, this.nodeId).catch(() => {});
  }

  /** Resolve once the current pass (and any pass it asked for) is over. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), ms);
    this.timer.unref();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        while (!this.stopped && (await this.runBatch()) > 0) await new Promise((r) => setImmediate(r));
      } while (this.again && !this.stopped);
      this.backoffMs = 0;
    } catch (e) {
      this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 250), 10_000);
      this.deps.logger.error({ err: e, retryInMs: this.backoffMs }, 'dispatcher pass failed; backing off');
    }
  }

  /** One claim and one apply transaction; returns how many events it applied. */
  private async runBatch(): Promise<number> {
    const { store } = this.deps;
    const now = this.deps.now();
    const claimed = await store.transaction((trx) => claimEvents(trx, store.caps.rowLocks, this.nodeId, now, this.leaseMs, BATCH_SIZE));
    if (claimed.length === 0) return 0;
    const finalized: string[] = [];
    let applied = 0;
    let waitALittle = false;
    await store.transaction(async (trx) => {
      for (const event of claimed) {
        const outcome = await this.applyIsolated(trx, event, finalized);
        if (outcome === 'done') applied++;
        else waitALittle = true;
      }
      if (store.caps.sharedByNodes) await this.announce(trx, finalized);
    });
    this.waiters.notify(finalized);
    if (waitALittle) {
      this.backoffMs = 50;
      return 0;
    }
    return applied;
  }

  private async announce(trx: Transaction<DB>, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 200) await this.deps.store.notify(trx, FINAL_CHANNEL, ids.slice(i, i + 200).join(','));
  }

  private async applyIsolated(trx: Transaction<DB>, event: EventRow, finalized: string[]): Promise<Outcome> {
    const result = await inSavepoint(trx, () => this.apply(trx, event, finalized));
    return result.ok ? result.value : this.recordFailure(trx, event, result.error, finalized);
  }

  private async apply(trx: Transaction<DB>, claimed: EventRow, finalized: string[]): Promise<Outcome> {
    const { store } = this.deps;
    const event = await findEvent(trx, claimed.event_id);
    if (!event || event.status !== 'Sent' || event.claimed_by !== this.nodeId) return 'done';
    await store.lockInstance(trx, event.proc_inst_id);
    if (await hasEarlierPendingEvent(trx, event)) {
      await releaseClaims(trx, this.nodeId, [event.event_id]);
      return 'later';
    }
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
    await updateEvent(trx, event.event_id, { status: 'Processed', end_date: now, entries: event.entries + 1, claimed_by: null, claimed_at: null });
    finalized.push(event.event_id, ...rc.finalized);
    return 'done';
  }

  private async recordFailure(trx: Transaction<DB>, event: EventRow, e: unknown, finalized: string[]): Promise<Outcome> {
    const now = this.deps.now();
    const business = isWaymarkError(e);
    const attempts = event.entries + 1;
    if (!business && (isTransientDbError(e) || attempts < MAX_ATTEMPTS)) {
      this.deps.logger.warn({ err: e, eventId: event.event_id, attempt: attempts }, 'event application failed; will retry');
      await updateEvent(trx, event.event_id, { entries: isTransientDbError(e) ? event.entries : attempts, claimed_by: null, claimed_at: null });
      return 'retry';
    }
    if (!business) this.deps.logger.error({ err: e, eventId: event.event_id }, 'event failed after retries');
    const code = business ? e.code : 'InternalError';
    const message = business ? e.message : `The event could not be applied after ${attempts} attempts.`;
    await updateEvent(trx, event.event_id, {
      status: 'Failed', end_date: now, entries: attempts, error_code: code, error_message: message, claimed_by: null, claimed_at: null,
    });
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
