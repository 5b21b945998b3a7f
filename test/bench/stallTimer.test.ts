/**
 * The tail diagnostics of `bench latency`: the stall timer preload (bench/lib/stallTimer.mjs) in a
 * real process with a worker thread, and the report that lines paced answers up with its lines
 * (bench/lib/stallReport.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseStalls, windowReport } from '../../bench/lib/stallReport.ts';

const PRELOAD = path.resolve(import.meta.dirname, '../../bench/lib/stallTimer.mjs');

test('the stall timer records a blocked event loop and a full collection, with the thread of each', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-stalls-'));
  try {
    const file = path.join(dir, 'stalls.log');
    // The main thread blocks 60 ms and collects fully; a worker blocks 40 ms. The preload writes
    // once a second and at exit, so the process lives a little over a second.
    const script = `
      import { Worker } from 'node:worker_threads';
      const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
      setTimeout(() => { spin(60); globalThis.gc(); }, 50);
      new Worker("const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); }; setTimeout(() => spin(40), 50); setTimeout(() => {}, 1300);", { eval: true });
      setTimeout(() => {}, 1300);
    `;
    const before = Date.now();
    execFileSync(process.execPath, ['--expose-gc', '--import', PRELOAD, '--input-type=module', '-e', script], {
      env: { ...process.env, WAYMARK_BENCH_STALLS_FILE: file, WAYMARK_BENCH_STALLS_MS: '20', NODE_OPTIONS: '' },
    });
    const events = parseStalls(fs.readFileSync(file, 'utf8'));
    const mainStall = events.find((e) => e.thread === '0' && e.what === 'stall');
    assert.ok(mainStall, 'a stall of the main thread');
    assert.ok(mainStall.ms >= 50 && mainStall.ms < 1000, `main thread stall of ${mainStall.ms} ms`);
    assert.ok(mainStall.atMs >= before && mainStall.atMs <= Date.now(), 'stamped with the wall clock');
    // A busy loop runs: most of the stretch is time on a core (unless the machine is very busy).
    assert.ok(mainStall.ran !== undefined && mainStall.waited !== undefined, 'the scheduler counters');
    assert.ok(mainStall.ran + mainStall.waited >= 40, `ran ${mainStall.ran} + waited ${mainStall.waited} ms`);
    const workerStall = events.find((e) => e.thread === '1' && e.what === 'stall');
    assert.ok(workerStall, 'a stall of the worker thread');
    assert.ok(workerStall.ms >= 30 && workerStall.ms < 1000, `worker stall of ${workerStall.ms} ms`);
    assert.ok(events.some((e) => e.thread === '0' && e.what === 'gc' && e.kind === 'major'), 'the forced full collection');
    // Only stretches over the threshold (20 ms here) are stalls.
    assert.ok(events.filter((e) => e.what === 'stall').every((e) => e.ms > 20));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the report counts slow answers due near a major collection and the share of the window that covers', () => {
  // 1,000 answers, one per ms from t = 100,000; those due in 100,300..100,309 took 25 ms, the
  // others 1 ms. A major collection of thread 2 starts at 100,320: answers due from 100,280 to
  // 100,335 are near it (40 ms before, 15 after), 55 of the window's 999 ms.
  const answers: [number, number][] = Array.from({ length: 1000 }, (_, i) => [100_000 + i, i >= 300 && i < 310 ? 25 : 1]);
  const events = parseStalls(
    ['100320.000 thread 2 gc major 4.5', '100700.000 thread 0 gc minor 1.0', '100701.000 thread 0 stall 3.5 ran 0.5 waited 3.0', '999999.000 thread 0 gc major 9', 'not a line'].join('\n'),
  );
  const r = windowReport(answers, events);
  assert.equal(r.answers, 1000);
  assert.equal(r.slow, 10);
  assert.equal(r.slowNearMajor, 10);
  assert.equal(r.p99, 1); // 10 of 1,000 over: the 990th shortest is still 1 ms
  assert.ok(Math.abs(r.nearShare - 55 / 999) < 1e-9);
  assert.deepEqual(r.threads, { '2': { 'gc major': { n: 1, ms: 4.5 } }, '0': { 'gc minor': { n: 1, ms: 1 }, stall: { n: 1, ms: 3.5, ran: 0.5, waited: 3 } } });
  // The same slow answers with the collection elsewhere: none of them near it.
  const elsewhere = windowReport(answers, parseStalls('100800.000 thread 2 gc major 4.5'));
  assert.equal(elsewhere.slowNearMajor, 0);
});

test('the paced load generator sends each request when it falls due, and writes each answer due time and latency when asked to', async () => {
  const { LoadGenerator } = await import('../../bench/lib/load.ts');
  const http = await import('node:http');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-paced-'));
  // Every 10th request waits 30 ms before its answer.
  let n = 0;
  const server = http.createServer((req, res) => {
    const slow = n++ % 10 === 0;
    setTimeout(() => res.end('{}'), slow ? 30 : 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const saved = process.env.WAYMARK_BENCH_PACED_TRACE;
  process.env.WAYMARK_BENCH_PACED_TRACE = dir;
  const load = await LoadGenerator.start();
  try {
    const before = Date.now();
    const r = await load.run({ url: `http://127.0.0.1:${port}`, requests: [{ method: 'GET', path: '/x' }], kind: 'paced', rate: 200, duration: 1, connections: 8 });
    const files = fs.readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0], /^paced-\d+-200\.txt$/);
    const lines = fs.readFileSync(path.join(dir, files[0]), 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number));
    assert.equal(lines.length, r.ok);
    assert.ok(r.ok >= 190, `${r.ok} answers`);
    const dues = lines.map((l) => l[0]).sort((a, b) => a - b);
    assert.ok(dues[0] >= before - 5 && dues[dues.length - 1] <= Date.now(), 'due times on the wall clock');
    // Due 5 ms apart (200/s), whatever order the answers came in.
    for (let i = 1; i < dues.length; i++) assert.ok(Math.abs(dues[i] - dues[i - 1] - 5) < 0.01, `due ${dues[i] - dues[i - 1]} ms after the last`);
    // Each request leaves when it falls due, not one interval (5 ms) later: until the thirty-ninth
    // round every answer, however fast, counted at least that interval as latency.
    const fast = lines.filter((l) => l[1] < 4).length;
    assert.ok(fast >= lines.length / 4, `${fast} of ${lines.length} answers under 4 ms`);
    const slow = lines.filter((l) => l[1] >= 30).length;
    assert.ok(slow >= 15 && slow <= 40, `${slow} answers of 30 ms or more`);
  } finally {
    load.close();
    if (saved === undefined) delete process.env.WAYMARK_BENCH_PACED_TRACE;
    else process.env.WAYMARK_BENCH_PACED_TRACE = saved;
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
