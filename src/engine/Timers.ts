/**
 * The timer loop. Timers are rows (`timers`) with a due time and a `Deferred` event; a pass claims
 * every due timer (Waiting -> Fired, only if still Waiting) and, in the same transaction, turns its
 * event `Sent` — so a timer fires once however many server processes run the loop, and a restart
 * loses none. A timer of a Suspended instance is claimed but its event stays Deferred until resume.
 * The loop sleeps until the next due time, and at most POLL_MS (timers set meanwhile, other nodes).
 */
import { sendDeferredEvent } from '../store/queries/events.ts';
import { findInstance } from '../store/queries/instances.ts';
import { claimTimer, listDueTimers, nextDueDate } from '../store/queries/timers.ts';
import type { EngineDeps } from './context.ts';

/** Longest sleep between passes. */
const POLL_MS = 1000;
/** Timers claimed per transaction. */
const BATCH = 100;

export class Timers {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  /** `onFired` is called after a pass sent at least one event (wakes the dispatchers). */
  constructor(private readonly deps: EngineDeps, private readonly onFired: () => void) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Finish the pass under way; no new one starts. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running) await this.running;
  }

  /** One pass: fire every timer due now. Returns how many events it sent. */
  async fireDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = this.deps.now();
      const { seen, fired } = await this.deps.store.transaction(async (trx) => {
        const due = await listDueTimers(trx, now, BATCH);
        let count = 0;
        for (const timer of due) {
          if (!(await claimTimer(trx, timer.timer_id, now))) continue;
          const instance = await findInstance(trx, timer.proc_inst_id);
          if (instance?.status === 'Suspended') continue;
          if (await sendDeferredEvent(trx, timer.event_id)) count++;
        }
        return { seen: due.length, fired: count };
      });
      sent += fired;
      if (seen < BATCH) break;
    }
    if (sent > 0) this.onFired();
    return sent;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pass().finally(() => {
        this.running = null;
      });
    }, ms);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    let wait = POLL_MS;
    try {
      await this.fireDue();
      const next = await nextDueDate(this.deps.store.db);
      if (next !== undefined) wait = Math.min(POLL_MS, Math.max(0, next - this.deps.now()));
    } catch (e) {
      this.deps.logger.error({ err: e }, 'timer pass failed; retrying');
    }
    this.schedule(wait);
  }
}
