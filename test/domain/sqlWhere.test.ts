/**
 * The WHERE grammar of docs/queries.md as a pure parser: what it accepts, how literals are typed
 * by their column, what it refuses (with the position), and, with fast-check, that arbitrary text
 * never gets past it as anything but a 400 and that every tree it can produce reads back the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { WaymarkError } from '../../src/domain/errors.ts';
import { parseWhere, type ColumnCatalogue, type WhereNode } from '../../src/domain/sqlWhere.ts';
import { queryExprToWhere } from '../../src/domain/sqlWhereHelper.ts';
import { printWhere } from '../helpers/printWhere.ts';

const COLUMNS: ColumnCatalogue = {
  STATUS: { kind: 'status', values: ['New', 'Assigned', 'Completed', 'Canceled'] },
  NAME: { kind: 'text' },
  USER_ID: { kind: 'user' },
  PROC_INST_ID: { kind: 'id' },
  SESSION: { kind: 'integer' },
  DUE_DATE: { kind: 'date' },
  PENDING: { kind: 'boolean' },
};

const parse = (text: string) => parseWhere(text, COLUMNS, 'sqlWhereClause');
/** The right-hand side of a comparison. */
const rightOf = (text: string) => (parse(text) as Extract<WhereNode, { kind: 'compare' }>).right;

function rejects(text: string, detail: RegExp): void {
  assert.throws(() => parse(text), (e: unknown) => {
    assert.ok(e instanceof WaymarkError, `a WaymarkError for ${text}`);
    assert.equal(e.code, 'InvalidRequest');
    assert.match(e.detail, detail, `detail of ${JSON.stringify(text)}`);
    return true;
  });
}

