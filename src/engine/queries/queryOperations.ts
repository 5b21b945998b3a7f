/**
 * The Query... operations: QueryWorkList, QueryProcInsts, QueryActivityInsts (the flat
 * WFQueryExprHelper body), their `...UsingSQL` forms and QueryRegisterUsersUsingSQL
 * (`sqlWhereClause`), and QueryAuditTrail (`where`). Every condition goes through one grammar
 * (src/domain/sqlWhere.ts) and one compiler (src/store/queries/queryWhere.ts). They write nothing.
 */
import { formatDate } from '../../domain/dates.ts';
import { WaymarkError } from '../../domain/errors.ts';
import type { QueryExprInput } from '../../domain/queryExpr.ts';
import { parseWhere, type WhereNode } from '../../domain/sqlWhere.ts';
import { queryExprToWhere } from '../../domain/sqlWhereHelper.ts';
import type { AuditRow } from '../../store/queries/audit.ts';
import {
  ACTIVITY_COLUMNS,
  AUDIT_COLUMNS,
  PROC_INST_COLUMNS,
  USER_COLUMNS,
  WORK_ITEM_COLUMNS,
  findInstancesByIds,
  queryActivityRows,
  queryAuditRows,
  queryInstanceRows,
  queryUserRows,
  queryWorkItemRows,
} from '../../store/queries/queryRecords.ts';
import { catalogueOf, type ColumnMap } from '../../store/queries/queryWhere.ts';
import { authorize, holdsRight, type Caller, type OperationName } from '../accessPolicy.ts';
import type { EngineDeps } from '../context.ts';
import { toActivityInstance, toProcessInstance, toRegisteredUser, toWorkItem, type WireRecord } from '../records.ts';
import { MAX_QUERY_ROWS } from './workflowQueries.ts';

/** The answer of a query: at most MAX_QUERY_ROWS records; `truncated` when more matched. */
export interface QueryAnswer {
  items: WireRecord[];
  truncated: boolean;
}

export interface SqlWhereInput {
  sqlWhereClause?: unknown;
}

export interface AuditWhereInput {
  where?: unknown;
  /** One sample of the interface family sends the condition as `sql`; accepted too. */
  sql?: unknown;
}

const catalogues = new Map<ColumnMap, ReturnType<typeof catalogueOf>>();
function catalogue(map: ColumnMap) {
  let c = catalogues.get(map);
  if (!c) catalogues.set(map, (c = catalogueOf(map)));
  return c;
}

export async function queryWorkList(deps: EngineDeps, caller: Caller, input: QueryExprInput): Promise<QueryAnswer> {
  return workItems(deps, caller, 'QueryWorkList', () => queryExprToWhere(input, catalogue(WORK_ITEM_COLUMNS)));
}

export async function queryWorkListUsingSQL(deps: EngineDeps, caller: Caller, input: SqlWhereInput): Promise<QueryAnswer> {
  return workItems(deps, caller, 'QueryWorkListUsingSQL', () => sqlWhere(input.sqlWhereClause, WORK_ITEM_COLUMNS, 'sqlWhereClause'));
}

export async function queryProcInsts(deps: EngineDeps, caller: Caller, input: QueryExprInput): Promise<QueryAnswer> {
  return instances(deps, caller, 'QueryProcInsts', () => queryExprToWhere(input, catalogue(PROC_INST_COLUMNS)));
}

export async function queryProcInstsUsingSQL(deps: EngineDeps, caller: Caller, input: SqlWhereInput): Promise<QueryAnswer> {
  return instances(deps, caller, 'QueryProcInstsUsingSQL', () => sqlWhere(input.sqlWhereClause, PROC_INST_COLUMNS, 'sqlWhereClause'));
}

export async function queryActivityInsts(deps: EngineDeps, caller: Caller, input: QueryExprInput): Promise<QueryAnswer> {
  await authorize(caller, 'QueryActivityInsts', { ownRows: true });
  const where = queryExprToWhere(input, catalogue(ACTIVITY_COLUMNS));
  const visibleTo = holdsRight(caller, 'QueryActivityInsts') ? null : caller.userKey;
  return capped(await queryActivityRows(deps.store.db, where, visibleTo, MAX_QUERY_ROWS + 1), toActivityInstance);
}

export async function queryRegisterUsersUsingSQL(deps: EngineDeps, caller: Caller, input: SqlWhereInput): Promise<QueryAnswer> {
  await authorize(caller, 'QueryRegisterUsersUsingSQL');
  const where = sqlWhere(input.sqlWhereClause, USER_COLUMNS, 'sqlWhereClause');
  return capped(await queryUserRows(deps.store.db, where, MAX_QUERY_ROWS + 1), toRegisteredUser);
}

export async function queryAuditTrail(deps: EngineDeps, caller: Caller, input: AuditWhereInput): Promise<QueryAnswer> {
  await authorize(caller, 'QueryAuditTrail');
  const where = sqlWhere(input.where ?? input.sql, AUDIT_COLUMNS, 'where');
  return capped(await queryAuditRows(deps.store.db, where, MAX_QUERY_ROWS + 1), toWFAuditTrailItem);
}

/** WFAuditTrailItem: Category and Status are integers (Status 0 succeeded, 1 failed). */
export function toWFAuditTrailItem(a: AuditRow): WireRecord {
  return {
    Category: a.category,
    DateOccurred: formatDate(a.date_occurred),
    Description: a.description,
    ObjectID: a.object_id,
    ObjectInfo: a.object_info,
    Performer: a.performer,
    Purpose: a.purpose,
    Status: a.status,
  };
}

async function workItems(deps: EngineDeps, caller: Caller, op: OperationName, where: () => WhereNode | null): Promise<QueryAnswer> {
  await authorize(caller, op, { ownRows: true });
  const condition = where();
  const visibleTo = holdsRight(caller, op) ? null : caller.userKey;
  const rows = await queryWorkItemRows(deps.store.db, condition, visibleTo, MAX_QUERY_ROWS + 1);
  const instances = await findInstancesByIds(deps.store.db, rows.slice(0, MAX_QUERY_ROWS).map((r) => r.proc_inst_id));
  return capped(rows, (w) => toWorkItem(w, instances.get(w.proc_inst_id)));
}

async function instances(deps: EngineDeps, caller: Caller, op: OperationName, where: () => WhereNode | null): Promise<QueryAnswer> {
  await authorize(caller, op, { ownRows: true });
  const condition = where();
  const visibleTo = holdsRight(caller, op) ? null : caller.userKey;
  return capped(await queryInstanceRows(deps.store.db, condition, visibleTo, MAX_QUERY_ROWS + 1), toProcessInstance);
}

/** A `sqlWhereClause` / `where` property: absent, null or blank means every row. */
function sqlWhere(value: unknown, map: ColumnMap, field: string): WhereNode | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new WaymarkError('InvalidRequest', `${field} must be a condition as a string, e.g. "STATUS = 'Assigned'".`);
  return parseWhere(value, catalogue(map), field);
}

function capped<R>(rows: R[], toWire: (row: R) => WireRecord): QueryAnswer {
  const truncated = rows.length > MAX_QUERY_ROWS;
  return { items: rows.slice(0, MAX_QUERY_ROWS).map(toWire), truncated };
}
