/**
 * The tokenizer of the WHERE grammar (docs/queries.md): identifiers and keywords, quoted
 * identifiers ("STATUS" or [STATUS]), string literals in single quotes with '' for a quote,
 * numbers, and the operators = <> != < <= > >= ( ) , + -. Every other character is refused with
 * its position, so comments (--, /* *\/), statement separators (;) and every other piece of SQL
 * syntax never get past this point.
 */
import { WaymarkError } from './errors.ts';

export type OperatorText = '=' | '<>' | '!=' | '<' | '<=' | '>' | '>=' | '(' | ')' | ',' | '+' | '-';

export type Token =
  | { t: 'word'; text: string; upper: string; quoted: boolean; pos: number }
  | { t: 'string'; value: string; pos: number }
  | { t: 'number'; text: string; pos: number }
  | { t: 'op'; text: OperatorText; pos: number }
  | { t: 'end'; pos: number };

/** Longest condition accepted, in characters (the body limit of the property is the same). */
export const MAX_WHERE_LENGTH = 64 * 1024;
/** Tokens in one condition: bounds the work of the parser. */
export const MAX_TOKENS = 8000;

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;
/** White space between tokens: ASCII only; anything else outside a string literal is refused. */
const SPACE = new Set([' ', '\t', '\r', '\n']);
const TWO_CHAR_OPS = new Set(['<>', '!=', '<=', '>=']);
const ONE_CHAR_OPS = new Set(['=', '<', '>', '(', ')', ',', '+', '-']);

/** Thrown for anything outside the grammar; `field` names the body property. */
export function grammarError(field: string, message: string, pos?: number, hint?: string): WaymarkError {
  const where = pos === undefined ? '' : ` at position ${pos}`;
  return new WaymarkError('InvalidRequest', `${field}: ${message}${where}${hint ? `; ${hint}` : ''}. The grammar is in docs/queries.md.`);
}

/** Positions in messages are 1-based character offsets into the condition. */
export function tokenize(text: string, field: string): Token[] {
  if (text.length > MAX_WHERE_LENGTH) throw grammarError(field, `the condition is longer than ${MAX_WHERE_LENGTH} characters`);
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const pos = i + 1;
    if (SPACE.has(c)) {
      i++;
      continue;
    }
    if (tokens.length >= MAX_TOKENS) throw grammarError(field, `the condition has more than ${MAX_TOKENS} tokens`, pos);
    if (WORD_START.test(c)) {
      // N'...' is SQL Server's Unicode string literal; the N is dropped.
      if ((c === 'N' || c === 'n') && text[i + 1] === "'") {
        i++;
        continue;
      }
      let j = i + 1;
      while (j < text.length && WORD_PART.test(text[j])) j++;
      const word = text.slice(i, j);
      tokens.push({ t: 'word', text: word, upper: word.toUpperCase(), quoted: false, pos });
      i = j;
    } else if (c === '"' || c === '[') {
      const close = c === '"' ? '"' : ']';
      const end = text.indexOf(close, i + 1);
      const name = end === -1 ? '' : text.slice(i + 1, end);
      if (end === -1 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw grammarError(field, `a quoted column name must be letters, digits and _ between ${c} and ${close}`, pos);
      }
      tokens.push({ t: 'word', text: name, upper: name.toUpperCase(), quoted: true, pos });
      i = end + 1;
    } else if (c === "'") {
      const { value, next } = readString(text, i, field);
      tokens.push({ t: 'string', value, pos });
      i = next;
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(text[i + 1] ?? ''))) {
      const m = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      const literal = m ? m[0] : c;
      if (WORD_PART.test(text[i + literal.length] ?? '')) throw grammarError(field, `"${text.slice(i, i + literal.length + 1)}" is not a number`, pos);
      tokens.push({ t: 'number', text: literal, pos });
      i += literal.length;
    } else if (TWO_CHAR_OPS.has(text.slice(i, i + 2))) {
      tokens.push({ t: 'op', text: text.slice(i, i + 2) as OperatorText, pos });
      i += 2;
    } else if (ONE_CHAR_OPS.has(c)) {
      tokens.push({ t: 'op', text: c as OperatorText, pos });
      i++;
    } else {
      throw grammarError(field, `unexpected character ${describeChar(text, i)}`, pos);
    }
  }
  tokens.push({ t: 'end', pos: text.length + 1 });
  return tokens;
}

function readString(text: string, start: number, field: string): { value: string; next: number } {
  let value = '';
  let i = start + 1;
  for (;;) {
    const q = text.indexOf("'", i);
    if (q === -1) throw grammarError(field, 'the string that starts here is not closed with a single quote', start + 1);
    value += text.slice(i, q);
    if (text[q + 1] === "'") {
      value += "'";
      i = q + 2;
    } else {
      return { value, next: q + 1 };
    }
  }
}

/** `";"`, or `U+00A0` for characters that do not print well. */
function describeChar(text: string, i: number): string {
  const code = text.codePointAt(i) ?? 0;
  if (code > 0x20 && code < 0x7f) return JSON.stringify(text[i]);
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** How a token reads in a message. */
export function describeToken(tok: Token): string {
  switch (tok.t) {
    case 'end':
      return 'the end of the condition';
    case 'string':
      return `the string '${tok.value.length > 20 ? `${tok.value.slice(0, 20)}…` : tok.value}'`;
    case 'number':
      return tok.text;
    case 'op':
      return `"${tok.text}"`;
    case 'word':
      return tok.quoted ? `"${tok.text}"` : tok.text;
  }
}
