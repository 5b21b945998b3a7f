/**
 * The flat WFQueryExprHelper body ({ColumnName, Operator, WhereClause, IsValue}) as a condition
 * of the WHERE grammar, so that QueryWorkList, QueryProcInsts and QueryActivityInsts go through
 * the same whitelist, typing and compiler as the `...UsingSQL` operations.
 */
import { WaymarkError } from './errors.ts';
import { parseOperator, type QueryExprInput } from './queryExpr.ts';
import { canonicalPattern, catalogueColumn, WHERE_LIMITS, type ColumnCatalogue, type CompareOp, type WhereNode } from './sqlWhere.ts';
import { coerceLiteral, type Literal } from './sqlWhereValues.ts';

const COMPARE_OPS = new Set<string>(['=', '<>', '<', '<=', '>', '>=']);

export function queryExprToWhere(input: QueryExprInput, columns: ColumnCatalogue): WhereNode {
  if (typeof input.ColumnName !== 'string') throw new WaymarkError('InvalidRequest', 'ColumnName is required: the upper-snake name of a column, e.g. STATUS.');
  const column = catalogueColumn(columns, input.ColumnName.trim(), 'ColumnName');
  const operator = parseOperator(input.Operator);
  if (!operator) {
    throw new WaymarkError('InvalidRequest', `Operator must be one of EQ, NE, LT, LE, GT, GE, LIKE, IN (or their codes 0-7); got ${JSON.stringify(input.Operator ?? null)}.`);
  }
  if (typeof input.WhereClause !== 'string' && typeof input.WhereClause !== 'number') {
    throw new WaymarkError('InvalidRequest', 'WhereClause must be the value to compare with, as a string.');
  }
  const text = String(input.WhereClause);
  if (input.IsValue === false) {
    if (!COMPARE_OPS.has(operator)) throw new WaymarkError('InvalidRequest', 'With IsValue false (WhereClause names a column) the Operator must be a comparison, not LIKE or IN.');
    const other = catalogueColumn(columns, text.trim(), 'WhereClause');
    const kinds = [column.type.kind, other.type.kind].map((k) => (k === 'integer' || k === 'date' || k === 'boolean' ? 'number' : 'text'));
    if (kinds[0] !== kinds[1]) throw new WaymarkError('InvalidRequest', `${column.name} (${column.type.kind}) cannot be compared with ${other.name} (${other.type.kind}).`);
    return { kind: 'compare', left: { column: column.name }, op: operator as CompareOp, right: { column: other.name } };
  }
  const literal = (value: string): Literal => (typeof input.WhereClause === 'number' ? { type: 'number', text: value } : { type: 'string', value });
  if (operator === 'like') {
    if (column.type.kind === 'integer' || column.type.kind === 'date' || column.type.kind === 'boolean') {
      throw new WaymarkError('InvalidRequest', `LIKE needs a text column; ${column.name} is a ${column.type.kind}.`);
    }
    return { kind: 'like', column: column.name, pattern: canonicalPattern(text, null, 'WhereClause', 1), negated: false };
  }
  if (operator === 'in') {
    const parts = text.split(',').map((v) => v.trim()).filter((v) => v !== '');
    if (parts.length === 0 || parts.length > WHERE_LIMITS.inValues) {
      throw new WaymarkError('InvalidRequest', `IN needs between 1 and ${WHERE_LIMITS.inValues} comma-separated values.`);
    }
    return { kind: 'in', column: column.name, values: parts.map((p) => coerceLiteral(column.name, column.type, literal(p), 'WhereClause')), negated: false };
  }
  const value = coerceLiteral(column.name, column.type, literal(text), 'WhereClause');
  return { kind: 'compare', left: { column: column.name }, op: operator as CompareOp, right: { value } };
}
