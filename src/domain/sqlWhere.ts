/**
 * The WHERE grammar of the query operations (docs/queries.md): a pure parser from text to a
 * checked syntax tree. Columns come from a whitelist per record kind and every literal is typed
 * by the column it is compared with, so the store compiles the tree with bound values only.
 *
 *   condition  := or-expr | (empty)
 *   or-expr    := and-expr { OR and-expr }
 *   and-expr   := not-expr { AND not-expr }
 *   not-expr   := NOT not-expr | '(' or-expr ')' | predicate
 *   predicate  := operand compare operand
 *               | boolean-column
 *               | column [NOT] LIKE string [ESCAPE string]
 *               | column [NOT] IN '(' literal { ',' literal } ')'
 *               | column [NOT] BETWEEN literal AND literal
 *               | column IS [NOT] NULL
 *   compare    := = | <> | != | < | <= | > | >=
 *   operand    := column | literal
 *   literal    := string | [+|-] number | TRUE | FALSE
 */
import { grammarError, describeToken, tokenize, type Token } from './sqlWhereTokens.ts';
import { coerceLiteral, type ColumnType, type Literal, type SqlValue } from './sqlWhereValues.ts';

export type { ColumnType, SqlValue } from './sqlWhereValues.ts';

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Operand = { column: string } | { value: SqlValue };

export type WhereNode =
  | { kind: 'and' | 'or'; items: WhereNode[] }
  | { kind: 'not'; item: WhereNode }
  | { kind: 'compare'; left: Operand; op: CompareOp; right: Operand }
  /** `pattern` uses `\` as its escape character, whatever the query wrote. */
  | { kind: 'like'; column: string; pattern: string; negated: boolean }
  | { kind: 'in'; column: string; values: SqlValue[]; negated: boolean }
  | { kind: 'null'; column: string; negated: boolean };

/** Upper-snake column names (WIRE.md §Names and queries) and their types. */
export type ColumnCatalogue = Readonly<Record<string, ColumnType>>;

/** Bounds on one condition, so that no query can cost the database more than a plain one. */
export const WHERE_LIMITS = { depth: 32, predicates: 256, inValues: 1000, values: 2000 } as const;

