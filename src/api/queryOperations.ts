/**
 * The Query... operations of both areas. Conditions follow the grammar of docs/queries.md; the
 * answers are bare arrays of at most 10,000 records, oldest first. When more matched, the
 * response carries `Waymark-Result-Truncated: 10000`.
 */
import type { QueryAnswer } from '../engine/queries/queryOperations.ts';
import type { Operation, OperationContext } from './Operation.ts';
import { bool, object, str, strOrNull } from './schemas.ts';

const WHERE_MAX = 64 * 1024;

const queryExprBody = (columns: string) =>
  object(
    {
      ColumnName: str(64, `upper-snake column name: ${columns} (docs/queries.md lists them all)`),
      Operator: { type: ['string', 'integer'], maxLength: 8, description: 'EQ NE LT LE GT GE LIKE IN, or the codes 0-7' },
      WhereClause: { type: ['string', 'integer'], maxLength: WHERE_MAX, description: 'the value (IN: a comma-separated list; IsValue false: a column name)' },
      IsValue: bool('true (default): WhereClause is a value; false: it names a column'),
    },
    ['ColumnName', 'Operator', 'WhereClause'],
  );

const sqlWhereBody = object({
  sqlWhereClause: strOrNull(WHERE_MAX, "a condition without the WHERE keyword, e.g. STATUS = 'Assigned' AND USER_ID LIKE 'LOCAL\\%'; empty or null: every row"),
});

/** Sets the truncation header and answers the records. */
function answer(ctx: OperationContext, result: QueryAnswer): unknown[] {
  if (result.truncated) ctx.reply.header('Waymark-Result-Truncated', String(result.items.length));
  return result.items;
}

export const queryOperations: Operation[] = [
  {
    name: 'QueryWorkList', area: 'Workflow', method: 'POST', reply: 'bare', body: queryExprBody('STATUS, USER_ID, PROC_INST_ID, DEF_NAME, ...'),
    summary: 'Human tasks matching one condition; without right 81 only your own and your pools\' tasks.',
    run: async (ctx) => answer(ctx, await ctx.engine.queryWorkList(ctx.caller, ctx.body)),
  },
  {
    name: 'QueryWorkListUsingSQL', area: 'Workflow', method: 'POST', reply: 'bare', body: sqlWhereBody,
    summary: 'Human tasks matching a WHERE condition; without right 81 only your own and your pools\' tasks.',
    run: async (ctx) => answer(ctx, await ctx.engine.queryWorkListUsingSQL(ctx.caller, ctx.body)),
  },
  {
    name: 'QueryProcInsts', area: 'Workflow', method: 'POST', reply: 'bare', body: queryExprBody('STATUS, DEF_NAME, PROC_INITIATOR, ...'),
    summary: 'Process instances matching one condition; without right 23 only those you take part in.',
    run: async (ctx) => answer(ctx, await ctx.engine.queryProcInsts(ctx.caller, ctx.body)),
  },
  {
    name: 'QueryProcInstsUsingSQL', area: 'Workflow', method: 'POST', reply: 'bare', body: sqlWhereBody,
    summary: 'Process instances matching a WHERE condition; without right 23 only those you take part in.',
    run: async (ctx) => answer(ctx, await ctx.engine.queryProcInstsUsingSQL(ctx.caller, ctx.body)),
  },
  {
    name: 'QueryActivityInsts', area: 'Workflow', method: 'POST', reply: 'bare', body: queryExprBody('PROC_INST_ID, NAME, SESSION, ...'),
    summary: 'Activity instances matching one condition; without right 23 only those of instances you take part in.',
    run: async (ctx) => answer(ctx, await ctx.engine.queryActivityInsts(ctx.caller, ctx.body)),
  },
  {
    name: 'QueryAuditTrail', area: 'Workflow', method: 'POST', reply: 'bare',
    body: object({
      where: strOrNull(WHERE_MAX, "a condition without the WHERE keyword, e.g. CATEGORY = 0 AND PURPOSE = 'Release process definition'"),
      sql: strOrNull(WHERE_MAX, 'accepted instead of where'),
    }),
    summary: 'Audit trail entries (WFAuditTrailItem) matching a WHERE condition, oldest first.',
    run: async (ctx) => answer(ctx, await ctx.engine.queryAuditTrail(ctx.caller, ctx.body)),
  },
  {
    name: 'QueryRegisterUsersUsingSQL', area: 'Admin', method: 'POST', reply: 'bare', body: sqlWhereBody,
    summary: 'Registered users matching a WHERE condition.',
    run: async (ctx) => answer(ctx, await ctx.engine.queryRegisterUsersUsingSQL(ctx.caller, ctx.body)),
  },
];
