/** Checks of caller-supplied values that every entry point (HTTP, CLI) goes through. */
import { WaymarkError } from '../domain/errors.ts';
import { isId, normalizeId } from '../domain/ids.ts';
import { parseUserName, userKey } from '../domain/userNames.ts';

/** WIRE.md §Bodies limits. */
export const LIMITS = {
  name: 256,
  workToPerform: 1024,
  description: 4000,
  clientData: 64 * 1024,
} as const;

export function requireId(value: unknown, what: string): string {
  if (!isId(value)) {
    throw new WaymarkError('InvalidId', `${what} must be 32 hexadecimal characters; got ${quote(value)}.`);
  }
  return normalizeId(value);
}

export function requireUserName(value: unknown, field: string): { name: string; key: string } {
  const parsed = typeof value === 'string' ? parseUserName(value) : null;
  if (!parsed) {
    throw new WaymarkError('InvalidUserName', `${field} must be a user name of the form DOMAIN\\user; got ${quote(value)}.`);
  }
  return { name: parsed.full, key: userKey(parsed.full) };
}

export function requireString(value: unknown, field: string, max: number = LIMITS.name, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value.trim() === '')) {
    throw new WaymarkError('InvalidRequest', `${field} is required and must be a non-empty string.`);
  }
  return limit(value, field, max);
}

export function optionalString(value: unknown, field: string, max: number = LIMITS.name): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new WaymarkError('InvalidRequest', `${field} must be a string or null.`);
  return limit(value, field, max);
}

export function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new WaymarkError('InvalidRequest', `${field} must be true or false.`);
  return value;
}

function limit(value: string, field: string, max: number): string {
  if (value.length > max) {
    throw new WaymarkError('ValueTooLong', `${field} is ${value.length} characters long; at most ${max} are allowed.`);
  }
  return value;
}

function quote(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? 'nothing' : typeof value;
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(shown);
}