export const LIKE_ESCAPE = '\\';

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'LIKE', 'IN', 'IS', 'NULL', 'BETWEEN', 'ESCAPE', 'TRUE', 'FALSE']);
const COMPARE: Record<string, CompareOp> = { '=': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** Parse a condition; null when it is empty (every row). `field` names the body property in errors. */
export function parseWhere(text: string, columns: ColumnCatalogue, field: string): WhereNode | null {
  if (text.trim() === '') return null;
  return new Parser(tokenize(text, field), columns, field).parseAll();
}

/** The column catalogue's names in a sentence, for error messages. */
export function columnList(columns: ColumnCatalogue): string {
  return Object.keys(columns).sort().join(', ');
}

/** A column of the catalogue (case-insensitive), or a 400 naming the known ones. */
export function catalogueColumn(columns: ColumnCatalogue, name: string, field: string, pos?: number): { name: string; type: ColumnType } {
  const upper = name.toUpperCase();
  if (!Object.prototype.hasOwnProperty.call(columns, upper)) {
    throw grammarError(field, `unknown column ${JSON.stringify(name.slice(0, 64))}`, pos, `the columns are ${columnList(columns)}`);
  }
  return { name: upper, type: columns[upper] };
}

class Parser {
  private i = 0;
  private depth = 0;
  private predicates = 0;
  private values = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly columns: ColumnCatalogue,
    private readonly field: string,
  ) {}

  parseAll(): WhereNode {
    const node = this.orExpr();
    const tok = this.peek();
    if (tok.t !== 'end') throw this.unexpected(tok, 'AND, OR or the end of the condition');
    return node;
  }

  private orExpr(): WhereNode {
    const items = [this.andExpr()];
    while (this.isKeyword(this.peek(), 'OR')) {
      this.i++;
      items.push(this.andExpr());
    }
    return items.length === 1 ? items[0] : { kind: 'or', items };
  }

  private andExpr(): WhereNode {
    const items = [this.notExpr()];
    while (this.isKeyword(this.peek(), 'AND')) {
      this.i++;
      items.push(this.notExpr());
    }
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private notExpr(): WhereNode {
    const tok = this.peek();
    if (this.isKeyword(tok, 'NOT')) {
      this.i++;
      return this.nested(tok, () => ({ kind: 'not', item: this.notExpr() }));
    }
    if (tok.t === 'op' && tok.text === '(') {
      this.i++;
      const node = this.nested(tok, () => this.orExpr());
      this.expectOp(')', 'a closing parenthesis');
      return node;
    }
    return this.predicate();
  }

  private nested(tok: Token, parse: () => WhereNode): WhereNode {
    if (++this.depth > WHERE_LIMITS.depth) throw grammarError(this.field, `conditions are nested more than ${WHERE_LIMITS.depth} levels deep`, tok.pos);
    const node = parse();
    this.depth--;
    return node;
  }

  private predicate(): WhereNode {
    const start = this.peek();
    if (++this.predicates > WHERE_LIMITS.predicates) {
      throw grammarError(this.field, `the condition has more than ${WHERE_LIMITS.predicates} comparisons`, start.pos);
    }
    const left = this.operand();
    const tok = this.peek();
    if ('column' in left) {
      const column = left.column;
      const negated = this.isKeyword(tok, 'NOT');
      const after = negated ? this.tokens[this.i + 1] : tok;
      if (this.isKeyword(after, 'LIKE')) return this.skip(negated ? 2 : 1, () => this.like(column, negated));
      if (this.isKeyword(after, 'IN')) return this.skip(negated ? 2 : 1, () => this.inList(column, negated));
      if (this.isKeyword(after, 'BETWEEN')) return this.skip(negated ? 2 : 1, () => this.between(column, negated));
      if (negated) throw this.unexpected(after, 'LIKE, IN or BETWEEN after NOT');
      if (this.isKeyword(tok, 'IS')) return this.skip(1, () => this.isNull(column));
      // A boolean column on its own is a condition: `NOT DISABLED`, `WAIT_WORK_PERFORMED AND ...`.
      if (this.columns[column].kind === 'boolean' && this.endsPredicate(tok)) return { kind: 'compare', left: { column }, op: '=', right: { value: 1 } };
    }
    const op = tok.t === 'op' ? COMPARE[tok.text] : undefined;
    if (!op) throw this.unexpected(tok, "a comparison (=, <>, <, <=, >, >=, LIKE, IN, BETWEEN or IS NULL)");
    this.i++;
    const rightTok = this.peek();
    const right = this.operand();
    return { kind: 'compare', ...this.typedPair(left, right, start, rightTok), op };
  }

  private skip(n: number, parse: () => WhereNode): WhereNode {
    this.i += n;
    return parse();
  }

  /** A column (returned by name) or a literal (returned untyped until its partner is known). */
  private operand(): { column: string; pos: number } | { literal: Literal; pos: number } {
    const tok = this.peek();
    if (tok.t === 'word' && (tok.quoted || !KEYWORDS.has(tok.upper))) {
      this.i++;
      return { column: catalogueColumn(this.columns, tok.text, this.field, tok.pos).name, pos: tok.pos };
    }
    if (this.isKeyword(tok, 'NULL')) throw grammarError(this.field, 'NULL is compared with IS NULL or IS NOT NULL, not with an operator', tok.pos);
    return { literal: this.literal(), pos: tok.pos };
  }

  private literal(): Literal {
    const tok = this.peek();
    this.i++;
    if (tok.t === 'string') return { type: 'string', value: tok.value, pos: tok.pos };
    if (tok.t === 'number') return { type: 'number', text: tok.text, pos: tok.pos };
    if (tok.t === 'op' && (tok.text === '-' || tok.text === '+')) {
      const num = this.peek();
      if (num.t !== 'number') throw this.unexpected(num, 'a number after the sign');
      this.i++;
      return { type: 'number', text: tok.text === '-' ? `-${num.text}` : num.text, pos: tok.pos };
    }
    if (this.isKeyword(tok, 'TRUE') || this.isKeyword(tok, 'FALSE')) return { type: 'boolean', value: tok.t === 'word' && tok.upper === 'TRUE', pos: tok.pos };
    this.i--;
    throw this.unexpected(tok, 'a column name or a value');
  }

  /** Types both sides of a comparison: a literal takes its column's type. */
  private typedPair(
    left: { column: string; pos: number } | { literal: Literal; pos: number },
    right: { column: string; pos: number } | { literal: Literal; pos: number },
    start: Token,
    rightTok: Token,
  ): { left: Operand; right: Operand } {
    if ('column' in left && 'column' in right) {
      const a = this.columns[left.column];
      const b = this.columns[right.column];
      if (storageOf(a) !== storageOf(b)) {
        throw grammarError(this.field, `${left.column} (${a.kind}) cannot be compared with ${right.column} (${b.kind})`, start.pos);
      }
      return { left: { column: left.column }, right: { column: right.column } };
    }
    if ('column' in left && 'literal' in right) return { left: { column: left.column }, right: { value: this.value(left.column, right.literal) } };
    if ('literal' in left && 'column' in right) return { left: { value: this.value(right.column, left.literal) }, right: { column: right.column } };
    const [a, b] = [(left as { literal: Literal }).literal, (right as { literal: Literal }).literal];
    if (a.type !== b.type) throw grammarError(this.field, 'two values of different types cannot be compared', rightTok.pos);
    this.countValues(2, start);
    const plain = (l: Literal): SqlValue => (l.type === 'string' ? l.value : l.type === 'boolean' ? (l.value ? 1 : 0) : finiteNumber(l, this.field));
    return { left: { value: plain(a) }, right: { value: plain(b) } };
  }

  private value(column: string, literal: Literal): SqlValue {
    this.countValues(1, literal);
    return coerceLiteral(column, this.columns[column], literal, this.field);
  }

  private countValues(n: number, at: { pos?: number }): void {
    this.values += n;
    if (this.values > WHERE_LIMITS.values) throw grammarError(this.field, `the condition has more than ${WHERE_LIMITS.values} values`, at.pos);
  }

  private like(column: string, negated: boolean): WhereNode {
    const type = this.columns[column];
    if (storageOf(type) !== 'text') throw grammarError(this.field, `LIKE needs a text column; ${column} is a ${type.kind}`, this.peek().pos);
    const tok = this.peek();
    if (tok.t !== 'string') throw this.unexpected(tok, 'a pattern in single quotes after LIKE');
    this.i++;
    let escape: string | null = null;
    if (this.isKeyword(this.peek(), 'ESCAPE')) {
      this.i++;
      const esc = this.peek();
      if (esc.t !== 'string' || [...esc.value].length !== 1) throw grammarError(this.field, 'ESCAPE takes one character in single quotes', esc.pos);
      this.i++;
      escape = esc.value;
    }
    this.countValues(1, tok);
    return { kind: 'like', column, pattern: canonicalPattern(tok.value, escape, this.field, tok.pos), negated };
  }

  private inList(column: string, negated: boolean): WhereNode {
    this.expectOp('(', 'a parenthesis after IN');
    const values: SqlValue[] = [];
    for (;;) {
      const lit = this.literal();
      if (values.length >= WHERE_LIMITS.inValues) throw grammarError(this.field, `IN takes at most ${WHERE_LIMITS.inValues} values`, lit.pos);
      values.push(this.value(column, lit));
      const tok = this.peek();
      if (tok.t === 'op' && tok.text === ',') {
        this.i++;
        continue;
      }
      this.expectOp(')', 'a comma or a closing parenthesis');
      return { kind: 'in', column, values, negated };
    }
  }

  private between(column: string, negated: boolean): WhereNode {
    const low = this.value(column, this.literal());
    const and = this.peek();
    if (!this.isKeyword(and, 'AND')) throw this.unexpected(and, 'AND between the two bounds of BETWEEN');
    this.i++;
    const high = this.value(column, this.literal());
    const range: WhereNode = {
      kind: 'and',
      items: [
        { kind: 'compare', left: { column }, op: '>=', right: { value: low } },
        { kind: 'compare', left: { column }, op: '<=', right: { value: high } },
      ],
    };
    return negated ? { kind: 'not', item: range } : range;
  }

  private isNull(column: string): WhereNode {
    const negated = this.isKeyword(this.peek(), 'NOT');
    if (negated) this.i++;
    const tok = this.peek();
    if (!this.isKeyword(tok, 'NULL')) throw this.unexpected(tok, negated ? 'NULL after IS NOT' : 'NULL or NOT NULL after IS');
    this.i++;
    return { kind: 'null', column, negated };
  }

  private expectOp(text: string, what: string): void {
    const tok = this.peek();
    if (tok.t !== 'op' || tok.text !== text) throw this.unexpected(tok, what);
    this.i++;
  }

  private endsPredicate(tok: Token): boolean {
    return tok.t === 'end' || (tok.t === 'op' && tok.text === ')') || this.isKeyword(tok, 'AND') || this.isKeyword(tok, 'OR');
  }

  private peek(): Token {
    return this.tokens[this.i];
  }

  private isKeyword(tok: Token | undefined, word: string): boolean {
    return tok !== undefined && tok.t === 'word' && !tok.quoted && tok.upper === word;
  }

  private unexpected(tok: Token, expected: string): Error {
    return grammarError(this.field, `expected ${expected}, found ${describeToken(tok)}`, tok.pos);
  }
}

/** Text-like columns compare with text, the others with numbers. */
function storageOf(type: ColumnType): 'text' | 'number' {
  return type.kind === 'integer' || type.kind === 'date' || type.kind === 'boolean' ? 'number' : 'text';
}

function finiteNumber(l: Extract<Literal, { type: 'number' }>, field: string): number {
  const n = Number(l.text);
  if (!Number.isFinite(n)) throw grammarError(field, `${l.text} is too large`, l.pos);
  return n;
}

/**
 * The pattern rewritten with `\` as its escape character: `%` and `_` are wildcards; with
 * ESCAPE 'c', `c%`, `c_` and `cc` stand for the character itself; a `\` is always literal.
 */
export function canonicalPattern(pattern: string, escape: string | null, field: string, pos: number): string {
  let out = '';
  const chars = [...pattern];
  for (let k = 0; k < chars.length; k++) {
    const ch = chars[k];
    if (escape !== null && ch === escape) {
      const next = chars[k + 1];
      if (next !== '%' && next !== '_' && next !== escape) {
        throw grammarError(field, `in a LIKE pattern the ESCAPE character must be followed by %, _ or itself`, pos);
      }
      out += LIKE_ESCAPE + next;
      k++;
    } else if (ch === LIKE_ESCAPE) {
      out += LIKE_ESCAPE + LIKE_ESCAPE;
    } else {
      out += ch;
    }
  }
  return out;
}
