/**
 * Due-date arithmetic: calendar time (addCalendarTime) and business time (BusinessCalendar).
 * docs/business-calendar.md explains both with worked examples.
 *
 * Business time, in the calendar's time zone:
 * - A working day is a day whose ISO weekday is in `workDays` and which is not a holiday
 *   (holidays are whole non-working days). Its working period runs from `workStart` to `workEnd`
 *   local wall-clock time.
 * - Moving forward: an instant outside working time moves to the start of the next working period.
 * - SECOND / MINUTE / HOUR count only elapsed working time: the (moved) start advances through
 *   working periods until the length is used up. A result that uses a period up to its very end
 *   is that end (8 HOUR from Monday 09:00 is Monday 17:00).
 * - DAY n: n working days after the (moved) start's day, at the same wall-clock time of day.
 * - WEEK n: n × (working days per week) working days, as DAY.
 * - MONTH / YEAR n: calendar months / years added to the (moved) start in the zone, then moved
 *   forward if that falls outside working time.
 * - A period boundary that a spring change skips moves forward by the gap; one that occurs twice
 *   in autumn is taken at its first occurrence.
 * The constructor refuses a calendar without working days and results later than 9999-12-31
 * are refused with a RangeError, so every loop ends; loops step by day, never by minute.
 */
import { DateTime, IANAZone, Info, type Zone } from 'luxon';
import { daysFromCivil, isValidCivilDate } from './dates.ts';
import type { TimeUnit } from './timeUnits.ts';

/** A business calendar's settings (WAYMARK_TIMEZONE, WAYMARK_BUSINESS_DAYS, WAYMARK_BUSINESS_HOURS, WAYMARK_HOLIDAYS). */
export interface CalendarConfig {
  /** IANA time zone name, e.g. `Europe/Berlin`. */
  timeZone: string;
  /** ISO weekdays that are working days: 1 = Monday .. 7 = Sunday. */
  workDays: number[];
  /** Start of the working day, `HH:mm`. */
  workStart: string;
  /** End of the working day, `HH:mm` (`24:00` = midnight at the end of the day). */
  workEnd: string;
  /** Non-working dates, `YYYY-MM-DD` in the calendar's time zone. */
  holidays: string[];
}

/** UTC, Monday to Friday, 09:00 to 17:00, no holidays. */
export const DEFAULT_CALENDAR: Readonly<CalendarConfig> = Object.freeze({
  timeZone: 'UTC',
  workDays: Object.freeze([1, 2, 3, 4, 5]) as number[],
  workStart: '09:00',
  workEnd: '17:00',
  holidays: Object.freeze([]) as unknown as string[],
});

const MS_PER_SECOND = 1000;
const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;
const MAX_ABS_MS = 8.64e15;
/** 9999-12-31T23:59:59.999Z, the largest .NET DateTime: business time never goes past it, which bounds every loop. */
const LATEST_BUSINESS_MS = 253_402_300_799_999;
/** More than any zone has ever shifted its clock at once; used to bound how much working time a week can hold. */
const MAX_CLOCK_SHIFT_MS = 3 * MS_PER_HOUR;
const BEYOND_HORIZON = 'The resulting date would be later than 9999-12-31.';
const EXACT_UNIT_MS: Partial<Record<TimeUnit, number>> = { SECOND: MS_PER_SECOND, MINUTE: MS_PER_MINUTE, HOUR: MS_PER_HOUR };
const CALENDAR_UNIT_KEY = { DAY: 'days', WEEK: 'weeks', MONTH: 'months', YEAR: 'years' } as const;
const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const FULL_DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

// ---------------------------------------------------------------- configuration parsers

/** A valid IANA time zone name, in its canonical spelling (`europe/berlin` -> `Europe/Berlin`). */
export function parseTimeZone(s: string): string {
  const name = s.trim();
  if (!/^[A-Za-z][\w+\-/]*$/.test(name) || !IANAZone.isValidZone(name)) {
    throw new Error(`"${s}" is not a time zone name: use an IANA name such as Europe/Berlin or UTC.`);
  }
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
}

/**
 * Working days from a comma list of days and day ranges: `Mon-Fri`, `Mon,Tue,Sat`, `1-5`, `1,2,3`
 * (names or ISO numbers 1 = Monday .. 7 = Sunday, any case, mixed allowed). A range may wrap
 * around the week end: `Sun-Thu` is Sunday to Thursday. Answers ISO weekdays, ascending.
 */
