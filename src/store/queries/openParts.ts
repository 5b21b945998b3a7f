/**
 * What is still open in a process instance that is ending, asked in one statement: ending an
 * instance cancels its active activities, open work items, waiting automatic work items, waiting
 * timers and active child instances, and an instance that completes normally has none of them.
 * One probe instead of five statements that find nothing (four UPDATEs and a SELECT of children:
 * `bench statements`, e2e, 5 of the ~52 statements of each completed instance).
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { ACTIVE_PROC_INST_STATUSES } from '../../domain/statuses.ts';
import { reusableQuery } from '../reusableQuery.ts';
import type { DB } from '../schema.ts';
import type { Executor } from '../Store.ts';
import { hasKeptActiveActivity, hasWrittenActiveActivity } from './activities.ts';
import { CANCELABLE_WORK_ITEM_STATUSES, WAITING_PROCEDURE_STATUSES } from './workItems.ts';

export interface OpenParts {
  activities: boolean;
  workItems: boolean;
  procedures: boolean;
  timers: boolean;
  children: boolean;
}

const literals = (values: readonly string[]) => values.map((v) => sql.lit(v));

type Probe = ExpressionBuilder<DB, never>;

const activeActivity = (eb: Probe, id: string) =>
  eb.exists(eb.selectFrom('activity_instances').select('id').where('proc_inst_id', '=', id).where('status', '=', sql.lit('Active')));
const openWorkItem = (eb: Probe, id: string) =>
  eb.exists(eb.selectFrom('work_items').select('work_item_id').where('proc_inst_id', '=', id).where('status', 'in', literals(CANCELABLE_WORK_ITEM_STATUSES)));
const waitingProcedure = (eb: Probe, id: string) =>
  eb.exists(
    eb.selectFrom('automatic_work_items').select('work_item_id').where('proc_inst_id', '=', id).where('status', 'in', literals(WAITING_PROCEDURE_STATUSES)),
  );
const waitingTimer = (eb: Probe, id: string) =>
  eb.exists(eb.selectFrom('timers').select('timer_id').where('proc_inst_id', '=', id).where('status', '=', sql.lit('Waiting')));
const activeChild = (eb: Probe, id: string) =>
  eb.exists(
    eb
      .selectFrom('process_instances')
      .select('proc_inst_id')
      .where('super_proc_inst_id', '=', id)
      // The partial index's own condition (migration 0004): the id is an instance id, never ''.
      .where('super_proc_inst_id', '<>', sql.lit(''))
      .where('status', 'in', literals(ACTIVE_PROC_INST_STATUSES)),
  );

// Five parameters, all the instance's id: reusableQuery binds exactly the values given, in order.
const selectOpenParts = reusableQuery((db, a: string, w: string, p: string, t: string, c: string) =>
  db.selectNoFrom((eb) => [
    activeActivity(eb, a).as('activities'),
    openWorkItem(eb, w).as('work_items'),
    waitingProcedure(eb, p).as('procedures'),
    waitingTimer(eb, t).as('timers'),
    activeChild(eb, c).as('children'),
  ]),
);

/**
 * The same probe for an instance whose token has come to rest, which ends only if no activity is
 * active: the other four are asked only then (`case`), and the active activity once (in `from`).
 * One statement where the engine ran two, the list of active activities and then this probe
 * (`bench statements`, e2e: CompleteWorkItem, twenty-fifth round in docs/performance-log.md).
 */
const selectOpenPartsIfIdle = reusableQuery((db, w: string, p: string, t: string, c: string, a: string) =>
  db
    .selectFrom(db.selectNoFrom((eb) => [activeActivity(eb, a).as('activities')]).as('a'))
    .select((eb) => {
      const probe = eb as unknown as Probe;
      // `when a.activities`, not `= 0`: SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
      const unlessActive = (open: Expression<SqlBool>) => eb.case().when(eb.ref('a.activities')).then(sql.lit(false)).else(open).end();
      return [
        'a.activities',
        unlessActive(openWorkItem(probe, w)).as('work_items'),
        unlessActive(waitingProcedure(probe, p)).as('procedures'),
        unlessActive(waitingTimer(probe, t)).as('timers'),
        unlessActive(activeChild(probe, c)).as('children'),
      ];
    }),
);

export async function findOpenParts(db: Executor, procInstId: string): Promise<OpenParts> {
  const [row] = await selectOpenParts(db, procInstId, procInstId, procInstId, procInstId, procInstId);
  return openParts(row);
}

/**
 * What is open in an instance that no active activity holds, or undefined while one does (the
 * instance does not end). For an instance started in this transaction whether one is active is
 * known without a statement, and so it is for one with an activity this transaction wrote as
 * Active (activities.ts).
 */
export async function findOpenPartsIfIdle(db: Executor, procInstId: string): Promise<OpenParts | undefined> {
  const active = hasKeptActiveActivity(db, procInstId);
  if (active === true) return undefined;
  if (active === false) return findOpenParts(db, procInstId);
  if (hasWrittenActiveActivity(db, procInstId)) return undefined;
  const [row] = await selectOpenPartsIfIdle(db, procInstId, procInstId, procInstId, procInstId, procInstId);
  return Boolean(row.activities) ? undefined : openParts(row);
}

function openParts(row: Record<string, unknown>): OpenParts {
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
  return {
    activities: Boolean(row.activities),
    workItems: Boolean(row.work_items),
    procedures: Boolean(row.procedures),
    timers: Boolean(row.timers),
    children: Boolean(row.children),
  };
}