describe('accepted conditions', () => {
  test('comparisons, typed by their column', () => {
    assert.deepEqual(parse("status = 'assigned'"), { kind: 'compare', left: { column: 'STATUS' }, op: '=', right: { value: 'Assigned' } });
    assert.deepEqual(parse("STATUS <> 'Cancelled'"), { kind: 'compare', left: { column: 'STATUS' }, op: '<>', right: { value: 'Canceled' } });
    assert.deepEqual(rightOf("PROC_INST_ID != '0fd3088f40b640d4afe41aeebdae914b'"), { value: '0FD3088F40B640D4AFE41AEEBDAE914B' });
    assert.deepEqual(parse('SESSION >= 2'), { kind: 'compare', left: { column: 'SESSION' }, op: '>=', right: { value: 2 } });
    assert.deepEqual(rightOf("SESSION < '3'"), { value: 3 });
    assert.deepEqual(rightOf("DUE_DATE < '/Date(1767225600000)/'"), { value: 1767225600000 });
    assert.deepEqual(rightOf("DUE_DATE < '\\/Date(1767225600000+0100)\\/'"), { value: 1767225600000 });
    assert.deepEqual(rightOf("DUE_DATE <= '2026-01-01T00:00:00Z'"), { value: 1767225600000 });
    assert.deepEqual(rightOf('DUE_DATE > 0'), { value: 0 });
    assert.deepEqual(rightOf('PENDING = TRUE'), { value: 1 });
    assert.deepEqual(rightOf("PENDING = 'no'"), { value: 0 });
    assert.deepEqual(rightOf('SESSION = -1'), { value: -1 });
    assert.deepEqual(rightOf("NAME = 12"), { value: '12' });
  });

  test("strings in single quotes with '' for a quote, N'' prefix, any characters inside", () => {
    assert.deepEqual(rightOf("NAME = 'O''Brien'"), { value: "O'Brien" });
    assert.deepEqual(rightOf("NAME = N'Grüße 😀'"), { value: 'Grüße 😀' });
    assert.deepEqual(rightOf("NAME = ''"), { value: '' });
    assert.deepEqual(rightOf("NAME = '; DROP TABLE users; --'"), { value: '; DROP TABLE users; --' });
    assert.deepEqual(rightOf("NAME = 'a\nb'"), { value: 'a\nb' });
  });

  test('AND binds tighter than OR; NOT, parentheses, case-insensitive keywords and columns', () => {
    const t = parse("name = 'a' or name = 'b' AND not (SESSION = 1 Or pending)");
    assert.deepEqual(t, {
      kind: 'or',
      items: [
        { kind: 'compare', left: { column: 'NAME' }, op: '=', right: { value: 'a' } },
        {
          kind: 'and',
          items: [
            { kind: 'compare', left: { column: 'NAME' }, op: '=', right: { value: 'b' } },
            {
              kind: 'not',
              item: {
                kind: 'or',
                items: [
                  { kind: 'compare', left: { column: 'SESSION' }, op: '=', right: { value: 1 } },
                  { kind: 'compare', left: { column: 'PENDING' }, op: '=', right: { value: 1 } },
                ],
              },
            },
          ],
        },
      ],
    });
  });

  test('LIKE (with ESCAPE), IN, BETWEEN, IS [NOT] NULL, quoted column names, column against column, 1=1', () => {
    assert.deepEqual(parse("USER_ID LIKE 'LOCAL\\%'"), { kind: 'like', column: 'USER_ID', pattern: 'LOCAL\\\\%', negated: false });
    assert.deepEqual(parse("NAME NOT LIKE '50!%%' ESCAPE '!'"), { kind: 'like', column: 'NAME', pattern: '50\\%%', negated: true });
    assert.deepEqual(parse("STATUS IN ('new', 'Assigned')"), { kind: 'in', column: 'STATUS', values: ['New', 'Assigned'], negated: false });
    assert.deepEqual(parse('SESSION NOT IN (1,2)'), { kind: 'in', column: 'SESSION', values: [1, 2], negated: true });
    assert.deepEqual(parse("DUE_DATE BETWEEN '2026-01-01' AND '2026-02-01'"), {
      kind: 'and',
      items: [
        { kind: 'compare', left: { column: 'DUE_DATE' }, op: '>=', right: { value: 1767225600000 } },
        { kind: 'compare', left: { column: 'DUE_DATE' }, op: '<=', right: { value: 1769904000000 } },
      ],
    });
    assert.deepEqual(parse('DUE_DATE IS NULL'), { kind: 'null', column: 'DUE_DATE', negated: false });
    assert.deepEqual(parse('[DUE_DATE] is not null'), { kind: 'null', column: 'DUE_DATE', negated: true });
    assert.deepEqual(parse('"session" > SESSION'), { kind: 'compare', left: { column: 'SESSION' }, op: '>', right: { column: 'SESSION' } });
    assert.deepEqual(parse('1=1'), { kind: 'compare', left: { value: 1 }, op: '=', right: { value: 1 } });
    assert.equal(parse('   '), null);
  });
});