export function parseWorkDays(s: string): number[] {
  const days = new Set<number>();
  const entries = s.split(',').map((e) => e.trim());
  if (entries.every((e) => e === '')) throw new Error('names no working day: use for example Mon-Fri or 1,2,3,4,5.');
  for (const entry of entries) {
    const ends = entry.split('-').map((e) => e.trim());
    if (ends.length > 2) throw new Error(`"${entry}" is not a day or a day range such as Mon-Fri.`);
    const first = dayNumber(ends[0], entry);
    const last = dayNumber(ends[ends.length - 1], entry);
    for (let d = first, steps = 0; steps < 7; d = (d % 7) + 1, steps++) {
      days.add(d);
      if (d === last) break;
    }
  }
  return [...days].sort((a, b) => a - b);
}

function dayNumber(text: string, entry: string): number {
  const lower = text.toLowerCase();
  if (/^[1-7]$/.test(lower)) return Number(lower);
  const index = Math.max(DAY_NAMES.indexOf(lower), FULL_DAY_NAMES.indexOf(lower));
  if (index < 0) throw new Error(`"${entry}" is not a day or a day range: use Mon..Sun or 1..7 (1 = Monday).`);
  return index + 1;
}

/** Working hours `HH:mm-HH:mm` (start before end; the end may be `24:00`), normalised to two-digit hours. */
export function parseWorkHours(s: string): { workStart: string; workEnd: string } {
  const m = /^\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*$/.exec(s);
  if (!m) throw new Error(`"${s}" is not a range of working hours such as 09:00-17:00.`);
  const start = clockMinutes(m[1]);
  const end = clockMinutes(m[2]);
  if (start === null || end === null || start >= 24 * 60) {
    throw new Error(`"${s}" holds a time that does not exist: hours go from 00:00 to 24:00.`);
  }
  if (start >= end) throw new Error(`"${s}" ends before it starts: the start must be earlier than the end.`);
  return { workStart: formatClock(start), workEnd: formatClock(end) };
}

/** Holidays from a comma list of `YYYY-MM-DD` dates; the empty string is none. Answers them sorted, without repeats. */
export function parseHolidays(s: string): string[] {
  const dates = new Set<string>();
  for (const entry of s.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    if (holidayDay(entry) === null) throw new Error(`"${entry}" is not a date of the form YYYY-MM-DD.`);
    dates.add(entry);
  }
  return [...dates].sort();
}

/** Minutes after midnight for `H:mm` / `HH:mm` (`24:00` allowed), or null. */
function clockMinutes(text: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  return Number(m[2]) < 60 && minutes <= 24 * 60 ? minutes : null;
}

function formatClock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date, or null. */
function holidayDay(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m || !isValidCivilDate(Number(m[1]), Number(m[2]), Number(m[3]))) return null;
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}

// ---------------------------------------------------------------- calendar time

/**
 * `startMs` plus `length` units. SECOND, MINUTE and HOUR are exact durations; DAY, WEEK, MONTH
 * and YEAR are calendar arithmetic in `timeZone`, so 1 DAY later is the same wall-clock time
 * across a DST change, and 1 MONTH after 31 January is the last day of February.
 */
export function addCalendarTime(startMs: number, length: number, unit: TimeUnit, timeZone: string): number {
  assertLength(length);
  const exact = EXACT_UNIT_MS[unit];
  if (exact !== undefined) return inRange(startMs + length * exact);
  const start = DateTime.fromMillis(startMs, { zone: timeZone });
  if (!start.isValid) throw new RangeError(`Cannot add ${unit} in time zone ${timeZone}: ${start.invalidExplanation}`);
  return inRange(start.plus({ [CALENDAR_UNIT_KEY[unit as keyof typeof CALENDAR_UNIT_KEY]]: length }).toMillis());
}

function assertLength(length: number): void {
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`A length must be a whole number of at least 0, not ${length}.`);
}

function inRange(ms: number): number {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_ABS_MS) throw new RangeError('The resulting date is outside the supported range.');
  return ms;
}

// ---------------------------------------------------------------- zone offsets

interface OffsetBlock {
  readonly first: number;
  readonly changes: ReadonlyArray<{ readonly at: number; readonly offset: number }>;
}

const SAMPLE_MS = 7 * MS_PER_DAY;
const SAMPLES_PER_BLOCK = 5;
const BLOCK_MS = SAMPLES_PER_BLOCK * SAMPLE_MS;
const MAX_CACHED_BLOCKS = 8192;
/** 400 Gregorian years: a whole number of weeks, so yearly clock-change rules repeat exactly. */
const GREGORIAN_CYCLE_MS = 146_097 * MS_PER_DAY;
/** 2100-01-01: later than every clock change the time zone database lists one by one. */
const RULES_ONLY_FROM_MS = 4_102_444_800_000;

