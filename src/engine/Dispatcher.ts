/**
 * Applies `Sent` events. Where several nodes share the database, a pass claims a batch (a lease:
 * who, since when), then applies each event in a savepoint of one transaction: lock the instance's
 * row, skip an event whose instance still has an earlier event pending (per-instance order across
 * nodes), run the handler for its EventName, mark it Processed — or Failed with its Error. The
 * status is re-read inside the transaction, so an event picked twice is applied once: delivery is
 * at-least-once, the observable result exactly-once. On a database no other node uses (SQLite),
 * a pass selects its batch inside that one transaction instead, without claims (runBatch).
 * What one apply transaction does with its events is batchApplier.ts.
 * Notifications only wake passes early; polling is the mechanism.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { claimEvents, releaseClaims, releaseExpiredClaims, type EventRow } from '../store/queries/events.ts';
import { anyHasChildInstances } from '../store/queries/instances.ts';
import type { GroupCommitTail } from '../store/GroupCommitter.ts';
import { inSavepoint } from '../store/savepoint.ts';
import { admittedEvents } from './admission.ts';
import { BATCH_SIZE, BatchApplier, FINAL_CHANNEL, WholeBatchFailed, type PartResult } from './batchApplier.ts';
import type { EngineDeps } from './context.ts';
import type { DispatcherControl } from './writerThread.ts';

export { FINAL_CHANNEL };
/** Default lease: a claim older than this is free for any node, its holder presumed dead. */
export const CLAIM_LEASE_MS = 30_000;
/** Idle polling interval: the real mechanism behind the wake-ups. */
const POLL_MS = 500;
export const SENT_CHANNEL = 'waymark_sent';

/** Told of the events that reached a final status, after their commit (EventWaiters). */
export interface FinalListener {
  notify(eventIds: Iterable<string>, rows?: ReadonlyMap<string, EventRow>): void;
}

export class Dispatcher implements DispatcherControl {
  readonly nodeId = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private backoffMs = 0;
  private readonly applier: BatchApplier;

  constructor(
    private readonly deps: EngineDeps,
    private readonly waiters: FinalListener,
    private readonly leaseMs = CLAIM_LEASE_MS,
  ) {
    this.applier = new BatchApplier(deps, this.nodeId);
  }

  /**
   * Begin polling. On a database no other node uses, free every claim left by an older version
   * first; no claim is taken there afterwards, so no sweeper runs.
   */
  async start(): Promise<void> {
    this.stopped = false;
    const store = this.deps.store;
    // In a transaction, as every write: on SQLite it then holds the lock shared with another
    // thread that writes the same file (store/threadWriteLock.ts).
    if (!store.caps.sharedByNodes) await store.transaction((trx) => releaseExpiredClaims(trx, Number.MAX_SAFE_INTEGER));
    store.listen(SENT_CHANNEL, () => this.wake());
    store.listen(FINAL_CHANNEL, (ids) => this.waiters.notify(ids.split(',')));
    if (store.caps.sharedByNodes) {
      this.sweeper = setInterval(() => void this.sweep(), Math.max(this.leaseMs / 3, 100));
      this.sweeper.unref();
    }
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
    await this.deps.store.transaction((trx) => releaseClaims(trx, this.nodeId)).catch(() => {});
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

  /**
   * One batch; returns how many events it applied. Where nodes share the database, a claim (a
   * lease, committed on its own) and then one apply transaction. On a database no other node uses
   * a claim protects nothing: the batch selects the next Sent events inside its one apply
   * transaction and commits once (the claim's commit was half the dispatcher's fsyncs, and commits
   * were 12-15 % of its CPU in bench dispatch). A crash before that commit leaves every event of the
   * batch Sent, a crash after it none: each is applied exactly once either way.
   */
  private async runBatch(): Promise<number> {
    const { store } = this.deps;
    let claimed: EventRow[] | null = null;
    if (store.caps.sharedByNodes) {
      const now = this.deps.now();
      claimed = await store.transaction((trx) => claimEvents(trx, store.caps.rowLocks, this.nodeId, now, this.leaseMs, BATCH_SIZE));
      if (claimed.length === 0) return 0;
    }
    // Where claims are leased, the claimed events are applied in up to store.writeLanes
    // transactions side by side, each instance's events in one part and in claim order (every
    // statement on PostgreSQL is a round trip: applied one after the other in one transaction, the
    // server was busy only 57 % of `bench pg`'s e2e window, the rest waiting for answers); on a
    // single writer, in one.
    const parts = !claimed ? [null] : (await this.reachesOtherInstances(claimed)) ? [claimed] : splitByInstance(claimed, store.writeLanes);
    const outcomes = await Promise.allSettled(parts.map((part) => this.applyPart(part)));
    let applied = 0;
    let waitALittle = false;
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') continue;
      applied += outcome.value.applied;
      waitALittle ||= outcome.value.waitALittle;
      this.waiters.notify(outcome.value.batch.finalized, outcome.value.batch.rows);
    }
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
    if (waitALittle) {
      this.backoffMs = 50;
      return 0;
    }
    return applied;
  }

