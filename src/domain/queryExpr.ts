/**
 * The flat WFQueryExprHelper body of the Query... operations: one comparison of a column with a
 * value. Columns come from a whitelist per record kind; the value is always bound as a parameter.
 */
import { WaymarkError } from './errors.ts';

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

export interface QueryCondition<C extends string> {
  column: C;
  operator: SqlOperator;
  /** One value, or several for IN. */
  values: string[];
}

export interface QueryExprInput {
  ColumnName?: unknown;
  Operator?: unknown;
  WhereClause?: unknown;
  IsValue?: unknown;
}

/**
 * Parse the helper body. `columns` maps upper-snake column names (WIRE.md §Names and queries)
 * to the store's column names. IN takes a comma-separated list.
 */
export function parseQueryExpr<C extends string>(input: QueryExprInput, columns: Readonly<Record<string, C>>): QueryCondition<C> {
  const name = typeof input.ColumnName === 'string' ? input.ColumnName.trim().toUpperCase() : '';
  const column = Object.prototype.hasOwnProperty.call(columns, name) ? columns[name] : undefined;
  if (!column) {
    throw new WaymarkError('InvalidRequest', `ColumnName must be one of ${Object.keys(columns).join(', ')}; got ${JSON.stringify(input.ColumnName ?? null)}.`);
  }
  const opKey = String(input.Operator ?? '').trim().toUpperCase();
  const operator = Object.prototype.hasOwnProperty.call(OPERATORS, opKey) ? OPERATORS[opKey] : undefined;
  if (!operator) {
    throw new WaymarkError('InvalidRequest', `Operator must be one of EQ, NE, LT, LE, GT, GE, LIKE, IN (or their codes 0-7); got ${JSON.stringify(input.Operator ?? null)}.`);
  }
  if (input.IsValue === false) {
    throw new WaymarkError('InvalidRequest', 'IsValue false (comparing two columns) is not supported; WhereClause must be a value.');
  }
  if (typeof input.WhereClause !== 'string' && typeof input.WhereClause !== 'number') {
    throw new WaymarkError('InvalidRequest', 'WhereClause must be the value to compare with, as a string.');
  }
  const text = String(input.WhereClause);
  const values = operator === 'in' ? text.split(',').map((v) => v.trim()).filter((v) => v !== '') : [text];
  if (values.length === 0 || values.length > 1000) {
    throw new WaymarkError('InvalidRequest', 'IN needs between 1 and 1000 comma-separated values.');
  }
  return { column, operator, values };
}
