/**
 * The flat WFQueryExprHelper body of the Query... operations (`ColumnName`, `Operator`,
 * `WhereClause`, `IsValue`): its operators. src/domain/sqlWhereHelper.ts turns a body into a
 * condition of the WHERE grammar, so that every query goes through one whitelist and compiler.
 */

export type SqlOperator = '=' | '<>' | '<' | '<=' | '>' | '>=' | 'like' | 'in';

/** Operator names and their SQLExpr codes (api-facts §5.9), plus accepted synonyms. */
const OPERATORS: Record<string, SqlOperator> = {
  LT: '<', '0': '<',
  LE: '<=', LTE: '<=', '1': '<=',
  EQ: '=', '2': '=',
  GE: '>=', GTE: '>=', '3': '>=',
  GT: '>', '4': '>',
  NE: '<>', NEQ: '<>', '5': '<>',
  LIKE: 'like', '6': 'like',
  IN: 'in', '7': 'in',
};

/** The operator of a helper body (`EQ`, `NEQ`, `6`, ...), or undefined when it is not one. */
export function parseOperator(raw: unknown): SqlOperator | undefined {
  const key = String(raw ?? '').trim().toUpperCase();
  return Object.prototype.hasOwnProperty.call(OPERATORS, key) ? OPERATORS[key] : undefined;
}

export interface QueryExprInput {
  ColumnName?: unknown;
  Operator?: unknown;
  WhereClause?: unknown;
  IsValue?: unknown;
}
