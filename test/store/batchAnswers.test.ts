/**
 * GroupCommitter's batches under a queue longer than one batch: at most MAX_BATCH jobs share a
 * commit, and the answers of one batch may leave (a callback the event loop runs after the
 * batch's jobs resolved, as the writer thread's Outbox sends its messages) before the next batch
 * starts, so that the request thread answers them while the writer commits the next batch
 * (docs/performance-log.md, thirty-eighth round).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Transaction } from 'kysely';
import { GroupCommitter, MAX_BATCH } from '../../src/store/GroupCommitter.ts';
import type { DB } from '../../src/store/schema.ts';

/**
 * A committer whose transactions are counted and touch no database: without statement rollback
 * (the default) its jobs run whole, with no savepoint.
 */
function countingCommitter() {
  const commits = { count: 0 };
  const committer = new GroupCommitter(async <T>(fn: (trx: Transaction<DB>) => Promise<T>) => {
    const value = await fn({} as Transaction<DB>);
    commits.count++;
    return value;
  });
  return { committer, commits };
}

test('a queue longer than one batch commits in batches of at most MAX_BATCH jobs', async () => {
  const { committer, commits } = countingCommitter();
  const n = MAX_BATCH * 3 + 5;
  const seenAtCommit: number[] = [];
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      committer.submit(async () => {
        seenAtCommit[i] = commits.count;
        return i;
      }),
    ),
  );
  assert.deepEqual(results, Array.from({ length: n }, (_, i) => i));
  assert.equal(commits.count, 4);
  for (let i = 0; i < n; i++) assert.equal(seenAtCommit[i], Math.floor(i / MAX_BATCH), `job ${i}`);
});

test("a batch's answers leave before the next batch starts", async () => {
  const { committer } = countingCommitter();
  const n = MAX_BATCH * 2 + 1;
  let sent = 0;
  const sentWhenStarted: number[] = [];
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      committer
        .submit(async () => {
          sentWhenStarted[i] = sent;
          return i;
        })
        // As the writer thread's Outbox: the answer is posted now and sent on a later turn.
        .then(() => void setImmediate(() => sent++)),
    ),
  );
  assert.equal(sentWhenStarted[0], 0);
  assert.equal(sentWhenStarted[MAX_BATCH - 1], 0);
  assert.equal(sentWhenStarted[MAX_BATCH], MAX_BATCH, 'the first batch was answered before the second ran');
  assert.equal(sentWhenStarted[2 * MAX_BATCH], 2 * MAX_BATCH, 'the second batch was answered before the third ran');
});
