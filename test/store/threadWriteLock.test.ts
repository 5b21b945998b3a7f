import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { ThreadWriteLock } from '../../src/store/threadWriteLock.ts';

const BOOT = new URL('../fixtures/threads/lockWorkerBoot.mjs', import.meta.url);

/** Each side increments a shared counter by read, await, write while holding the lock. */
async function holdingLock(lock: ThreadWriteLock, cells: Int32Array): Promise<void> {
  await lock.run(async () => {
    const seen = cells[0];
    await new Promise((r) => setTimeout(r, 1));
    cells[0] = seen + 1;
  });
}

test('two threads holding the write lock in turn lose no update, and neither side starves', async () => {
  const buffer = ThreadWriteLock.newBuffer();
  const counter = new SharedArrayBuffer(8);
  const cells = new Int32Array(counter);
  const rounds = 100;
  const worker = new Worker(BOOT, { workerData: { buffer, counter, rounds } });
  worker.once('error', (e) => assert.fail(e));
  await new Promise((resolve) => worker.once('message', resolve)); // loaded
  const finished = new Promise((resolve) => worker.once('message', resolve));
  worker.postMessage('go');
  const lock = new ThreadWriteLock(buffer, 1);
  // Several callers of this thread at once queue behind each other, and behind the other thread.
  const mine = Array.from({ length: rounds }, () => holdingLock(lock, cells));
  await Promise.all([...mine, finished]);
  await worker.terminate();
  // Without the lock, a read-await-write on each side loses increments to the other side.
  assert.equal(cells[0], 2 * rounds);
  assert.equal(new Int32Array(buffer)[0], 0, 'the lock is free at the end');
});

test('an error inside the lock releases it', async () => {
  const lock = new ThreadWriteLock(ThreadWriteLock.newBuffer(), 1);
  await assert.rejects(lock.run(async () => {
    throw new Error('boom');
  }), /boom/);
  assert.equal(await lock.run(async () => 'next'), 'next');
});

test('a lock left held by a thread that ended is freed for the other side', async () => {
  const buffer = ThreadWriteLock.newBuffer();
  const cells = new Int32Array(buffer);
  Atomics.store(cells, 0, 2); // side 2 took it and died
  const lock = new ThreadWriteLock(buffer, 1);
  let ran = false;
  const waiting = lock.run(async () => {
    ran = true;
  });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(ran, false, 'side 1 waits while side 2 holds the lock');
  lock.freeIfHeldBy(2);
  await waiting;
  assert.equal(ran, true);
});
