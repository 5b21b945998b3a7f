/**
 * The disk probe of `bench latency` (bench/lib/diskProbe.ts): what the disk alone does to the
 * requests of a paced window, and the probe process itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { diskFloor, startDiskProbe } from '../../bench/lib/diskProbe.ts';

test('a request due inside a flush waits until the flush ends; the others wait for none', () => {
  // 1,000 requests a second from t = 10,000 ms for one second: due at 10,000, 10,001, ... 10,999.
  const floor = diskFloor(10_000, 1000, 1000, [
    { start: 10_100.5, end: 10_150.5 }, // 50 ms: due 10,101 ... 10,150 wait 49.5 ... 0.5 ms
    { start: 10_500, end: 10_502 }, // 2 ms: not a stall (≤ 10 ms), due 10,500 and 10,501 wait
  ]);
  assert.equal(floor.max, 49.5);
  assert.equal(floor.p50, 0);
  // 52 of the 1,000 wait (49.5, 48.5, ... 0.5 ms, then 2 and 1): the p99, the 990th shortest
  // wait, is the 11th longest.
  assert.equal(floor.p99, 39.5);
  assert.equal(floor.stalls, 1);
  assert.equal(floor.stalledMs, 50);
  assert.equal(floor.stalledShare, 0.05);
});

test('a stall counts only for the part of it inside the window, and the order of the flushes does not matter', () => {
  const floor = diskFloor(1_000, 100, 100, [
    { start: 1_980, end: 2_040 }, // the window ends at 2,000: 20 ms of it inside
    { start: 940, end: 1_030 }, // starts before the window: 30 ms inside
  ]);
  assert.equal(floor.stalls, 2);
  assert.equal(floor.stalledMs, 50);
  assert.equal(floor.stalledShare, 0.05);
  // Due at 1,000, 1,010, 1,020 (waits 30, 20, 10) and 1,980, 1,990 (waits 60, 50).
  assert.equal(floor.max, 60);
});

test('no flushes: no wait at all', () => {
  const floor = diskFloor(0, 500, 2000, []);
  assert.deepEqual([floor.p50, floor.p99, floor.max, floor.stalls, floor.stalledShare], [0, 0, 0, 0, 0]);
});

test('the probe flushes in a process of its own and answers for a time range', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-disk-probe-test-'));
  const probe = await startDiskProbe(dir);
  try {
    const from = performance.timeOrigin + performance.now();
    await new Promise((r) => setTimeout(r, 300));
    const to = performance.timeOrigin + performance.now();
    const flushes = await probe.flushes(from, to);
    assert.ok(Array.isArray(flushes));
    for (const f of flushes) {
      assert.ok(f.end - f.start >= 1, 'only flushes of 1 ms or more are kept');
      assert.ok(f.end >= from && f.start <= to, 'every flush answered overlaps the range');
    }
    // The probe wrote its file in the directory it was given.
    assert.ok(fs.statSync(path.join(dir, 'disk-probe.dat')).size > 0);
  } finally {
    await probe.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
