/**
 * Compiles a checked condition of the WHERE grammar (src/domain/sqlWhere.ts) to a Kysely
 * expression: column names come only from the whitelist below each query, and every value is a
 * bound parameter. The same tree compiles on SQLite and PostgreSQL.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { LIKE_ESCAPE, type ColumnCatalogue, type ColumnType, type CompareOp, type Operand, type SqlValue, type WhereNode } from '../../domain/sqlWhere.ts';
import { userKey } from '../../domain/userNames.ts';

export interface ColumnSpec {
  type: ColumnType;
  /** `alias.column` in the query the condition is applied to. */
  ref?: string;
  /** For user columns: the lower-case key column, compared with the key of the value. */
  key?: string;
  /** A column that holds the same value in every row (APPL_NAME is always ''). */
  constant?: string;
  /**
   * Its index holds only the rows where it is not '' (migration 0004): an equality with a value
   * other than '' also writes that condition, so that the planner may use the index.
   */
  partialIndex?: boolean;
}

export type ColumnMap = Readonly<Record<string, ColumnSpec>>;

// The builder is untyped here: which tables are in scope depends on the query the condition is
// applied to, and the whitelist guarantees that every reference exists there.
type Builder = ExpressionBuilder<any, any>;
type Expr = Expression<any>;

/** Column names and types, for the parser. */
export function catalogueOf(map: ColumnMap): ColumnCatalogue {
  return Object.fromEntries(Object.entries(map).map(([name, spec]) => [name, spec.type]));
}

export function compileWhere(eb: Builder, node: WhereNode, map: ColumnMap): Expression<SqlBool> {
  switch (node.kind) {
    case 'and':
      return eb.and(node.items.map((n) => compileWhere(eb, n, map)));
    case 'or':
      return eb.or(node.items.map((n) => compileWhere(eb, n, map)));
    case 'not':
      return eb.not(compileWhere(eb, node.item, map));
    case 'compare': {
      const left = constantOf(node.left, map);
      const right = constantOf(node.right, map);
      if (left !== undefined && right !== undefined) return truth(eb, compareValues(left, node.op, right));
      const partner = 'column' in node.left ? node.left.column : 'column' in node.right ? node.right.column : null;
      const spec = partner === null ? null : specOf(map, partner);
      const compared = eb(operand(eb, node.left, spec, map), node.op, operand(eb, node.right, spec, map));
      const value = left ?? right;
      return node.op === '=' && spec && value !== undefined ? withPartialIndex(eb, compared, spec, [value]) : compared;
    }
    case 'in': {
      const spec = specOf(map, node.column);
      if (spec.constant !== undefined) return truth(eb, node.values.includes(spec.constant) !== node.negated);
      const values = node.values.map((v) => valueOf(eb, v, spec));
      const within = eb(columnExpr(eb, spec), node.negated ? 'not in' : 'in', values);
      return node.negated ? within : withPartialIndex(eb, within, spec, node.values);
    }
    case 'null': {
      const spec = specOf(map, node.column);
      if (spec.constant !== undefined) return truth(eb, node.negated);
      return eb(columnExpr(eb, spec), node.negated ? 'is not' : 'is', null);
    }
    case 'like': {
      const match = likeOf(eb, specOf(map, node.column), node.pattern);
      return node.negated ? eb.not(match) : match;
    }
  }
}

/**
 * Comparisons of two known values (`1=1`, `APPL_NAME = ''`) are decided here, so that no
 * database has to guess the type of two bare parameters; the answer is still a bound comparison.
 */
function constantOf(op: Operand, map: ColumnMap): SqlValue | undefined {
  return 'value' in op ? op.value : specOf(map, op.column).constant;
}

/**
 * `column = value` (or IN) on a column whose index is partial (`column <> ''`), every value not
 * '': the same rows, with the index's condition written out so that SQLite and PostgreSQL may use
 * it. SQLite uses a partial index only when the query contains its WHERE term as written.
 */
function withPartialIndex(eb: Builder, match: Expression<SqlBool>, spec: ColumnSpec, values: readonly SqlValue[]): Expression<SqlBool> {
  if (!spec.partialIndex || spec.ref === undefined || values.some((v) => v === '')) return match;
  return eb.and([match, eb(eb.ref(spec.ref), '<>', sql.lit(''))]);
}

function compareValues(a: SqlValue, op: CompareOp, b: SqlValue): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '<>':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

function truth(eb: Builder, value: boolean): Expression<SqlBool> {
  return eb(eb.val(1), '=', eb.val(value ? 1 : 0));
}

function specOf(map: ColumnMap, column: string): ColumnSpec {
  const spec = Object.prototype.hasOwnProperty.call(map, column) ? map[column] : undefined;
  // The parser only lets catalogue columns through; reaching this is a bug, not a bad request.
  if (!spec) throw new Error(`column ${column} is not in the query's whitelist`);
  return spec;
}

function operand(eb: Builder, op: Operand, partner: ColumnSpec | null, map: ColumnMap): Expr {
  if ('column' in op) return columnExpr(eb, specOf(map, op.column));
  return valueOf(eb, op.value, partner);
}

/** User names compare by key (case-insensitively); other columns as stored. */
function columnExpr(eb: Builder, spec: ColumnSpec): Expr {
  if (spec.constant !== undefined) return eb.val(spec.constant);
  if (spec.type.kind === 'user') return spec.key ? eb.ref(spec.key) : eb.fn('lower', [eb.ref(spec.ref!)]);
  return eb.ref(spec.ref!);
}

function valueOf(eb: Builder, value: SqlValue, spec: ColumnSpec | null): Expr {
  if (spec?.type.kind === 'user' && spec.constant === undefined && typeof value === 'string') {
    return spec.key ? eb.val(userKey(value)) : eb.fn('lower', [eb.val(value)]);
  }
  return eb.val(value);
}

/**
 * LIKE ignores case (the same on every database: both sides go through lower(), or are user
 * keys) and always names its escape character, so that `\`, `%` and `_` mean the same everywhere
 * (PostgreSQL escapes with `\` by default, SQLite has no default). Kysely has no LIKE ... ESCAPE
 * operator, so this one expression is written with `sql`: fixed keywords, bound operands.
 */
function likeOf(eb: Builder, spec: ColumnSpec, pattern: string): Expression<SqlBool> {
  let left: Expr;
  let right: Expr;
  if (spec.type.kind === 'user' && spec.key && spec.constant === undefined) {
    left = eb.ref(spec.key);
    right = eb.val(userKey(pattern));
  } else {
    left = eb.fn('lower', [spec.constant !== undefined ? eb.val(spec.constant) : eb.ref(spec.ref!)]);
    right = eb.fn('lower', [eb.val(pattern)]);
  }
  return sql<SqlBool>`${left} like ${right} escape ${LIKE_ESCAPE}`;
}