/**
 * Converts between instants and local wall-clock milliseconds of one zone. Offsets are sampled
 * once a week per 35-day block and each change is located to the second, then cached, so the
 * day loops below cost a lookup instead of an Intl call. Assumes a zone changes its offset at
 * most once in 7 days, which holds for every zone's rules. From 2500 on, an instant is read 400
 * years (or a multiple) earlier: by then only the zone's yearly rules apply, and they repeat
 * every 400 years; this keeps far-future walks from sampling thousands of years.
 */
class ZoneClock {
  private readonly zone: Zone;
  private readonly fixedOffset: number | null;
  private readonly blocks = new Map<number, OffsetBlock>();

  constructor(zoneName: string) {
    this.zone = Info.normalizeZone(parseTimeZone(zoneName));
    this.fixedOffset = this.zone.isUniversal ? this.rawOffset(0) : null;
  }

  /** Local wall-clock time of an instant, as milliseconds of a UTC-like timeline. */
  toLocal(instant: number): number {
    return instant + this.offset(instant);
  }

  /** The instant of a local wall-clock time: the earlier one when it occurs twice, shifted forward by the gap when it does not exist. */
  toInstant(local: number): number {
    const before = this.offset(local - MS_PER_DAY);
    const after = this.offset(local + MS_PER_DAY);
    for (const candidate of before >= after ? [local - before, local - after] : [local - after, local - before]) {
      if (this.offset(candidate) === local - candidate) return candidate;
    }
    return local - before;
  }

  private offset(instant: number): number {
    if (this.fixedOffset !== null) return this.fixedOffset;
    const cycles = Math.floor((instant - RULES_ONLY_FROM_MS) / GREGORIAN_CYCLE_MS);
    if (cycles > 0) instant -= cycles * GREGORIAN_CYCLE_MS;
    const index = Math.floor(instant / BLOCK_MS);
    const block = this.blocks.get(index) ?? this.loadBlock(index);
    let offset = block.first;
    for (const change of block.changes) {
      if (instant < change.at) break;
      offset = change.offset;
    }
    return offset;
  }

  private loadBlock(index: number): OffsetBlock {
    if (this.blocks.size >= MAX_CACHED_BLOCKS) this.blocks.clear();
    const start = index * BLOCK_MS;
    const first = this.rawOffset(start);
    const changes: Array<{ at: number; offset: number }> = [];
    let previous = first;
    for (let sample = 1; sample <= SAMPLES_PER_BLOCK; sample++) {
      const at = start + sample * SAMPLE_MS;
      const offset = this.rawOffset(at);
      if (offset === previous) continue;
      changes.push({ at: this.findChange(at - SAMPLE_MS, at, previous), offset });
      previous = offset;
    }
    const block = { first, changes };
    this.blocks.set(index, block);
    return block;
  }

