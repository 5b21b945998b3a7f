/**
 * Answers are written to their sockets together, once per turn of the event loop, instead of
 * one by one as each is ready.
 *
 * Why: on a loopback connection (a load generator, a reverse proxy or a sidecar on the same host)
 * the kernel delivers a write to the receiving socket inside the sender's system call, and wakes
 * the receiver there if it sleeps. Written one by one, between 80-120 µs of work on the next
 * request, nearly every answer woke a client that had gone back to sleep: `writev` took ~30 µs per
 * answer in the `bench reads` profile, against ~8 µs in the bare-Fastify baseline, whose answers
 * leave faster than the client sleeps. Written together at the end of the turn, the first answer
 * wakes the client and the others arrive while it runs; the client, answered in a burst, sends
 * its next requests in a burst too. Measured (GetActivityInst, 50 connections, same window,
 * 2026-11-22): 10.3-12.1 k → 15-20.6 k answers/s, the request thread's CPU per answer 81-95 →
 * 48-62 µs, the load generator's 59-70 → 30-36 µs; `bench reads` 1.2-1.6 × the answers per
 * second in most rounds of an A/B. `bench writes` and `bench e2e` did not move beyond their
 * noise: the writer thread limits them (docs/performance-log.md, tenth round).
 *
 * What it costs: an answer waits, at most, for the rest of the turn in which it was made (the
 * other requests that arrived in the same poll of the sockets, each well under a millisecond of
 * CPU), and never behind more than MAX_HELD_ANSWERS others. A turn that makes one answer writes
 * it as before, one phase later. Requests in flight (loadShedding.ts) stop counting when their
 * answer is made, not when it is written, so a burst read in one turn is not refused for
 * answers that only wait for the turn to end.
 */
import type { FastifyInstance } from 'fastify';
import { outsideRequest, requestContext, type RequestScope } from '../engine/requestContext.ts';

/**
 * Calls handed to `hold` in one turn of the event loop, made in order at its end (setImmediate),
 * or at once when `maxHeld` are waiting: a turn that reads hundreds of requests (a burst on many
 * connections) does not keep its first answers until its last is made.
 */
export class TurnBatch<T> {
  private held: T[] = [];
  private scheduled = false;

  /** @param release makes one held call; @param onError is told what a release throws (the rest still run). */
  constructor(
    private readonly release: (item: T) => void,
    private readonly onError: (error: unknown) => void,
    private readonly maxHeld = Number.POSITIVE_INFINITY,
  ) {}

  hold(item: T): void {
    this.held.push(item);
    if (this.held.length >= this.maxHeld) {
      this.releaseHeld();
      return;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  /** How many calls wait for the end of this turn. */
  get size(): number {
    return this.held.length;
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.releaseHeld();
  };

  private releaseHeld(): void {
    const items = this.held;
    // Holds made while releasing (an answer that leads to another) wait for the next release.
    this.held = [];
    for (const item of items) {
      try {
        this.release(item);
      } catch (e) {
        this.onError(e);
      }
    }
  }
}

type OnSendDone = (err: Error | null, payload?: unknown) => void;

interface HeldAnswer {
  done: OnSendDone;
  payload: unknown;
  /** The request's scope: what is logged while its answer is written carries its id, not another's. */
  scope: RequestScope | undefined;
}

/**
 * At most this many answers wait for the end of a turn: 64 answers of ~80 µs each delay the first
 * by ~5 ms at most, and one wake-up of the client per 64 answers keeps nearly all of the gain.
 */
export const MAX_HELD_ANSWERS = 64;

/**
 * Every answer of `app` goes out at the end of the turn that made it (see above). Register it
 * after the other onSend hooks: a hook registered later runs only when the answer is released.
 */
export function registerAnswerCoalescing(app: FastifyInstance): void {
  const batch = new TurnBatch<HeldAnswer>(
    (a) => (a.scope ? requestContext.run(a.scope, a.done, null, a.payload) : outsideRequest(() => a.done(null, a.payload))),
    (e) => app.log.error({ err: e }, 'writing an answer failed'),
    MAX_HELD_ANSWERS,
  );
  app.addHook('onSend', (_request, _reply, payload, done) => {
    batch.hold({ done: done as OnSendDone, payload, scope: requestContext.getStore() });
  });
}