  /**
   * Instances meet only through events (a child tells its parent by an event, applied in the
   * parent's turn), except where a high-priority event (canceling, suspending or resuming an
   * instance) reaches the instance's children and their pending events directly. A batch with
   * such an event for an instance that has children is applied in one transaction, in claim
   * order; any other batch is split by instance. (Every high-priority batch used to be applied in
   * one: on PostgreSQL, a round trip per statement, CancelProcInst was applied at 38 events/s
   * while 660/s were admitted in `bench pg`; 182/s with the split and the partial indexes of
   * migration 0004.) A child created after the claim has no event in this batch; one created
   * before it is found here.
   */
  private async reachesOtherInstances(claimed: EventRow[]): Promise<boolean> {
    const ids = [...new Set(claimed.filter((e) => e.high_priority > 0).map((e) => e.proc_inst_id))];
    return anyHasChildInstances(this.deps.store.db, ids);
  }

  /**
   * One apply transaction over `claimed` events, or over the next Sent ones (single writer: null).
   * On a single writer the transaction is the batch's undo (BatchApplier.applyBatch, `unguarded`):
   * when an event of the batch fails, it is rolled back and the batch applied again in a new one,
   * a savepoint per event.
   */
  private async applyPart(claimed: EventRow[] | null): Promise<PartResult> {
    const { store } = this.deps;
    if (claimed) return store.transaction((trx) => this.applier.applyBatch(trx, claimed));
    try {
      return await store.transaction((trx) => this.applier.applyBatch(trx, null, { unguarded: true }));
    } catch (error) {
      if (!(error instanceof WholeBatchFailed)) throw error;
      return store.transaction((trx) => this.applier.applyBatch(trx, null));
    }
  }

  /**
   * A batch applied at the end of every group commit, in its transaction: the events just admitted
   * are applied before the one commit that makes them durable, so an admission and its application
   * cost one commit instead of two (three with a claim), and a call that waits for its event
   * (`Prefer: wait`) waits for that commit only (see docs/performance-log.md, sixth and twenty-first
   * rounds). On a single writer the batch is the next Sent events, as a pass selects them; where
   * nodes share the database, it is the events this transaction admitted, high-priority ones
   * excepted (a cancel, suspend or resume reaches other instances' rows, which a dispatcher may
   * hold: BatchApplier.applyAdmitted). Should the batch fail, the admissions still commit and the
   * dispatcher's own passes apply the events later: on a single writer the group commit runs its
   * jobs again without the batch (`unguarded`: no savepoint around it, GroupCommitTail), where
   * nodes share the database the batch runs in a savepoint of its own. What it leaves (a full
   * batch, an event to apply later) wakes those passes.
   */
  inlineTail(): GroupCommitTail<PartResult | null> {
    const shared = this.deps.store.caps.sharedByNodes;
    return {
      unguarded: !shared,
      failed: (error) => {
        const cause = error instanceof WholeBatchFailed ? error.reason : error;
        this.deps.logger.warn({ err: cause }, 'applying events in the group commit failed; its calls were committed again without it and the dispatcher will apply them');
      },
      run: async (trx) => {
        if (this.stopped) return null;
        if (!shared) return this.applier.applyBatch(trx, null, { unguarded: true });
        const seen = admittedEvents(trx).length;
        const admitted = admittedEvents(trx).filter((e) => e.high_priority === 0);
        if (admitted.length === 0) return null;
        // All in one savepoint first; should an event fail, that savepoint is rolled back and
        // they are applied again, each in its own, so that the failure is recorded on its event.
        const together = this.applier.takeTogetherTurn();
        let result = await inSavepoint(trx, () => this.applier.applyAdmitted(trx, admitted, { together }));
        if (!result.ok && together) {
          this.applier.togetherFailed();
          result = await inSavepoint(trx, () => this.applier.applyAdmitted(trx, admitted));
        }
        // Events that the handlers admitted meanwhile (a child telling its parent) are Sent: a
        // pass applies them once this commits.
        if (result.ok && admittedEvents(trx).length > seen) return { ...result.value, waitALittle: true };
        if (result.ok) return result.value;
        this.deps.logger.warn({ err: result.error }, 'applying events in the group commit failed; the dispatcher will apply them');
        return null;
      },
      committed: (result) => {
        if (!result) {
          // Where nodes share the database, the command that admitted an event wakes every
          // dispatcher itself once it is not final (Engine.eventAdmitted).
          if (!shared) this.wake();
          return;
        }
        this.waiters.notify(result.batch.finalized, result.batch.rows);
        if (result.applied >= BATCH_SIZE || result.waitALittle) this.wake();
      },
    };
  }
}

/**
 * `events` (in claim order) in at most `parts` lists, all the events of one instance in the same
 * list and in their order, each new instance to the shortest list so far.
 */
function splitByInstance(events: EventRow[], parts: number): EventRow[][] {
  const lists: EventRow[][] = [];
  const listOf = new Map<string, EventRow[]>();
  for (const event of events) {
    let list = listOf.get(event.proc_inst_id);
    if (!list) {
      if (lists.length < parts) lists.push((list = []));
      else list = lists.reduce((a, b) => (b.length < a.length ? b : a));
      listOf.set(event.proc_inst_id, list);
    }
    list.push(event);
  }
  return lists;
}
