import type { Executor } from '../Store.ts';
import type { QueryCondition } from '../../domain/queryExpr.ts';
import type { ProcedureRow } from './workItems.ts';

export const PROCEDURE_COLUMNS = {
  WORK_ITEM_ID: 'work_item_id',
  PROC_INST_ID: 'proc_inst_id',
  ACTIVITY_INST_ID: 'activity_inst_id',
  STATUS: 'status',
  PROCEDURE_INFO: 'procedure_info',
  SESSION: 'session',
} as const;

export type ProcedureColumn = (typeof PROCEDURE_COLUMNS)[keyof typeof PROCEDURE_COLUMNS];

/** Automatic work items matching one condition (values bound as parameters), oldest first. */
export function queryProcedures(db: Executor, c: QueryCondition<ProcedureColumn>, limit: number): Promise<ProcedureRow[]> {
  const q = db.selectFrom('automatic_work_items').selectAll();
  const filtered = c.operator === 'in' ? q.where(c.column, 'in', c.values) : q.where(c.column, c.operator, c.values[0]);
  return filtered.orderBy('created_date').orderBy('work_item_id').limit(limit).execute();
}