describe('refused conditions name the position', () => {
  const cases: [string, RegExp][] = [
    ["STATUS = 'New'; DROP TABLE users", /unexpected character ";" at position 15/],
    ["STATUS = 'New' -- comment", /expected AND, OR or the end of the condition, found "-" at position 16/],
    ["NAME = 'x' /* c */", /unexpected character "\/" at position 12/],
    ['PASSWORD_HASH IS NULL', /unknown column "PASSWORD_HASH" at position 1; the columns are DUE_DATE, NAME, PENDING/],
    ["NAME = 'unterminated", /not closed with a single quote at position 8/],
    ['SESSION = 1.5', /SESSION is a whole number; 1.5 is not one at position 11/],
    ["SESSION = 'x'", /SESSION is a whole number/],
    ["DUE_DATE = 'tomorrow'", /DUE_DATE is a date/],
    ["STATUS = 'Bogus'", /STATUS is a status \(New, Assigned, Completed, Canceled\)/],
    ["PROC_INST_ID = 5", /PROC_INST_ID is an id in single quotes/],
    ['NAME = NULL', /IS NULL or IS NOT NULL/],
    ["SESSION LIKE '1%'", /LIKE needs a text column; SESSION is a integer/],
    ["NAME LIKE 'a!b' ESCAPE '!'", /ESCAPE character must be followed by %, _ or itself/],
    ["NAME LIKE 'a' ESCAPE 'ab'", /ESCAPE takes one character/],
    ['NAME = lower(NAME)', /unknown column "lower" at position 8/],
    ['NAME = (SELECT 1)', /found \( at position 8|expected a column name or a value, found "\(" at position 8/],
    ["NAME = 'a' UNION SELECT 1", /found UNION at position 12/],
    ['(NAME = NAME', /expected a closing parenthesis, found the end of the condition at position 13/],
    ['SESSION = 0x41', /"0x" is not a number at position 11/],
    ["NAME = 'a' AND", /found the end of the condition at position 15/],
    ['NAME', /expected a comparison/],
    ["'a' = 1", /two values of different types/],
    ['SESSION = NAME', /SESSION \(integer\) cannot be compared with NAME \(text\)/],
    ["NAME\u00a0= 'x'", /unexpected character U\+00A0 at position 5/],
    ['SESSION = 1e999', /SESSION is a whole number; 1e999 is not one/],
    ['`NAME` = 1', /unexpected character "`" at position 1/],
    ['@@version = 1', /unexpected character "@"/],
    ['NAME = $1', /unexpected character "\$"/],
    ['NAME = ?', /unexpected character "\?"/],
    ["NAME = 'a' || 'b'", /unexpected character "\|"/],
    ['w.NAME = 1', /unexpected character "\."/],
    ['"NAME"" OR 1=1 --" = 1', /a quoted column name must be letters, digits and _/],
  ];
  for (const [text, detail] of cases) test(JSON.stringify(text), () => rejects(text, detail));

  test('limits: nesting depth, number of comparisons and of IN values, length', () => {
    rejects(`${'('.repeat(40)}SESSION = 1${')'.repeat(40)}`, /nested more than 32 levels deep/);
    rejects(`${'NOT '.repeat(40)}PENDING`, /nested more than 32 levels deep/);
    rejects(Array.from({ length: 300 }, () => 'SESSION = 1').join(' OR '), /more than 256 comparisons/);
    rejects(`SESSION IN (${Array.from({ length: 1001 }, (_, i) => i).join(',')})`, /IN takes at most 1000 values/);
    rejects(`NAME = '${'x'.repeat(70000)}'`, /longer than 65536 characters/);
    assert.ok(parse(`${'('.repeat(30)}SESSION = 1${')'.repeat(30)}`));
  });
});

describe('the flat WFQueryExprHelper body takes the same route', () => {
  const helper = (body: Record<string, unknown>) => queryExprToWhere(body, COLUMNS);
  test('operators by name, code or synonym; IN lists; IsValue false names a column', () => {
    assert.deepEqual(helper({ ColumnName: 'status', Operator: 'EQ', WhereClause: 'assigned' }), parse("STATUS = 'Assigned'"));
    assert.deepEqual(helper({ ColumnName: 'SESSION', Operator: 3, WhereClause: '2' }), parse('SESSION >= 2'));
    assert.deepEqual(helper({ ColumnName: 'SESSION', Operator: 'GTE', WhereClause: 2 }), parse('SESSION >= 2'));
    assert.deepEqual(helper({ ColumnName: 'NAME', Operator: 'LIKE', WhereClause: 'a\\b%' }), parse("NAME LIKE 'a\\b%'"));
    assert.deepEqual(helper({ ColumnName: 'STATUS', Operator: 'IN', WhereClause: 'New, Assigned' }), parse("STATUS IN ('New','Assigned')"));
    assert.deepEqual(helper({ ColumnName: 'SESSION', Operator: 'NE', WhereClause: 'session', IsValue: false }), parse('SESSION <> SESSION'));
    assert.deepEqual((helper({ ColumnName: 'NAME', Operator: 'EQ', WhereClause: "x' OR '1'='1" }) as Extract<WhereNode, { kind: 'compare' }>).right, { value: "x' OR '1'='1" });
  });
  test('refusals', () => {
    assert.throws(() => helper({ ColumnName: 'NOPE', Operator: 'EQ', WhereClause: 'x' }), /unknown column "NOPE"/);
    assert.throws(() => helper({ ColumnName: 'NAME', Operator: 'SOUNDS', WhereClause: 'x' }), /Operator must be one of/);
    assert.throws(() => helper({ ColumnName: 'NAME', Operator: 'LIKE', WhereClause: 'NAME', IsValue: false }), /must be a comparison/);
    assert.throws(() => helper({ ColumnName: 'NAME', Operator: 'EQ', WhereClause: 'SESSION', IsValue: false }), /cannot be compared/);
    assert.throws(() => helper({ ColumnName: 'NAME', Operator: 'EQ', WhereClause: { $ne: 1 } }), /WhereClause must be the value/);
    assert.throws(() => helper({ ColumnName: 'SESSION', Operator: 'IN', WhereClause: ' , ' }), /IN needs between 1 and 1000/);
  });
});

describe('properties (fast-check)', () => {
  test('any text is parsed or refused with a 400 InvalidRequest, never anything else', () => {
    const soup = fc.array(
      fc.oneof(
        fc.constantFrom('STATUS', 'NAME', 'SESSION', 'DUE_DATE', 'PENDING', 'USER_ID', 'AND', 'OR', 'NOT', 'LIKE', 'IN', 'IS', 'NULL', 'BETWEEN', 'ESCAPE', 'TRUE'),
        fc.constantFrom('=', '<>', '!=', '<', '>=', '(', ')', ',', "'", "''", '-', '+', ';', '--', '/*', '"', '[', ']', ' ', '\u0000', '\\'),
        fc.string({ maxLength: 6 }),
        fc.integer().map(String),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(fc.oneof(soup.map((parts) => parts.join(' ')), fc.string({ maxLength: 60, unit: 'binary' })), (text) => {
        try {
          parse(text);
        } catch (e) {
          if (!(e instanceof WaymarkError) || e.code !== 'InvalidRequest') throw e;
        }
      }),
      { numRuns: 300 },
    );
  });

  test('every tree the grammar can produce prints and parses back to itself', () => {
    fc.assert(
      fc.property(whereTree, (tree) => {
        assert.deepEqual(parse(printWhere(tree)), tree);
      }),
      { numRuns: 200 },
    );
  });
});

/** Canonical trees: what the parser returns for its own printed form. */
const value: Record<'STATUS' | 'NAME' | 'SESSION' | 'DUE_DATE', fc.Arbitrary<string | number>> = {
  STATUS: fc.constantFrom('New', 'Assigned', 'Completed', 'Canceled'),
  NAME: fc.string({ maxLength: 8, unit: 'grapheme' }),
  SESSION: fc.integer({ min: -1000, max: 1000 }),
  DUE_DATE: fc.integer({ min: 0, max: 4102444800000 }),
};
const column = fc.constantFrom(...(Object.keys(value) as (keyof typeof value)[]));
const op = fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const);
const leaf: fc.Arbitrary<WhereNode> = fc.oneof(
  column.chain((c) => fc.tuple(op, value[c]).map(([o, v]) => ({ kind: 'compare', left: { column: c }, op: o, right: { value: v } }) as WhereNode)),
  column.chain((c) => fc.tuple(fc.array(value[c], { minLength: 1, maxLength: 4 }), fc.boolean()).map(([vs, n]) => ({ kind: 'in', column: c, values: vs, negated: n }) as WhereNode)),
  fc.tuple(fc.string({ maxLength: 8 }), fc.boolean()).map(([p, n]) => ({ kind: 'like', column: 'NAME', pattern: p.replace(/\\/g, '\\\\'), negated: n }) as WhereNode),
  fc.tuple(column, fc.boolean()).map(([c, n]) => ({ kind: 'null', column: c, negated: n }) as WhereNode),
);
const whereTree: fc.Arbitrary<WhereNode> = fc.letrec<{ node: WhereNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(fc.constantFrom('and', 'or' as const), fc.array(tie('node'), { minLength: 2, maxLength: 3 })).map(([kind, items]) => ({ kind, items }) as WhereNode),
    tie('node').map((item) => ({ kind: 'not', item }) as WhereNode),
  ),
})).node;
