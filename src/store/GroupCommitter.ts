/**
 * Batches concurrent writers into one transaction so that one durable commit serves many
 * requests. Each job runs under its own savepoint: a job that throws rolls back only itself. A job
 * whose only write is its last statement needs none where a failed statement undoes itself
 * (`singleWrite`, see withoutSavepoint); nor does one that rarely fails once it has written
 * (`optimistic`), at the price of running its batch again when it does. Where a failed statement
 * ends the whole transaction (PostgreSQL), a batch runs whole first: its jobs without savepoints,
 * and only if one of them throws is the transaction rolled back and the batch run again with a
 * savepoint per job (see isolate).
 */
import type { Transaction } from 'kysely';
import { changesSoFar, inSavepoint, withoutSavepoint, type Isolated } from './savepoint.ts';
import type { DB } from './schema.ts';
import { isTransientDbError } from '../domain/dbErrors.ts';

export interface JobOptions {
  /**
   * The job writes one statement (an INSERT or UPDATE), as its last step, and nothing else: it may
   * run without a savepoint where `statementRollback` holds. Ignored elsewhere.
   */
  singleWrite?: boolean;
  /**
   * The job checks everything it can before its first write, so that it rarely fails after one
   * (CreateProcInst: it writes the instance, its participant and its event). Where
   * `statementRollback` holds, it runs without a savepoint, and the connection's count of changes
   * (changesSoFar) is read before it: should it fail, an unchanged count means it wrote nothing
   * and fails alone; otherwise the whole transaction is rolled back and the batch runs again, with
   * this job in a savepoint. A savepoint's cost is two statements and a copy of every page the
   * job changes into SQLite's sub-journal (twenty-eighth round, docs/performance-log.md); this
   * costs one statement. Ignored elsewhere.
   */
  optimistic?: boolean;
}

/**
 * How a job is isolated from the others of its transaction. `whole`: none, on a database without
 * statement rollback; should it throw, the whole transaction is rolled back and the batch runs
 * again with a savepoint per job.
 */
type Isolation = 'savepoint' | 'bare' | 'optimistic' | 'whole';

interface Job {
  fn: (trx: Transaction<DB>) => Promise<unknown>;
  /** See JobOptions; an optimistic job that failed after writing runs again in a savepoint. */
  isolation: Isolation;
  /** Runs so far: a job that hit a transient error (deadlock, lock timeout) runs again. */
  attempts: number;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  ok?: boolean;
  value?: unknown;
  error?: unknown;
  /** Its failure ended the whole transaction (SQLite rolls back by itself on SQLITE_FULL, SQLITE_IOERR). */
  lostTransaction?: boolean;
  /** An optimistic job failed after it wrote: the transaction is rolled back and the batch runs again. */
  wroteBeforeFailing?: boolean;
  /** A job of a batch run whole threw: the transaction is rolled back and the batch runs again, a savepoint per job. */
  failedWhole?: boolean;
}

/**
 * Work that runs at the end of every batch's transaction, after its jobs, and so commits with them
 * (Store.setGroupCommitTail): `run` inside the transaction; `committed` with its result once the
 * commit is durable. Should the transaction fail, the result is dropped with it.
 */
export interface GroupCommitTail<T> {
  run(trx: Transaction<DB>): Promise<T>;
  committed(result: T): void;
  /**
   * `run` guards nothing itself (no savepoint): should it throw, the whole transaction is rolled
   * back, `failed` is told why, and the batch's jobs run again in a new transaction without the
   * tail, which then commits with `committed(null)`. A savepoint around the tail copied every page
   * the tail changed into SQLite's sub-journal first (twenty-seventh round,
   * docs/performance-log.md); a tail that fails is rare, and its jobs are written to run again
   * (as after a transient error).
   */
  unguarded?: boolean;
  failed?(error: unknown): void;
}

/**
 * Upper bound of jobs in one commit. Small, because a lane lets the event loop turn between two
 * batches (flushSoon): the answers of one batch leave (the writer thread's Outbox sends them on
 * that turn) while the next batch runs, so that the request thread answers and reads the next
 * calls while the writer thread commits, instead of the two threads working by turns in bursts of
 * up to 256 jobs. Thirty-eighth round (docs/performance-log.md), `bench e2e`, alternated on one
 * machine: 16 with the turn, 2,489–2,826 completed instances/s in five runs against 2,238–2,662
 * with 256 and no turn in the runs beside them (each pair won by 16, +1 to +25 %), the cores' busy
 * share 81–85 % against 72–75 %; 32 with the turn won its eight pairs by +1 to +14 % (79–82 %
 * busy); the turn alone (256) or 32 alone changed nothing. `bench writes` and `bench dispatch`
 * moved within their spread; `bench pg` gave 404 against 379 instances/s and +3 to +31 % writes;
 * `bench nodes` (two nodes against one on PostgreSQL) 0.92 / 0.79 × against 0.88 / 0.98 × end to end.
 */
