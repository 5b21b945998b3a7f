/**
 * Batches concurrent writers into one transaction so that one durable commit serves many
 * requests. Each job runs under its own savepoint: a job that throws rolls back only itself.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

interface Job {
  fn: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  ok?: boolean;
  value?: unknown;
  error?: unknown;
}

/** Upper bound of jobs in one commit: keeps one batch's latency bounded under heavy load. */
const MAX_BATCH = 256;

export class GroupCommitter {
  private queue: Job[] = [];
  private running: Promise<void> | null = null;

  constructor(private readonly db: Kysely<DB>) {}

  submit<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) this.running = this.flushSoon();
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async flushSoon(): Promise<void> {
    // Let the requests that arrived in the same tick join the batch.
    await new Promise((r) => setImmediate(r));
    try {
      while (this.queue.length > 0) await this.flushBatch(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.running = null;
    }
  }

  private async flushBatch(batch: Job[]): Promise<void> {
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const job of batch) await runIsolated(trx, job);
      });
    } catch (commitError) {
      for (const job of batch) job.reject(commitError);
      return;
    }
    for (const job of batch) (job.ok ? job.resolve(job.value) : job.reject(job.error));
  }
}

async function runIsolated(trx: Transaction<DB>, job: Job): Promise<void> {
  await sql`savepoint job`.execute(trx);
  try {
    job.value = await job.fn(trx);
    job.ok = true;
    await sql`release savepoint job`.execute(trx);
  } catch (e) {
    job.error = e;
    job.ok = false;
    await sql`rollback to savepoint job`.execute(trx);
    await sql`release savepoint job`.execute(trx);
  }
}
