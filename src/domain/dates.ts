/**
 * Dates on the wire (WIRE.md §Values). Out: `/Date(<ms>+0000)/`, always UTC, never null.
 * In: the Microsoft JSON form with or without an offset and with or without escaped
 * slashes, and ISO 8601 dates and date-times.
 */

/** 0001-01-01T00:00:00Z: what an unset date is written as. */
export const MIN_DATE_MS = -62135596800000;

/** The largest distance from the epoch a JavaScript date can hold. */
const MAX_ABS_MS = 8.64e15;
const MS_PER_DAY = 86_400_000;

const MS_JSON_DATE = /^(\\?)\/Date\((-?\d{1,16})(?:[+-]\d{4})?\)\1\/$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** `/Date(<ms>+0000)/` for an instant; null, undefined and non-finite values give the MIN date. */
export function formatDate(ms: number | null | undefined): string {
  const value = ms == null || !Number.isFinite(ms) ? MIN_DATE_MS : Math.floor(ms);
  return `/Date(${value}+0000)/`;
}

/**
 * Milliseconds since the epoch for `/Date(ms)/`, `/Date(ms±hhmm)/` (the offset is informational:
 * ms is already UTC), the same with escaped slashes `\/Date(...)\/`, or an ISO 8601 date-time
 * (`Z`, `±hh:mm`, `±hhmm`, `±hh` or no offset = UTC) or date (`2026-01-31` = midnight UTC).
 * Anything else, or an instant outside ±8.64e15 ms, gives null.
 */
export function parseDate(input: unknown): number | null {
  if (typeof input !== 'string') return null;
  const text = input.trim();
  const ms = text.includes('Date(') ? parseMicrosoftDate(text) : parseIsoDate(text);
  if (ms === null || !Number.isFinite(ms) || Math.abs(ms) > MAX_ABS_MS) return null;
  return ms + 0; // turns -0 into 0
}

function parseMicrosoftDate(text: string): number | null {
  const match = MS_JSON_DATE.exec(text);
  return match ? Number(match[2]) : null;
}

function parseIsoDate(text: string): number | null {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millis = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  const offsetMinutes = parseIsoOffset(m[8]);
  if (!isValidCivilDate(year, month, day) || offsetMinutes === null) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const local = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  return local - offsetMinutes * 60_000;
}

/** Minutes east of UTC for `Z`, `±hh`, `±hhmm`, `±hh:mm`; absent means UTC; null when out of range. */
function parseIsoOffset(offset: string | undefined): number | null {
  if (offset === undefined || offset.toUpperCase() === 'Z') return 0;
  const sign = offset[0] === '-' ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (digits.length !== 2 && digits.length !== 4) return null;
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

/** True when the day exists in the proleptic Gregorian calendar. */
export function isValidCivilDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm). Unlike
 * `Date.UTC` it does not map years 0–99 onto 1900–1999.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}
