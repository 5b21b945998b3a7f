/**
 * In-process wake-ups for `Prefer: wait`: resolves when an event reaches a final status.
 *
 * The dispatcher hands over the final rows of the events it applied (after the commit), so a
 * request waiting in this process answers from that row instead of reading the event again; a
 * notification from another node carries ids only, and the waiter reads the row. A short memory
 * of the events finalized last lets a waiter that registers just after its event was finalized
 * (the dispatcher can run between the admission's commit and the wait) resolve at once: before
 * it, every wait began with a read of the event to catch that case, and with the read after the
 * wake-up that was two statements per `Prefer: wait` call, six per instance in `bench e2e`
 * (`bench statements`).
 */
import type { EventRow } from '../store/queries/events.ts';

/** Final events remembered; the race it covers is a few milliseconds long. */
const RECENT = 1024;

/** notified: the event is final; row: its final row when this process finalized it, else null. */
export interface Woken {
  notified: boolean;
  row: EventRow | null;
}

export class EventWaiters {
  private readonly waiting = new Map<string, Set<(row: EventRow | null) => void>>();
  private readonly recent = new Map<string, EventRow | null>();

  /** Resolves when the event is final (at once if it was finalized lately), or after `ms`. */
  wait(eventId: string, ms: number): { done: Promise<Woken>; cancel: () => void } {
    if (this.recent.has(eventId)) return { done: Promise.resolve({ notified: true, row: this.recent.get(eventId) ?? null }), cancel: () => {} };
    let cancel = () => {};
    const done = new Promise<Woken>((resolve) => {
      const set = this.waiting.get(eventId) ?? new Set();
      const wake = (row: EventRow | null) => {
        clearTimeout(timer);
        resolve({ notified: true, row });
      };
      const forget = () => {
        set.delete(wake);
        if (set.size === 0 && this.waiting.get(eventId) === set) this.waiting.delete(eventId);
      };
      const timer = setTimeout(() => {
        forget();
        resolve({ notified: false, row: null });
      }, ms);
      set.add(wake);
      this.waiting.set(eventId, set);
      cancel = () => {
        clearTimeout(timer);
        forget();
        resolve({ notified: false, row: null });
      };
    });
    return { done, cancel };
  }

  /** Events that reached a final status (after their commit), with their rows where known. */
  notify(eventIds: Iterable<string>, rows?: ReadonlyMap<string, EventRow>): void {
    for (const id of eventIds) {
      const row = rows?.get(id) ?? null;
      this.recent.delete(id);
      this.recent.set(id, row);
      if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value as string);
      const set = this.waiting.get(id);
      if (!set) continue;
      this.waiting.delete(id);
      for (const wake of set) wake(row);
    }
  }

  /** Whether the event was reported final lately (one of the last RECENT). */
  finalizedLately(eventId: string): boolean {
    return this.recent.has(eventId);
  }

  get size(): number {
    return this.waiting.size;
  }
}
