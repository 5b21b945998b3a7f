/**
 * Load shedding: past what the server can serve in time, refuse early and cheaply with 503 and
 * Retry-After instead of queueing without bound until everything times out.
 * - Event-loop delay (via @fastify/under-pressure): the process is saturated.
 *   Checked before authentication, so shedding costs almost nothing.
 * - The same limit per turn of the event loop (TurnAge): a request read after its turn has already
 *   run that long is refused at once.
 * - Writes waiting for the next group commit (the database cannot keep up): refused where they
 *   queue, in Store.grouped (WAYMARK_MAX_PENDING_WRITES).
 */
import underPressure from '@fastify/under-pressure';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { WaymarkError } from '../domain/errors.ts';

export interface SheddingOptions {
  /** Mean event-loop delay (ms) over the last sample above which requests are refused; 0 = off. */
  maxEventLoopDelayMs: number;
  /**
   * Requests being served at once above which new ones are refused; 0 = off. The server answers
   * one request in well under a millisecond of CPU, so a long line of requests in progress means
   * they are queueing: refusing the newest keeps the latency of the others bounded. Requests
   * with `Prefer: wait` are not counted (they wait for an event, not for the CPU).
   */
  maxInFlight: number;
}

const RETRY_AFTER = '1';

export function overloaded(detail: string): WaymarkError {
  return new WaymarkError('ServiceUnavailable', detail, { 'Retry-After': RETRY_AFTER });
}

export async function registerLoadShedding(app: FastifyInstance, opts: SheddingOptions): Promise<void> {
  if (opts.maxInFlight > 0) limitInFlight(app, opts.maxInFlight);
  if (opts.maxEventLoopDelayMs > 0) {
    // Loading, migrations and the first compilations stall the loop before and just after the
    // server starts listening; under-pressure's first samples measure that stall, and a fixed
    // limit then refused the first requests after a start (seen on a busy machine at 200 ms and
    // at 1,000 ms). So the limit holds only from START_GRACE_MS after listening.
    let listeningSince = Number.POSITIVE_INFINITY;
    app.addHook('onListen', (done) => {
      listeningSince = Date.now();
      done();
    });
    const refusal = overloaded('The server is overloaded; retry in a second.');
    const turn = new TurnAge();
    app.addHook('onRequest', (_request, _reply, done) => {
      if (turn.age() > opts.maxEventLoopDelayMs && Date.now() - listeningSince >= START_GRACE_MS) done(refusal);
      else done();
    });
    await app.register(underPressure, {
      maxEventLoopDelay: opts.maxEventLoopDelayMs,
      sampleInterval: SAMPLE_MS,
      retryAfter: Number(RETRY_AFTER),
      // undefined lets the request through; a rejection refuses it through the error handler.
      pressureHandler: () => (Date.now() - listeningSince >= START_GRACE_MS ? Promise.reject(refusal) : undefined),
    });
  }
}

/**
 * How long the current turn of the event loop has run, as seen by the requests it reads: the first
 * request of a turn starts the clock, the end of the turn (setImmediate) stops it.
 *
 * Why: a turn reads the requests of every socket that had data when it began, one after the
 * other, so the last of them have waited for all the others. With 50 connections a turn is a few
 * milliseconds; with 1,024 connections offering more than the server answers, turns grow to tens
 * of milliseconds while the mean event-loop delay, sampled every 250 ms, can stay under its limit:
 * in the full run of 2026-11-24 23:46 `bench overload` offered 39,513 GetActivityInst/s, the
 * server answered 11,539/s with a p99 of 7.7 s (counted from when each request was due) and
 * refused none; with this, 6,892 refused at 35,025/s offered (docs/reliability.md). Past the limit
 * in one turn, the rest of the turn's requests are refused at once. A request that arrives alone
 * is never refused by it: its turn starts with it.
 */
export class TurnAge {
  private start = -1;
  private readonly end = (): void => {
    this.start = -1;
  };

  constructor(
    private readonly now: () => number = performance.now.bind(performance),
    private readonly atEndOfTurn: (fn: () => void) => void = setImmediate,
  ) {}

  /** Milliseconds since the first request of this turn (0 for that request). */
  age(): number {
    const now = this.now();
    if (this.start < 0) {
      this.start = now;
      this.atEndOfTurn(this.end);
      return 0;
    }
    return now - this.start;
  }
}

/** How often the event-loop delay is sampled (the mean over the last period is compared). */
const SAMPLE_MS = 250;
/** After the server starts listening, how long the event-loop limit waits before it applies. */
export const START_GRACE_MS = 2000;

/** Set on a response while its request counts as in flight (limitInFlight). */
const COUNTED = Symbol('countedInFlight');
type Counted = ServerResponse & { [COUNTED]?: boolean };

/**
 * Requests in flight, counted per response. One function for every request, no closure per
 * request: a closure made per request was, with the `name` tsx gives it, ~3 % of the request
 * thread's time in a CPU profile of `bench reads` (2026-11-25).
 */
function limitInFlight(app: FastifyInstance, max: number): void {
  let inFlight = 0;
  // One refusal for every request refused here, as for the event-loop limit: it is read, never changed.
  const busy = overloaded('The server is busy with other requests; retry in a second.');
  /** Stops counting the response's request as in flight (once). */
  function leave(this: Counted): void {
    if (this[COUNTED]) {
      this[COUNTED] = false;
      inFlight--;
    }
  }
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.prefer !== undefined) return done();
    if (inFlight >= max) {
      done(busy);
      return;
    }
    inFlight++;
    const res = reply.raw as Counted;
    res[COUNTED] = true;
    // 'close' covers a request that never gets to its answer (the connection dropped first):
    // Node emits it once per response, after 'finish' or when the connection drops.
    res.on('close', leave);
    done();
  });
  // A request stops counting when its answer is made: the answer may then wait for the end of
  // the turn before it is written (answerCoalescing.ts), which is not work the server has yet
  // to do, and a burst of requests read in one turn must not be refused for it.
  app.addHook('onSend', (_request, reply, payload, done) => {
    leave.call(reply.raw as Counted);
    done(null, payload);
  });
}