export const MAX_BATCH = 16;
/** Runs of a job that keeps meeting transient errors before its caller sees the error. */
const MAX_ATTEMPTS = 3;
/**
 * Without statement rollback: after a batch run whole had a job that threw, this many batches run
 * with a savepoint per job from the start, so that a load where jobs often fail (conflicting
 * claims of one work item) does not run most batches twice.
 */
const ISOLATED_AFTER_FAILURE = 16;

export class GroupCommitter {
  private queue: Job[] = [];
  /** The lanes' promises, for drain(). */
  private readonly running = new Set<Promise<void>>();
  /**
   * Lanes started and not finished, counted down synchronously as a lane sees the queue empty: a
   * job submitted right after that moment starts a lane of its own. (Counting the Set above
   * instead, whose entries leave a few microtasks later, could leave such a job with no lane.)
   */
  private active = 0;
  /** Lanes inside a transaction now (the others are about to take a batch). */
  private busy = 0;
  private currentTail: GroupCommitTail<unknown> | null = null;
  /** Batches left to run with a savepoint per job from the start (see isolate). */
  private isolatedBatchesLeft = 0;

  /**
   * `transaction`: runs one transaction (Store.transaction, which also takes the write lock shared
   * with another thread where there is one). `statementRollback`: the database's capability flag
   * of that name. `lanes`: transactions that may be open at once, each on its own connection (1 on
   * SQLite, whose one connection writes everything anyway; several on PostgreSQL, see Store).
   */
  constructor(
    private readonly transaction: <T>(fn: (trx: Transaction<DB>) => Promise<T>) => Promise<T>,
    private readonly statementRollback = false,
    private readonly lanes = 1,
  ) {}

