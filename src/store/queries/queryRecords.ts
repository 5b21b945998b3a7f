/**
 * The Query... operations' reads: per record kind the whitelist of upper-snake column names
 * (WIRE.md §Names and queries) and one query that applies a checked condition, an optional
 * "only what this user takes part in" filter, a stable order (oldest first) and a row limit.
 */
import type { WhereNode } from '../../domain/sqlWhere.ts';
import { AutoWorkItemStatus, ProcInstStatus, WorkItemStatus } from '../../domain/statuses.ts';
import type { Executor } from '../Store.ts';
import { literalLimit } from '../reusableQuery.ts';
import type { ActivityRow } from './activities.ts';
import type { AuditRow } from './audit.ts';
import type { InstanceRow } from './instances.ts';
import { compileWhere, type ColumnMap } from './queryWhere.ts';
import type { UserRow } from './users.ts';
import type { ProcedureRow, WorkItemRow } from './workItems.ts';

const text = { kind: 'text' } as const;
const id = { kind: 'id' } as const;
const user = { kind: 'user' } as const;
const integer = { kind: 'integer' } as const;
const date = { kind: 'date' } as const;
const boolean = { kind: 'boolean' } as const;

/** Work items (WFManualWorkItem) as `w`, their process instance as `p`. */
export const WORK_ITEM_COLUMNS: ColumnMap = {
  WORK_ITEM_ID: { type: id, ref: 'w.work_item_id' },
  PROC_INST_ID: { type: id, ref: 'w.proc_inst_id' },
  ACTIVITY_INST_ID: { type: id, ref: 'w.activity_inst_id' },
  SOURCE_WORK_ITEM_ID: { type: id, ref: 'w.source_work_item_id', partialIndex: true },
  NAME: { type: text, ref: 'w.name' },
  DISPLAY_NAME: { type: text, ref: 'w.display_name' },
  STATUS: { type: { kind: 'status', values: Object.values(WorkItemStatus) }, ref: 'w.status' },
  USER_ID: { type: user, ref: 'w.user_id', key: 'w.user_key' },
  ORIGINAL_USER_ID: { type: user, ref: 'w.original_user_id' },
  LAST_MODIFIED_BY: { type: user, ref: 'w.last_modified_by' },
  CLIENT_DATA: { type: text, ref: 'w.client_data' },
  PRIORITY: { type: text, ref: 'w.priority' },
  POOL_INFO: { type: text, ref: 'w.pool_info' },
  SESSION: { type: integer, ref: 'w.session' },
  WAIT_WORK_PERFORMED: { type: boolean, ref: 'w.wait_work_performed' },
  CREATED_DATE: { type: date, ref: 'w.created_date' },
  ASSIGNED_DATE: { type: date, ref: 'w.assigned_date' },
  ACTIVATED_DATE: { type: date, ref: 'w.activated_date' },
  DUE_DATE: { type: date, ref: 'w.due_date' },
  COMPLETED_DATE: { type: date, ref: 'w.completed_date' },
  CANCELLED_DATE: { type: date, ref: 'w.cancelled_date' },
  LAST_MODIFIED_DATE: { type: date, ref: 'w.last_modified_date' },
  PROC_DEF_ID: { type: id, ref: 'p.def_id' },
  DEF_NAME: { type: text, ref: 'p.def_name' },
  PROC_INST_NAME: { type: text, ref: 'p.proc_inst_name' },
  WORK_OBJECT_ID: { type: text, ref: 'p.work_object_id' },
  APPL_NAME: { type: text, constant: '' },
};

/** Process instances (WFBaseProcessInstance) as `p`. */
export const PROC_INST_COLUMNS: ColumnMap = {
  PROC_INST_ID: { type: id, ref: 'p.proc_inst_id' },
  PROC_INST_NAME: { type: text, ref: 'p.proc_inst_name' },
  DEF_ID: { type: id, ref: 'p.def_id' },
  DEF_NAME: { type: text, ref: 'p.def_name' },
  PROCESS_DEFINITION_DISPLAY_NAME: { type: text, ref: 'p.def_name' },
  VERSION: { type: integer, ref: 'p.version' },
  STATUS: { type: { kind: 'status', values: Object.values(ProcInstStatus) }, ref: 'p.status' },
  PROC_INITIATOR: { type: user, ref: 'p.initiator', key: 'p.initiator_key' },
  PROCESS_INITIATOR: { type: user, ref: 'p.initiator', key: 'p.initiator_key' },
  LAST_MODIFIED_BY: { type: user, ref: 'p.last_modified_by' },
  WORK_OBJECT_ID: { type: text, ref: 'p.work_object_id' },
  WORK_OBJECT_INFO: { type: text, ref: 'p.work_object_info' },
  SUPER_PROC_INST_ID: { type: id, ref: 'p.super_proc_inst_id', partialIndex: true },
  INCIDENT: { type: text, ref: 'p.incident' },
  STARTED_DATE: { type: date, ref: 'p.started_date' },
  DUE_DATE: { type: date, ref: 'p.due_date' },
  COMPLETED_DATE: { type: date, ref: 'p.completed_date' },
  LAST_MODIFIED_DATE: { type: date, ref: 'p.last_modified_date' },
  APPL_NAME: { type: text, constant: '' },
};

