/**
 * Time units and lengths of CreateLinkedWorkItem and `waymark:expectedTime` (WIRE.md §Work items,
 * api-facts §5.10).
 */

/** The units, shortest first. */
export const TIME_UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;

/** One of TIME_UNITS. */
export type TimeUnit = (typeof TIME_UNITS)[number];

/** WFTimeUnit.Value of each unit, as DataContract JSON carries it (`{"Value": 3}` is DAY). */
export const TIME_UNIT_VALUE: Readonly<Record<TimeUnit, number>> = Object.freeze({
  YEAR: 0,
  MONTH: 1,
  WEEK: 2,
  DAY: 3,
  HOUR: 4,
  MINUTE: 5,
  SECOND: 6,
});

/** The longest Length accepted: keeps due dates within a few centuries even in YEARs of business time. */
export const MAX_LENGTH = 100_000;

/** The unit named by a string in any case, surrounding spaces ignored; null for anything else. */
export function parseUnit(s: unknown): TimeUnit | null {
  if (typeof s !== 'string') return null;
  const upper = s.trim().toUpperCase();
  return (TIME_UNITS as readonly string[]).includes(upper) ? (upper as TimeUnit) : null;
}

/**
 * A Length: a positive integer up to MAX_LENGTH, written as a string of digits (surrounding
 * spaces allowed) or given as a JSON number. Null for anything else (0, "-1", "1.5", "1e3", "").
 */
export function parseLength(v: unknown): number | null {
  let n: number;
  if (typeof v === 'number') {
    n = v;
  } else if (typeof v === 'string' && /^\s*\d{1,16}\s*$/.test(v)) {
    n = Number(v);
  } else {
    return null;
  }
  return Number.isSafeInteger(n) && n > 0 && n <= MAX_LENGTH ? n : null;
}

/** The ExpectedTime param of an event: `2 DAY`, or `2 DAY;BusinessTime=True` in business time. */
export function formatExpectedTime(length: number, unit: TimeUnit, businessTime: boolean): string {
  return businessTime ? `${length} ${unit};BusinessTime=True` : `${length} ${unit}`;
}
