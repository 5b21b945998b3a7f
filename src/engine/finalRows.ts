/**
 * Which final event rows the writer thread sends to the request thread (writerThread.ts).
 *
 * Only a caller that waits for its event (`Prefer: wait`, UpdateWorkItem) needs the final row;
 * the others answer with the row as admitted (Sent). Before, the writer thread sent the final row
 * of every event it applied, and the request thread kept the last 1,024 of them (EventWaiters):
 * in `bench writes`, where nobody waits, each row was serialised on one thread and copied on the
 * other for nothing; of the ~1 MB the request thread promoted to its old generation per young
 * collection (every ~170 ms, `--trace-gc-nvp`, 2026-11-22), ~0.35 MB went with it.
 *
 * Now a command says whether its caller waits. When the group commit that admitted its event also
 * applied it (Dispatcher.inlineTail, the usual case), the answer is the final row itself, and the
 * caller has nothing to wait for. Otherwise the event is remembered as awaited, and its final row
 * goes with the `final` message that reports it. Every other `final` carries ids only.
 */
import type { EventRow } from '../store/queries/events.ts';

/**
 * Awaited events remembered at most: an event is forgotten when it is finalized, so only events
 * that never are (the thread stopped first) could pile up; the oldest go first.
 */
const MAX_AWAITED = 10_000;

export class FinalRows {
  /**
   * Final rows reported in this turn of the event loop. A group commit reports the events it
   * applied (tail.committed) before it resolves its commands, whose answers are posted in the same
   * turn, so an answer finds its event here when the same commit applied it.
   */
  private turn = new Map<string, EventRow>();
  private clearQueued = false;
  /** Events answered Sent to a caller that waits: their final row goes with their `final`. */
  private readonly awaited = new Set<string>();

  /** The rows to send with a `final` message for `ids`: only those of awaited events. */
  finalized(ids: readonly string[], rows?: ReadonlyMap<string, EventRow>): Map<string, EventRow> | undefined {
    let out: Map<string, EventRow> | undefined;
    for (const id of ids) {
      const row = rows?.get(id);
      if (this.awaited.delete(id)) {
        if (row) (out ??= new Map()).set(id, row);
      } else if (row) {
        this.keepForTurn(id, row);
      }
    }
    return out;
  }

  /** The answer for a caller that waits: the final row if its event is final already, else `admitted`. */
  answer(admitted: EventRow): EventRow {
    const final = this.turn.get(admitted.event_id);
    if (final) return final;
    this.awaited.add(admitted.event_id);
    if (this.awaited.size > MAX_AWAITED) this.awaited.delete(this.awaited.values().next().value as string);
    return admitted;
  }

  /** Events answered Sent and not reported final yet. */
  get awaitedCount(): number {
    return this.awaited.size;
  }

  private keepForTurn(id: string, row: EventRow): void {
    this.turn.set(id, row);
    if (this.clearQueued) return;
    this.clearQueued = true;
    setImmediate(() => {
      this.clearQueued = false;
      this.turn = new Map();
    });
  }
}