  submit<T>(fn: (trx: Transaction<DB>) => Promise<T>, opts: JobOptions = {}): Promise<T> {
    const isolation: Isolation = !this.statementRollback ? 'savepoint' : opts.singleWrite ? 'bare' : opts.optimistic ? 'optimistic' : 'savepoint';
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, isolation, attempts: 0, resolve: resolve as (v: unknown) => void, reject });
      if (this.active < this.lanes) {
        this.active++;
        const lane = this.flushSoon();
        this.running.add(lane);
        const forget = () => void this.running.delete(lane);
        lane.then(forget, forget);
      }
    });
  }

  setTail<T>(tail: GroupCommitTail<T> | null): void {
    this.currentTail = tail as GroupCommitTail<unknown> | null;
  }

  get tail(): GroupCommitTail<unknown> | null {
    return this.currentTail;
  }

  get pending(): number {
    return this.queue.length;
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private async flushSoon(): Promise<void> {
    // Let the requests that arrived in the same tick join the batch.
    try {
      await new Promise((r) => setImmediate(r));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.batchSize());
        this.isolate(batch);
        this.busy++;
        try {
          await this.flushBatch(batch);
        } finally {
          this.busy--;
        }
        // The answers of this batch leave before the next batch runs (see MAX_BATCH).
        if (this.queue.length > 0) await new Promise((r) => setImmediate(r));
      }
    } finally {
      this.active--;
    }
  }

  /**
   * One lane takes everything queued (up to MAX_BATCH). With several lanes, each running lane
   * takes its share, so that the queued jobs run side by side on as many connections instead of
   * one after the other in one transaction (on PostgreSQL every statement is a round trip, and
   * the database commits concurrent transactions together by itself).
   */
  private batchSize(): number {
    if (this.lanes === 1) return MAX_BATCH;
    const idle = Math.max(1, this.active - this.busy);
    return Math.min(MAX_BATCH, Math.ceil(this.queue.length / idle));
  }

  /**
   * Where a failed statement ends the whole transaction (no statement rollback: PostgreSQL), every
   * job used to run in a savepoint of its own: two round trips (SAVEPOINT, RELEASE) per job, 7 of
   * the 48.7 statements of a completed e2e instance in `bench pg` and 2 of an AssignWorkItem's
   * (docs/performance-log.md, thirty-second round). A batch now runs whole: its jobs without
   * savepoints, in the one transaction that guards them all. Should one of them throw (a business
   * rule or a database error), the transaction is rolled back and the batch runs again with a
   * savepoint per job, so that the failing job fails alone; nothing of the first run escaped, since
   * answers leave only after the commit, and jobs are written to run again (as after a transient
   * error). After such a batch the next ISOLATED_AFTER_FAILURE batches start with savepoints.
   */
  private isolate(batch: Job[]): void {
    if (this.statementRollback) return;
    const whole = this.isolatedBatchesLeft === 0;
    if (!whole) this.isolatedBatchesLeft--;
    for (const job of batch) job.isolation = whole ? 'whole' : 'savepoint';
  }

  /** `withTail`: false for the second run of a batch whose unguarded tail failed (GroupCommitTail). */
  private async flushBatch(batch: Job[], withTail = true): Promise<void> {
    const tail = withTail ? this.currentTail : null;
    let tailResult: unknown;
    // Set inside the transaction's callback (TypeScript does not follow a `let` there).
    const tailFailure: { failed: boolean; error?: unknown } = { failed: false };
    try {
      await this.transaction(async (trx) => {
        for (const job of batch) await runIsolated(trx, job);
        if (!tail) return;
        try {
          tailResult = await tail.run(trx);
        } catch (error) {
          if (tail.unguarded) Object.assign(tailFailure, { failed: true, error });
          throw error;
        }
      });
    } catch (commitError) {
      const failedWhole = batch.find((j) => j.failedWhole);
      if (failedWhole) {
        // Rolled back as a whole: the batch runs again, every job now in a savepoint.
        this.isolatedBatchesLeft = ISOLATED_AFTER_FAILURE;
        // Not a run that counts against a job's retries (the jobs after it did not run at all).
        for (const job of batch.slice(0, batch.indexOf(failedWhole) + 1)) job.attempts--;
        for (const job of batch) {
          job.failedWhole = false;
          job.isolation = 'savepoint';
        }
        await this.flushBatch(batch, withTail);
        return;
      }
      const failedAfterWriting = batch.find((j) => j.wroteBeforeFailing);
      if (failedAfterWriting) {
        // Rolled back as a whole: the batch runs again, the job that failed now in a savepoint.
        failedAfterWriting.wroteBeforeFailing = false;
        // Not a run that counts against a job's retries (the jobs after it did not run at all).
        for (const job of batch.slice(0, batch.indexOf(failedAfterWriting) + 1)) job.attempts--;
        await this.flushBatch(batch, withTail);
        return;
      }
      if (tailFailure.failed && tail) {
        // Nothing of this transaction holds: the jobs run again, alone, in a new one.
        tail.failed?.(tailFailure.error);
        // Not a run that counts against a job's retries (runIsolated sets its outcome anew).
        for (const job of batch) job.attempts--;
        await this.flushBatch(batch, false);
        tail.committed(null);
        return;
      }
      // The job that ended the transaction holds the real cause; the rollback's own error does not.
      const cause = batch.find((j) => j.lostTransaction)?.error ?? commitError;
      for (const job of batch) job.reject(cause);
      return;
    }
    if (tail) tail.committed(tailResult);
    for (const job of batch) {
      if (job.ok) job.resolve(job.value);
      else if (isTransientDbError(job.error) && job.attempts < MAX_ATTEMPTS) this.queue.push(job);
      else job.reject(job.error);
    }
  }
}

async function runIsolated(trx: Transaction<DB>, job: Job): Promise<void> {
  job.attempts++;
  let result: Isolated<unknown>;
  if (job.isolation === 'whole') {
    try {
      job.value = await job.fn(trx);
      job.ok = true;
    } catch (e) {
      job.failedWhole = true;
      throw e;
    }
    return;
  }
  try {
    if (job.isolation === 'savepoint') result = await inSavepoint(trx, () => job.fn(trx));
    else if (job.isolation === 'bare') result = await withoutSavepoint(() => job.fn(trx));
    else {
      const before = await changesSoFar(trx);
      result = await withoutSavepoint(() => job.fn(trx));
      if (!result.ok && (await changesSoFar(trx)) !== before) {
        job.isolation = 'savepoint';
        job.wroteBeforeFailing = true;
        throw result.error;
      }
    }
  } catch (e) {
    if (job.wroteBeforeFailing) throw e;
    // The transaction is gone; the rollback that follows fails with an error of its own.
    job.lostTransaction = true;
    job.error = e;
    throw e;
  }
  job.ok = result.ok;
  if (result.ok) job.value = result.value;
  else job.error = result.error;
}
