/**
 * What `bench pg` adds beside its e2e figure (bench/scenarios/pg.ts): the statements per
 * completed instance from pg_stat_statements, the CPU of a process tree (the cluster's postmaster
 * and its backends), and one round trip through the pg driver as a baseline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { findPgBin, startPgCluster } from '../../scripts/pg-cluster.ts';
import { pgRoundTrip, PgStatements } from '../../bench/lib/pg.ts';
import { perCompleted } from '../../bench/scenarios/pg.ts';
import { processTreeTicks } from '../../bench/lib/threadCpu.ts';

test('a process tree counts its children, while they run and after they end', async () => {
  const before = processTreeTicks(process.pid)!;
  // A child that spins for 400 ms of CPU, then waits to be told to end.
  const child = spawn(process.execPath, ['-e', 'const t = process.cpuUsage(); while (process.cpuUsage(t).user < 400_000); process.stdout.write("spun\\n"); setTimeout(() => {}, 60_000);'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const alive = processTreeTicks(process.pid)!;
  // Ticks are 10 ms: the child's 400 ms (and its start) are at least 30 of them.
  assert.ok(alive - before >= 30, `the running child counted: ${alive - before} ticks`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const after = processTreeTicks(process.pid)!;
  assert.ok(after >= alive, `an ended child's ticks stay counted (${alive} then ${after})`);
  assert.equal(processTreeTicks(2 ** 22 + 12_345), null, 'no such process');
});

test('statements per completed instance: the total over every text, and the most run first', () => {
  const counted = [
    { calls: 300, execUs: 10, text: 'select a' },
    { calls: 100, execUs: 50, text: 'insert b' },
    { calls: 50, execUs: 5, text: 'update c' },
  ];
  const r = perCompleted(counted, 100, 2);
  assert.equal(r.total, 4.5);
  assert.deepEqual(
    r.top.map((t) => [t.text, t.perInstance]),
    [
      ['select a', 3],
      ['insert b', 1],
    ],
  );
});

const bin = findPgBin();
const kept = bin !== null && fs.existsSync(path.join(bin, '..', 'lib', 'pg_stat_statements.so'));

test('a cluster started with pg_stat_statements counts the statements of one database', { skip: kept ? false : 'no PostgreSQL server binaries with pg_stat_statements here' }, async () => {
  const cluster = await startPgCluster(bin!, { settings: { shared_preload_libraries: 'pg_stat_statements' } });
  try {
    const statements = await PgStatements.open(cluster.url);
    assert.ok(statements, 'the extension is there');
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      await statements.reset();
      for (let i = 0; i < 3; i++) await client.query({ name: 'probe', text: 'select $1::int as probe_n', values: [i] });
      const read = await statements.read();
      const probe = read.find((s) => s.text.includes('as probe_n'));
      assert.equal(probe?.calls, 3, JSON.stringify(read));
      assert.ok(!read.some((s) => s.text.includes('pg_stat_statements')), 'its own queries are left out');
    } finally {
      await client.end();
      await statements.close();
    }
    const postmaster = cluster.postmasterPid();
    assert.ok(postmaster !== null && processTreeTicks(postmaster) !== null, 'the postmaster is found and its tree read');
    const trip = await pgRoundTrip(cluster.url, 200);
    assert.ok(trip.cpuUs > 0 && trip.wallUs > 0, JSON.stringify(trip));
  } finally {
    cluster.discard();
  }
});

test('a setting that is not a plain name and value is refused before anything starts', async () => {
  // With binaries that do not exist, anything past the check would fail otherwise (ENOENT).
  await assert.rejects(startPgCluster('/nonexistent/bin', { settings: { 'log_line_prefix': '%m; rm -rf /' } }), /not a plain name and value/);
});