/** Activity instances (WFBaseActivityInstance) as `a`. */
export const ACTIVITY_COLUMNS: ColumnMap = {
  ID: { type: id, ref: 'a.id' },
  PROC_INST_ID: { type: id, ref: 'a.proc_inst_id' },
  NAME: { type: text, ref: 'a.name' },
  DISPLAY_NAME: { type: text, ref: 'a.display_name' },
  IN_STACK: { type: boolean, ref: 'a.in_stack' },
  PENDING: { type: boolean, ref: 'a.pending' },
  SESSION: { type: integer, ref: 'a.session' },
  TOKEN_POS: { type: integer, ref: 'a.token_pos' },
  TOKENS: { type: integer, ref: 'a.tokens' },
  STARTED_DATE: { type: date, ref: 'a.started_date' },
  DUE_DATE: { type: date, ref: 'a.due_date' },
  COMPLETED_DATE: { type: date, ref: 'a.completed_date' },
};

/** Automatic work items (WFAutomaticWorkItem) as `aw`. */
export const PROCEDURE_COLUMNS: ColumnMap = {
  WORK_ITEM_ID: { type: id, ref: 'aw.work_item_id' },
  PROC_INST_ID: { type: id, ref: 'aw.proc_inst_id' },
  ACTIVITY_INST_ID: { type: id, ref: 'aw.activity_inst_id' },
  STATUS: { type: { kind: 'status', values: Object.values(AutoWorkItemStatus) }, ref: 'aw.status' },
  PROCEDURE_INFO: { type: text, ref: 'aw.procedure_info' },
  SESSION: { type: integer, ref: 'aw.session' },
  CREATED_DATE: { type: date, ref: 'aw.created_date' },
  DUE_DATE: { type: date, ref: 'aw.due_date' },
  COMPLETED_DATE: { type: date, ref: 'aw.completed_date' },
  APPL_NAME: { type: text, constant: '' },
};

/** Registered users as `u`. Credentials are in another table and cannot be named. */
export const USER_COLUMNS: ColumnMap = {
  USER_NAME: { type: user, ref: 'u.user_name', key: 'u.user_key' },
  FULL_NAME: { type: text, ref: 'u.full_name' },
  EMAIL_ADDRESS: { type: text, ref: 'u.email_address' },
  E_MAIL_ADDRESS: { type: text, ref: 'u.email_address' },
  DEPARTMENT: { type: text, ref: 'u.department' },
  TITLE: { type: text, ref: 'u.title' },
  MANAGER: { type: text, ref: 'u.manager' },
  LOCALE: { type: text, ref: 'u.locale' },
  TIME_ZONE: { type: text, ref: 'u.time_zone' },
  ONLINE_CONTACT: { type: text, ref: 'u.online_contact' },
  REF_ID: { type: text, ref: 'u.ref_id' },
  REGISTERED_DATE: { type: date, ref: 'u.registered_date' },
  UAL_EXPIRATION_DATE: { type: date, ref: 'u.ual_expiration_date' },
  UAL_NEVER_EXPIRES: { type: boolean, ref: 'u.ual_never_expires' },
  DISABLED: { type: boolean, ref: 'u.disabled' },
};

/** The audit trail (WFAuditTrailItem) as `t`. */
export const AUDIT_COLUMNS: ColumnMap = {
  CATEGORY: { type: integer, ref: 't.category' },
  DATE_OCCURRED: { type: date, ref: 't.date_occurred' },
  DESCRIPTION: { type: text, ref: 't.description' },
  OBJECT_ID: { type: text, ref: 't.object_id' },
  OBJECT_INFO: { type: text, ref: 't.object_info' },
  PERFORMER: { type: user, ref: 't.performer' },
  PURPOSE: { type: text, ref: 't.purpose' },
  STATUS: { type: integer, ref: 't.status' },
};

