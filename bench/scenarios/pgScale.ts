/**
 * `scale` on PostgreSQL, only when named (224 s on 2026-11-27): the reads and the four target writes with 1 M
 * instances of bench/fixtures/scale.bpmn waiting at their user task (1 M work items, 3 M activity
 * instances, 1 M events, their pool, participant and audit rows) copied into the database while no
 * server runs, in at most PG_SEED_BUDGET_S (the real counts are printed), beside a second
 * database made from the first one just before (CREATE DATABASE … TEMPLATE: the same users,
 * instances and write targets, without the bulk rows). Measured as `scale` measures, op by op in
 * four windows (empty, large, large, empty), each side the mean of its two.
 *
 * Not in the full run: PostgreSQL takes the copies at ~88,000 rows/s here (10 M rows in 114 s;
 * SQLite 150,000-200,000 within `scale`'s 72-s budget), and `npm run bench` must stay under ten
 * minutes.
 * Target, as on SQLite: every figure ≥ 0.9 × the empty database's.
 */
import type { Row, Scenario } from '../lib/context.ts';
import { PgSeeder, PgWatch, seedWriteGroupsPg } from '../lib/pg.ts';
import { makeWriteTemplates, readOps, seedReads } from '../lib/workload.ts';
import { log } from '../lib/util.ts';
import { skippedWithoutPg } from './pg.ts';
import { measureAbba, SCALE_WINDOW_S, seededRow, TARGET_INSTANCES } from './scale.ts';

const PG_SEED_BUDGET_S = 300;

export const pgScale: Scenario = {
  name: 'pg-scale',
  title: 'scale on PostgreSQL: reads and writes with 1 M instances stored, beside a copy from before (only when named)',
  async run(ctx) {
    const skipped = await skippedWithoutPg(ctx, 'pg-scale');
    if (skipped) return skipped;
    // Rates of `pg` when it ran in this invocation, for the notes and to size the write targets.
    const pgData = ctx.results.get('pg')?.data;
    const earlier = {
      read: (op: string): number | undefined => pgData?.reads?.[op]?.rate,
      write: (op: string): number | undefined => pgData?.writes?.ops?.[op]?.accepted.rate,
    };
    const url = await ctx.pg.createDatabase('scale');
    const setup = await ctx.startServer('setup', { databaseUrl: url });
    const set = await seedReads(setup.api);
    const templates = await makeWriteTemplates(setup.api);
    const scaleDef = await setup.api.deploy('scale.bpmn');
    const scaleInstance = await setup.api.startInstance(scaleDef);
    await setup.stop();

    // Each side takes its own copy of the targets: the first window's warm-up and two windows,
    // at up to twice the rate `pg` measured (1,000/s when it did not run), at least 6,000.
    const size = (op: string) => Math.max(6_000, Math.ceil((earlier.write(op) ?? 1_000) * (1 + 2 * SCALE_WINDOW_S) * 2));
    const groups = await seedWriteGroupsPg(url, templates, { assign: size('AssignWorkItem'), undo: size('UndoAssignWorkItem'), link: 2000, cancel: size('CancelProcInst'), complete: 0 });
    const emptyUrl = await ctx.pg.createDatabase('scale_empty', { template: url });

    const seeder = await PgSeeder.open(url);
    let bulk: Awaited<ReturnType<PgSeeder['clone']>>;
    const counts: Record<string, number> = {};
    try {
      const t = await seeder.template(scaleInstance);
      bulk = await seeder.clone(t, TARGET_INSTANCES, { batch: 10_000, deadline: performance.now() + PG_SEED_BUDGET_S * 1000 });
      await seeder.analyze();
      for (const table of ['process_instances', 'work_items', 'activity_instances', 'events', 'audit_trail']) counts[table] = await seeder.count(table);
    } finally {
      await seeder.close();
    }
    const watchLarge = await PgWatch.open(url);
    const watchEmpty = await PgWatch.open(emptyUrl);
    const dbBytes = await watchLarge.count('select pg_database_size(current_database())');
    log(`  seeded ${bulk.copies.toLocaleString('en-US')} instances (${bulk.rows.toLocaleString('en-US')} rows) in ${bulk.seconds.toFixed(1)} s; now ${JSON.stringify(counts)}; ${(dbBytes / 2 ** 30).toFixed(2)} GiB`);

    const large = await ctx.startServer('large', { databaseUrl: url });
    const empty = await ctx.startServer('empty', { databaseUrl: emptyUrl });
    const rows: Row[] = [seededRow('pg-scale', bulk, PG_SEED_BUDGET_S, counts, dbBytes)];
    const data: Record<string, any> = { seeded: bulk, counts, dbBytes, reads: {}, writes: {} };
    try {
      await measureAbba(ctx, { large, empty, watchLarge, watchEmpty }, { reads: readOps(set), groups, templates }, 'pg-scale', SCALE_WINDOW_S, rows, data, earlier);
    } finally {
      await watchLarge.close();
      await watchEmpty.close();
      await large.stop();
      await empty.stop();
    }
    // The ids of a million copies are not worth keeping in the results file.
    data.seeded = { copies: bulk.copies, rows: bulk.rows, seconds: bulk.seconds };
    return { rows, data };
  },
};