  /** The first whole second in (lo, hi] whose offset is no longer `before`. */
  private findChange(lo: number, hi: number, before: number): number {
    while (hi - lo > MS_PER_SECOND) {
      const mid = lo + Math.floor((hi - lo) / (2 * MS_PER_SECOND)) * MS_PER_SECOND;
      if (this.rawOffset(mid) === before) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  private rawOffset(instant: number): number {
    return Math.round(this.zone.offset(instant) * MS_PER_MINUTE);
  }
}

// ---------------------------------------------------------------- business time

/** Working time of a configured business calendar; see the file comment for the rules. */
export class BusinessCalendar {
  readonly config: Readonly<CalendarConfig>;
  private readonly clock: ZoneClock;
  private readonly workDays: ReadonlySet<number>;
  private readonly holidays: ReadonlySet<number>;
  private readonly dayStart: number;
  private readonly dayEnd: number;

  /** Throws an Error naming the problem when the configuration is unusable (e.g. no working day). */
  constructor(cfg: CalendarConfig) {
    const hours = parseWorkHours(`${cfg.workStart}-${cfg.workEnd}`);
    const workDays = cfg.workDays.filter((d) => Number.isInteger(d) && d >= 1 && d <= 7);
    if (workDays.length !== cfg.workDays.length) throw new Error(`Working days must be ISO weekdays 1..7, not ${cfg.workDays.join(',')}.`);
    if (workDays.length === 0) throw new Error('A business calendar needs at least one working day a week.');
    this.clock = new ZoneClock(cfg.timeZone);
    this.workDays = new Set(workDays);
    this.holidays = new Set(parseHolidays(cfg.holidays.join(',')).map((h) => holidayDay(h) as number));
    this.dayStart = (clockMinutes(hours.workStart) as number) * MS_PER_MINUTE;
    this.dayEnd = (clockMinutes(hours.workEnd) as number) * MS_PER_MINUTE;
    this.config = Object.freeze({
      timeZone: parseTimeZone(cfg.timeZone),
      workDays: [...this.workDays].sort((a, b) => a - b),
      workStart: hours.workStart,
      workEnd: hours.workEnd,
      holidays: parseHolidays(cfg.holidays.join(',')),
    });
  }

  /** True when the instant lies inside a working period (its start included, its end not). */
  isWorkingTime(ms: number): boolean {
    const day = this.localDay(ms);
    return this.isWorkingDay(day) && ms >= this.periodStart(day) && ms < this.periodEnd(day);
  }

  /** The instant itself when it is working time, else the start of the next working period. */
  nextWorkingTime(ms: number): number {
    return this.moveForward(ms).at;
  }

  /** `startMs` plus `length` units of business time (DAY = one working day). */
  addBusinessTime(startMs: number, length: number, unit: TimeUnit): number {
    assertLength(length);
    inRange(startMs);
    const result = this.addInUnit(startMs, length, unit);
    if (result > LATEST_BUSINESS_MS) throw new RangeError(BEYOND_HORIZON);
    return result;
  }

  private addInUnit(startMs: number, length: number, unit: TimeUnit): number {
    switch (unit) {
      case 'SECOND':
      case 'MINUTE':
      case 'HOUR':
        return this.addWorkingTime(startMs, length * (EXACT_UNIT_MS[unit] as number));
      case 'DAY':
        return this.addWorkingDays(startMs, length);
      case 'WEEK':
        return this.addWorkingDays(startMs, length * this.workDays.size);
      case 'MONTH':
      case 'YEAR':
        return this.addCalendarUnits(startMs, length, unit);
      default:
        throw new RangeError(`Unknown time unit ${String(unit)}.`);
    }
  }

  private addWorkingTime(startMs: number, durationMs: number): number {
    this.assertReachable(startMs, durationMs);
    let { at, day } = this.moveForward(startMs);
    let remaining = durationMs;
    for (;;) {
      const available = this.periodEnd(day) - at;
      if (remaining <= available) return at + remaining;
      remaining -= available;
      day = this.nextWorkingDay(day);
      at = this.periodStart(day);
    }
  }

  private addWorkingDays(startMs: number, days: number): number {
    const { at, day } = this.moveForward(startMs);
    const timeOfDay = this.clock.toLocal(at) - day * MS_PER_DAY;
    let target = day;
    for (let i = 0; i < days; i++) target = this.nextWorkingDay(target);
    return this.clock.toInstant(target * MS_PER_DAY + timeOfDay);
  }

  /** Fails at once, instead of after a long walk, when no week could hold enough working time to end before the horizon. */
  private assertReachable(startMs: number, durationMs: number): void {
    const mostPerWeek = this.workDays.size * (this.dayEnd - this.dayStart + MAX_CLOCK_SHIFT_MS);
    if (startMs + (durationMs / mostPerWeek) * 7 * MS_PER_DAY > LATEST_BUSINESS_MS) throw new RangeError(BEYOND_HORIZON);
  }

  private addCalendarUnits(startMs: number, length: number, unit: 'MONTH' | 'YEAR'): number {
    const { at } = this.moveForward(startMs);
    return this.nextWorkingTime(addCalendarTime(at, length, unit, this.config.timeZone));
  }

  /** The first working instant at or after `ms`, with the local day of its working period. */
  private moveForward(ms: number): { at: number; day: number } {
    let day = this.localDay(ms);
    if (this.isWorkingDay(day) && ms < this.periodEnd(day)) return { at: Math.max(ms, this.periodStart(day)), day };
    day = this.nextWorkingDay(day);
    return { at: this.periodStart(day), day };
  }

  private nextWorkingDay(afterDay: number): number {
    let day = afterDay + 1;
    while (!this.isWorkingDay(day)) day++;
    if (day * MS_PER_DAY > LATEST_BUSINESS_MS) throw new RangeError(BEYOND_HORIZON);
    return day;
  }

  private isWorkingDay(day: number): boolean {
    return this.workDays.has(isoWeekday(day)) && !this.holidays.has(day);
  }

  private localDay(ms: number): number {
    return Math.floor(this.clock.toLocal(ms) / MS_PER_DAY);
  }

  private periodStart(day: number): number {
    return this.clock.toInstant(day * MS_PER_DAY + this.dayStart);
  }

  private periodEnd(day: number): number {
    return this.clock.toInstant(day * MS_PER_DAY + this.dayEnd);
  }
}

/** ISO weekday (1 = Monday .. 7 = Sunday) of a day counted from 1970-01-01, a Thursday. */
function isoWeekday(day: number): number {
  return ((((day + 3) % 7) + 7) % 7) + 1;
}