/**
 * Work items matching `where`, oldest first. With `visibleTo` (a user key) only the items that
 * user holds (or held: completed, canceled) and the `New` items of pools the user is in, which
 * the user could take (as GetWorkListByUserID shows them).
 */
export function queryWorkItemRows(db: Executor, where: WhereNode | null, visibleTo: string | null, limit: number): Promise<WorkItemRow[]> {
  let q = db.selectFrom('work_items as w').leftJoin('process_instances as p', 'p.proc_inst_id', 'w.proc_inst_id').selectAll('w');
  if (where) q = q.where((eb) => compileWhere(eb, where, WORK_ITEM_COLUMNS));
  if (visibleTo !== null) {
    q = q.where((eb) =>
      eb.or([
        eb('w.user_key', '=', visibleTo),
        eb.and([
          eb('w.status', '=', 'New'),
          eb.exists(
            eb.selectFrom('work_item_pool as wp').select('wp.member_key').whereRef('wp.work_item_id', '=', 'w.work_item_id').where('wp.member_key', '=', visibleTo),
          ),
        ]),
      ]),
    );
  }
  return q.orderBy('w.work_item_id').limit(literalLimit(limit)).execute();
}

/** Process instances matching `where`, oldest first; with `visibleTo` only those the user takes part in. */
export function queryInstanceRows(db: Executor, where: WhereNode | null, visibleTo: string | null, limit: number): Promise<InstanceRow[]> {
  let q = db.selectFrom('process_instances as p').selectAll('p');
  if (where) q = q.where((eb) => compileWhere(eb, where, PROC_INST_COLUMNS));
  if (visibleTo !== null) {
    q = q.where((eb) =>
      eb.exists(eb.selectFrom('participants as pa').select('pa.user_key').whereRef('pa.proc_inst_id', '=', 'p.proc_inst_id').where('pa.user_key', '=', visibleTo)),
    );
  }
  return q.orderBy('p.proc_inst_id').limit(literalLimit(limit)).execute();
}

/** Activity instances matching `where`; with `visibleTo` only those of instances the user takes part in. */
export function queryActivityRows(db: Executor, where: WhereNode | null, visibleTo: string | null, limit: number): Promise<ActivityRow[]> {
  let q = db.selectFrom('activity_instances as a').selectAll('a');
  if (where) q = q.where((eb) => compileWhere(eb, where, ACTIVITY_COLUMNS));
  if (visibleTo !== null) {
    q = q.where((eb) =>
      eb.exists(eb.selectFrom('participants as pa').select('pa.user_key').whereRef('pa.proc_inst_id', '=', 'a.proc_inst_id').where('pa.user_key', '=', visibleTo)),
    );
  }
  return q.orderBy('a.proc_inst_id').orderBy('a.ord').limit(literalLimit(limit)).execute();
}

/** Automatic work items matching `where`, oldest first. */
export function queryProcedureRows(db: Executor, where: WhereNode | null, limit: number): Promise<ProcedureRow[]> {
  let q = db.selectFrom('automatic_work_items as aw').selectAll('aw');
  if (where) q = q.where((eb) => compileWhere(eb, where, PROCEDURE_COLUMNS));
  return q.orderBy('aw.created_date').orderBy('aw.work_item_id').limit(literalLimit(limit)).execute();
}

export function queryUserRows(db: Executor, where: WhereNode | null, limit: number): Promise<UserRow[]> {
  let q = db.selectFrom('users as u').selectAll('u');
  if (where) q = q.where((eb) => compileWhere(eb, where, USER_COLUMNS));
  return q.orderBy('u.user_key').limit(literalLimit(limit)).execute();
}

export function queryAuditRows(db: Executor, where: WhereNode | null, limit: number): Promise<AuditRow[]> {
  let q = db.selectFrom('audit_trail as t').selectAll('t');
  if (where) q = q.where((eb) => compileWhere(eb, where, AUDIT_COLUMNS));
  return q.orderBy('t.id').limit(literalLimit(limit)).execute();
}

/** Instances by id, for the instance fields of work items (in chunks: bounded parameter lists). */
export async function findInstancesByIds(db: Executor, ids: readonly string[]): Promise<Map<string, InstanceRow>> {
  const out = new Map<string, InstanceRow>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db.selectFrom('process_instances').selectAll().where('proc_inst_id', 'in', unique.slice(i, i + 500)).execute();
    for (const r of rows) out.set(r.proc_inst_id, r);
  }
  return out;
}
