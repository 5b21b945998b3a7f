/**
 * Column types of the query grammar and how a literal becomes a value of the column it is
 * compared with: ids upper-case, statuses in their emitted spelling, dates as milliseconds,
 * booleans as 1/0. A literal that cannot be such a value is a 400 naming its position.
 */
import { parseDate } from './dates.ts';
import { normalizeStatus } from './statuses.ts';
import { grammarError } from './sqlWhereTokens.ts';

export type ColumnType =
  | { kind: 'text' }
  /** 32-hex ids (or '' where there is none): compared upper-case. */
  | { kind: 'id' }
  /** DOMAIN\user: compared case-insensitively (the store compares user keys). */
  | { kind: 'user' }
  | { kind: 'status'; values: readonly string[] }
  | { kind: 'integer' }
  /** Milliseconds since the epoch; literals `/Date(ms)/`, ISO 8601 or a number of ms. */
  | { kind: 'date' }
  /** 1 or 0; literals TRUE/FALSE, 1/0, 'true'/'false', 'yes'/'no', 'y'/'n'. */
  | { kind: 'boolean' };

export type SqlValue = string | number;

export type Literal =
  | { type: 'string'; value: string; pos?: number }
  | { type: 'number'; text: string; pos?: number }
  | { type: 'boolean'; value: boolean; pos?: number };

const TRUE_WORDS = new Set(['true', '1', 'yes', 'y']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'n']);

/** The value a literal stands for when compared with `column`. */
export function coerceLiteral(column: string, type: ColumnType, literal: Literal, field: string): SqlValue {
  const fail = (what: string): never => {
    throw grammarError(field, `${column} is ${what}; ${shown(literal)} is not one`, literal.pos);
  };
  switch (type.kind) {
    case 'text':
    case 'user':
      if (literal.type === 'boolean') fail('text');
      return literal.type === 'string' ? literal.value : (literal as { text: string }).text;
    case 'id':
      if (literal.type !== 'string') fail("an id in single quotes ('0FD3...')");
      return (literal as { value: string }).value.trim().toUpperCase();
    case 'status': {
      if (literal.type !== 'string') fail(`a status in single quotes (${type.values.join(', ')})`);
      const status = normalizeStatus((literal as { value: string }).value, type.values);
      if (status === null) fail(`a status (${type.values.join(', ')})`);
      return status as string;
    }
    case 'integer': {
      const n = literal.type === 'number' ? Number(literal.text) : literal.type === 'string' && /^\s*[+-]?\d{1,16}\s*$/.test(literal.value) ? Number(literal.value) : NaN;
      if (!Number.isSafeInteger(n)) fail('a whole number');
      return n;
    }
    case 'date': {
      const ms = literal.type === 'number' ? Number(literal.text) : literal.type === 'string' ? parseDate(literal.value) : null;
      if (ms === null || !Number.isSafeInteger(ms)) fail("a date ('/Date(1767225600000)/', '2026-01-01T00:00:00Z' or milliseconds)");
      return ms as number;
    }
    case 'boolean': {
      if (literal.type === 'boolean') return literal.value ? 1 : 0;
      const word = (literal.type === 'string' ? literal.value : literal.text).trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return 1;
      if (FALSE_WORDS.has(word)) return 0;
      return fail('true or false');
    }
  }
}

function shown(literal: Literal): string {
  if (literal.type === 'boolean') return literal.value ? 'TRUE' : 'FALSE';
  if (literal.type === 'number') return literal.text;
  const v = literal.value.length > 40 ? `${literal.value.slice(0, 40)}…` : literal.value;
  return `'${v}'`;
}
