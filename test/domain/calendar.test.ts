import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import {
  BusinessCalendar,
  DEFAULT_CALENDAR,
  addCalendarTime,
  parseHolidays,
  parseTimeZone,
  parseWorkDays,
  parseWorkHours,
  type CalendarConfig,
} from '../../src/domain/calendar.ts';
import { TIME_UNITS, type TimeUnit } from '../../src/domain/timeUnits.ts';

const BERLIN = 'Europe/Berlin';
/** An instant from a local ISO date-time in a zone (UTC unless told). */
const at = (iso: string, zone = 'UTC'): number => {
  const dt = DateTime.fromISO(iso, { zone, setZone: true });
  assert.ok(dt.isValid, iso);
  return dt.toMillis();
};
/** The instant written as an ISO date-time with offset, in a zone (UTC unless told). */
const show = (ms: number, zone = 'UTC'): string => DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? '';
const calendar = (cfg: Partial<CalendarConfig> = {}) => new BusinessCalendar({ ...DEFAULT_CALENDAR, ...cfg });

describe('configuration parsers', () => {
  test('parseTimeZone accepts IANA names in their canonical spelling', () => {
    assert.equal(parseTimeZone('Europe/Berlin'), 'Europe/Berlin');
    assert.equal(parseTimeZone(' europe/berlin '), 'Europe/Berlin');
    assert.equal(parseTimeZone('UTC'), 'UTC');
    assert.equal(parseTimeZone('America/New_York'), 'America/New_York');
  });

  test('parseTimeZone refuses other names, saying what to use', () => {
    for (const bad of ['Mars/Olympus', '', '  ', 'UTC+1', '+01:00', 'local', 'Berlin']) {
      assert.throws(() => parseTimeZone(bad), (e: Error) => !(e instanceof RangeError) && /IANA name/.test(e.message) && e.message.includes(`"${bad}"`));
    }
  });

  test('parseWorkDays reads names, numbers, lists and ranges', () => {
    assert.deepEqual(parseWorkDays('Mon-Fri'), [1, 2, 3, 4, 5]);
    assert.deepEqual(parseWorkDays('mon,TUE,sat'), [1, 2, 6]);
    assert.deepEqual(parseWorkDays('1-5'), [1, 2, 3, 4, 5]);
    assert.deepEqual(parseWorkDays('1,2,3'), [1, 2, 3]);
    assert.deepEqual(parseWorkDays(' Monday - Wednesday , 7 '), [1, 2, 3, 7]);
    assert.deepEqual(parseWorkDays('Sun-Thu'), [1, 2, 3, 4, 7]);
    assert.deepEqual(parseWorkDays('Fri-Fri'), [5]);
    assert.deepEqual(parseWorkDays('Mon,Mon-Tue'), [1, 2]);
  });

  test('parseWorkDays refuses unknown days and empty lists', () => {
    for (const bad of ['', ' ', 'Mon-', 'Funday', '0', '8', 'Mon-Tue-Wed', 'Mon,,Tue', 'Mo']) {
      assert.throws(() => parseWorkDays(bad), Error, bad);
    }
  });

  test('parseWorkHours reads HH:mm-HH:mm and normalises it', () => {
    assert.deepEqual(parseWorkHours('09:00-17:00'), { workStart: '09:00', workEnd: '17:00' });
    assert.deepEqual(parseWorkHours(' 9:30 - 18:00 '), { workStart: '09:30', workEnd: '18:00' });
    assert.deepEqual(parseWorkHours('00:00-24:00'), { workStart: '00:00', workEnd: '24:00' });
  });

  test('parseWorkHours refuses impossible or backwards ranges', () => {
    assert.throws(() => parseWorkHours('17:00-09:00'), /ends before it starts/);
    assert.throws(() => parseWorkHours('09:00-09:00'), /ends before it starts/);
    for (const bad of ['25:00-26:00', '09:60-10:00', '24:00-24:30', '09:00-24:01']) assert.throws(() => parseWorkHours(bad), /does not exist/, bad);
    for (const bad of ['9-17', '', '09:00', '09:00 to 17:00']) assert.throws(() => parseWorkHours(bad), /such as 09:00-17:00/, bad);
  });

  test('parseHolidays reads a comma list of dates, empty meaning none', () => {
    assert.deepEqual(parseHolidays(''), []);
    assert.deepEqual(parseHolidays('  '), []);
    assert.deepEqual(parseHolidays('2026-12-25, 2026-01-01,2026-12-25'), ['2026-01-01', '2026-12-25']);
  });

  test('parseHolidays refuses dates that do not exist or are written otherwise', () => {
    for (const bad of ['2026-02-30', '25.12.2026', '2026-1-1', '2026-12-25T00:00', 'Christmas']) {
      assert.throws(() => parseHolidays(`2026-01-01,${bad}`), (e: Error) => e.message.includes(`"${bad}"`) && /YYYY-MM-DD/.test(e.message));
    }
  });
});

describe('addCalendarTime', () => {
  test('SECOND, MINUTE and HOUR are exact durations, also across a DST change', () => {
    const start = at('2026-03-28T12:00', BERLIN);
    assert.equal(addCalendarTime(start, 90, 'SECOND', BERLIN), start + 90_000);
    assert.equal(addCalendarTime(start, 90, 'MINUTE', BERLIN), start + 5_400_000);
    assert.equal(show(addCalendarTime(start, 24, 'HOUR', BERLIN), BERLIN), '2026-03-29T13:00:00+02:00');
  });

  test('1 DAY is the same wall-clock time the next day: 23 hours in spring, 25 in autumn (Europe/Berlin)', () => {
    const spring = at('2026-03-28T12:00', BERLIN);
    const springResult = addCalendarTime(spring, 1, 'DAY', BERLIN);
    assert.equal(show(springResult, BERLIN), '2026-03-29T12:00:00+02:00');
    assert.equal(springResult - spring, 23 * 3_600_000);
    const autumn = at('2026-10-24T12:00', BERLIN);
    const autumnResult = addCalendarTime(autumn, 1, 'DAY', BERLIN);
    assert.equal(show(autumnResult, BERLIN), '2026-10-25T12:00:00+01:00');
    assert.equal(autumnResult - autumn, 25 * 3_600_000);
  });

  test('a wall-clock time that the spring change skips moves forward by the gap', () => {
    assert.equal(show(addCalendarTime(at('2026-03-28T02:30', BERLIN), 1, 'DAY', BERLIN), BERLIN), '2026-03-29T03:30:00+02:00');
  });

  test('WEEK keeps the wall-clock time across a DST change', () => {
    assert.equal(show(addCalendarTime(at('2026-03-25T09:00', BERLIN), 1, 'WEEK', BERLIN), BERLIN), '2026-04-01T09:00:00+02:00');
  });

  test('MONTH and YEAR clamp to the end of shorter months', () => {
    assert.equal(show(addCalendarTime(at('2026-01-31T10:00', BERLIN), 1, 'MONTH', BERLIN), BERLIN), '2026-02-28T10:00:00+01:00');
    assert.equal(show(addCalendarTime(at('2028-01-31T10:00'), 1, 'MONTH', 'UTC')), '2028-02-29T10:00:00Z');
    assert.equal(show(addCalendarTime(at('2028-02-29T10:00'), 1, 'YEAR', 'UTC')), '2029-02-28T10:00:00Z');
    assert.equal(show(addCalendarTime(at('2026-01-15T10:00', BERLIN), 6, 'MONTH', BERLIN), BERLIN), '2026-07-15T10:00:00+02:00');
  });

  test('length 0 keeps the start; a negative or fractional length is refused', () => {
    const start = at('2026-01-05T10:00');
    for (const unit of TIME_UNITS) assert.equal(addCalendarTime(start, 0, unit, 'UTC'), start);
    assert.throws(() => addCalendarTime(start, -1, 'DAY', 'UTC'), RangeError);
    assert.throws(() => addCalendarTime(start, 1.5, 'HOUR', 'UTC'), RangeError);
  });
});

describe('BusinessCalendar: configuration', () => {
  test('refuses calendars that could never reach a working time', () => {
    assert.throws(() => calendar({ workDays: [] }), /at least one working day/);
    assert.throws(() => calendar({ workDays: [0] }), /ISO weekdays/);
    assert.throws(() => calendar({ workDays: [1, 8] }), /ISO weekdays/);
    assert.throws(() => calendar({ workStart: '17:00', workEnd: '09:00' }), /ends before it starts/);
    assert.throws(() => calendar({ timeZone: 'Nowhere/City' }), /IANA name/);
    assert.throws(() => calendar({ holidays: ['2026-02-30'] }), /YYYY-MM-DD/);
  });

  test('keeps a normalised copy of its configuration', () => {
    const cal = calendar({ timeZone: 'europe/berlin', workDays: [5, 1, 3, 1], workStart: '9:00', holidays: ['2026-12-25', '2026-01-01'] });
    assert.deepEqual({ ...cal.config }, {
      timeZone: 'Europe/Berlin', workDays: [1, 3, 5], workStart: '09:00', workEnd: '17:00', holidays: ['2026-01-01', '2026-12-25'],
    });
  });
});

describe('BusinessCalendar: default calendar (UTC, Mon-Fri 09:00-17:00)', () => {
  const cal = calendar();
  const add = (iso: string, length: number, unit: TimeUnit) => show(cal.addBusinessTime(at(iso), length, unit));

  test('knows working time: start included, end excluded, weekends off', () => {
    assert.equal(cal.isWorkingTime(at('2026-01-05T09:00')), true);
    assert.equal(cal.isWorkingTime(at('2026-01-05T08:59:59.999')), false);
    assert.equal(cal.isWorkingTime(at('2026-01-05T16:59:59.999')), true);
    assert.equal(cal.isWorkingTime(at('2026-01-05T17:00')), false);
    assert.equal(cal.isWorkingTime(at('2026-01-10T12:00')), false);
    assert.equal(show(cal.nextWorkingTime(at('2026-01-09T17:00'))), '2026-01-12T09:00:00Z');
    assert.equal(show(cal.nextWorkingTime(at('2026-01-05T10:15'))), '2026-01-05T10:15:00Z');
  });

  test('HOUR, MINUTE and SECOND count working time only', () => {
    assert.equal(add('2026-01-05T09:00', 8, 'HOUR'), '2026-01-05T17:00:00Z');
    assert.equal(add('2026-01-05T16:00', 2, 'HOUR'), '2026-01-06T10:00:00Z');
    assert.equal(add('2026-01-09T16:00', 2, 'HOUR'), '2026-01-12T10:00:00Z');
    assert.equal(add('2026-01-05T09:00', 40, 'HOUR'), '2026-01-09T17:00:00Z');
    assert.equal(add('2026-01-05T09:00', 41, 'HOUR'), '2026-01-12T10:00:00Z');
    assert.equal(add('2026-01-05T10:00', 90, 'MINUTE'), '2026-01-05T11:30:00Z');
    assert.equal(add('2026-01-09T16:59:59', 2, 'SECOND'), '2026-01-12T09:00:01Z');
  });

  test('a start outside working hours first moves to the next working period', () => {
    assert.equal(add('2026-01-10T12:00', 1, 'HOUR'), '2026-01-12T10:00:00Z');
    assert.equal(add('2026-01-05T07:00', 30, 'MINUTE'), '2026-01-05T09:30:00Z');
    assert.equal(add('2026-01-05T18:00', 1, 'HOUR'), '2026-01-06T10:00:00Z');
    assert.equal(add('2026-01-05T17:00', 1, 'HOUR'), '2026-01-06T10:00:00Z');
  });

  test('DAY is working days at the same time of day', () => {
    assert.equal(add('2026-01-05T10:30', 1, 'DAY'), '2026-01-06T10:30:00Z');
    assert.equal(add('2026-01-09T10:30', 1, 'DAY'), '2026-01-12T10:30:00Z');
    assert.equal(add('2026-01-05T10:30', 5, 'DAY'), '2026-01-12T10:30:00Z');
    assert.equal(add('2026-01-10T12:00', 1, 'DAY'), '2026-01-13T09:00:00Z');
    assert.equal(add('2026-01-05T18:00', 1, 'DAY'), '2026-01-07T09:00:00Z');
  });

  test('WEEK is as many working days as a week has', () => {
    assert.equal(add('2026-01-07T11:00', 1, 'WEEK'), '2026-01-14T11:00:00Z');
    assert.equal(add('2026-01-07T11:00', 2, 'WEEK'), '2026-01-21T11:00:00Z');
  });

  test('MONTH and YEAR add calendar time, then move to working time', () => {
    assert.equal(add('2026-01-05T10:00', 1, 'MONTH'), '2026-02-05T10:00:00Z');
    assert.equal(add('2026-01-30T10:00', 1, 'MONTH'), '2026-03-02T09:00:00Z');
    assert.equal(add('2026-01-03T12:00', 1, 'MONTH'), '2026-02-05T09:00:00Z');
    assert.equal(add('2026-01-05T10:00', 1, 'YEAR'), '2027-01-05T10:00:00Z');
  });

  test('length 0 is the next working time; bad lengths and units are refused', () => {
    assert.equal(add('2026-01-10T12:00', 0, 'HOUR'), '2026-01-12T09:00:00Z');
    assert.equal(add('2026-01-05T12:00', 0, 'DAY'), '2026-01-05T12:00:00Z');
    assert.throws(() => cal.addBusinessTime(at('2026-01-05T12:00'), -1, 'HOUR'), RangeError);
    assert.throws(() => cal.addBusinessTime(at('2026-01-05T12:00'), 0.5, 'HOUR'), RangeError);
    assert.throws(() => cal.addBusinessTime(at('2026-01-05T12:00'), 1, 'FORTNIGHT' as TimeUnit), RangeError);
  });
});

describe('BusinessCalendar: holidays', () => {
  const cal = calendar({ holidays: ['2026-12-24', '2026-12-25', '2026-12-31'] });
  const add = (iso: string, length: number, unit: TimeUnit) => show(cal.addBusinessTime(at(iso), length, unit));

  test('are whole non-working days', () => {
    assert.equal(cal.isWorkingTime(at('2026-12-24T10:00')), false);
    assert.equal(cal.isWorkingTime(at('2026-12-23T10:00')), true);
  });

  test('are skipped by every unit', () => {
    assert.equal(add('2026-12-23T16:00', 2, 'HOUR'), '2026-12-28T10:00:00Z');
    assert.equal(add('2026-12-23T10:00', 1, 'DAY'), '2026-12-28T10:00:00Z');
    assert.equal(add('2026-12-24T12:00', 1, 'HOUR'), '2026-12-28T10:00:00Z');
    assert.equal(add('2026-12-21T10:00', 1, 'WEEK'), '2026-12-30T10:00:00Z');
    assert.equal(add('2026-12-21T10:00', 6, 'DAY'), '2027-01-01T10:00:00Z');
    assert.equal(add('2026-11-24T10:00', 1, 'MONTH'), '2026-12-28T09:00:00Z');
  });
});

describe('BusinessCalendar: other working weeks', () => {
  test('a three-day week: 1 WEEK is three working days', () => {
    const cal = calendar({ workDays: [1, 3, 5] });
    assert.equal(show(cal.addBusinessTime(at('2026-01-05T10:00'), 1, 'WEEK')), '2026-01-12T10:00:00Z');
    assert.equal(show(cal.addBusinessTime(at('2026-01-06T10:00'), 1, 'DAY')), '2026-01-09T09:00:00Z');
  });

  test('a Sunday-to-Thursday week', () => {
    const cal = calendar({ workDays: parseWorkDays('Sun-Thu') });
    assert.equal(show(cal.addBusinessTime(at('2026-01-08T16:00'), 2, 'HOUR')), '2026-01-11T10:00:00Z');
  });
});

describe('BusinessCalendar: Europe/Berlin across DST changes', () => {
  const office = calendar({ timeZone: BERLIN });
  const allDay = calendar({ timeZone: BERLIN, workDays: [1, 2, 3, 4, 5, 6, 7], workStart: '00:00', workEnd: '24:00' });

  test('office hours over the spring weekend change', () => {
    assert.equal(show(office.addBusinessTime(at('2026-03-27T16:00', BERLIN), 2, 'HOUR'), BERLIN), '2026-03-30T10:00:00+02:00');
    assert.equal(show(office.addBusinessTime(at('2026-03-27T10:30', BERLIN), 1, 'DAY'), BERLIN), '2026-03-30T10:30:00+02:00');
    assert.equal(office.isWorkingTime(at('2026-03-30T09:00', BERLIN)), true);
    assert.equal(office.isWorkingTime(at('2026-03-30T06:30Z')), false);
    assert.equal(office.isWorkingTime(at('2026-03-30T07:30Z')), true);
  });

  test('office hours over the autumn weekend change', () => {
    assert.equal(show(office.addBusinessTime(at('2026-10-23T16:00', BERLIN), 2, 'HOUR'), BERLIN), '2026-10-26T10:00:00+01:00');
    assert.equal(show(office.addBusinessTime(at('2026-10-23T10:30', BERLIN), 1, 'DAY'), BERLIN), '2026-10-26T10:30:00+01:00');
  });

  test('round-the-clock hours count real elapsed time on the short and the long day', () => {
    const spring = at('2026-03-28T12:00', BERLIN);
    assert.equal(show(allDay.addBusinessTime(spring, 24, 'HOUR'), BERLIN), '2026-03-29T13:00:00+02:00');
    assert.equal(allDay.addBusinessTime(spring, 24, 'HOUR') - spring, 24 * 3_600_000);
    assert.equal(show(allDay.addBusinessTime(spring, 1, 'DAY'), BERLIN), '2026-03-29T12:00:00+02:00');
    const autumn = at('2026-10-24T12:00', BERLIN);
    assert.equal(show(allDay.addBusinessTime(autumn, 24, 'HOUR'), BERLIN), '2026-10-25T11:00:00+01:00');
    assert.equal(show(allDay.addBusinessTime(autumn, 1, 'DAY'), BERLIN), '2026-10-25T12:00:00+01:00');
  });

  test('working hours that contain the change lose or gain the hour', () => {
    const night = calendar({ timeZone: BERLIN, workDays: [1, 2, 3, 4, 5, 6, 7], workStart: '01:00', workEnd: '05:00' });
    assert.equal(night.isWorkingTime(at('2026-03-29T03:30', BERLIN)), true);
    assert.equal(show(night.addBusinessTime(at('2026-03-29T01:00', BERLIN), 4, 'HOUR'), BERLIN), '2026-03-30T02:00:00+02:00');
    assert.equal(show(night.addBusinessTime(at('2026-10-25T01:00', BERLIN), 5, 'HOUR'), BERLIN), '2026-10-25T05:00:00+01:00');
  });
});

describe('BusinessCalendar: wall-clock working hours around DST changes', () => {
  test('isWorkingTime matches the local wall clock, checked every 5 minutes over each change (Berlin, New York)', () => {
    const changes: Array<[string, string]> = [
      [BERLIN, '2026-03-28T12:00Z'], [BERLIN, '2026-10-24T12:00Z'],
      ['America/New_York', '2026-03-07T12:00Z'], ['America/New_York', '2026-10-31T12:00Z'],
    ];
    for (const hours of ['00:00-01:00', '01:00-02:00', '02:00-03:00', '03:00-04:00', '00:59-03:01', '00:00-24:00']) {
      const { workStart, workEnd } = parseWorkHours(hours);
      const [ws, we] = [workStart, workEnd].map((h) => Number(h.slice(0, 2)) * 60 + Number(h.slice(3)));
      for (const [zone, from] of changes) {
        const cal = calendar({ timeZone: zone, workDays: [1, 2, 3, 4, 5, 6, 7], workStart, workEnd });
        for (let t = at(from); t < at(from) + 2 * 86_400_000; t += 300_000) {
          const local = DateTime.fromMillis(t, { zone });
          const minutes = local.hour * 60 + local.minute;
          assert.equal(cal.isWorkingTime(t), minutes >= ws && minutes < we, `${hours} ${zone} at ${local.toISO()}`);
        }
      }
    }
  });

  test('a working day that starts inside the spring gap starts later by the gap, as calendar arithmetic does', () => {
    const cal = calendar({ timeZone: BERLIN, workDays: [1, 2, 3, 4, 5, 6, 7], workStart: '02:30', workEnd: '06:00' });
    assert.equal(show(cal.nextWorkingTime(at('2026-03-29T01:00', BERLIN)), BERLIN), '2026-03-29T03:30:00+02:00');
    assert.equal(show(cal.nextWorkingTime(at('2026-03-28T01:00', BERLIN)), BERLIN), '2026-03-28T02:30:00+01:00');
  });
});

describe('BusinessCalendar: agrees with a minute-by-minute count', () => {
  /** Counts working minutes one by one: slow, obviously right, usable for short lengths only. */
  function countMinutes(cal: BusinessCalendar, start: number, minutes: number): number {
    let t = start;
    let counted = 0;
    while (counted < minutes) {
      if (cal.isWorkingTime(t)) counted++;
      t += 60_000;
    }
    while (minutes === 0 && !cal.isWorkingTime(t)) t += 60_000;
    return t;
  }

  test('for random calendars, starts and lengths, in UTC and Europe/Berlin', () => {
    let seed = 2026;
    const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const zones = ['UTC', BERLIN, 'America/New_York'];
    for (let run = 0; run < 60; run++) {
      const startHour = random(20);
      const cal = calendar({
        timeZone: zones[run % 3],
        workDays: [...new Set([1 + random(7), 1 + random(7), 1 + random(7)])],
        workStart: `${String(startHour).padStart(2, '0')}:${random(2) ? '30' : '00'}`,
        workEnd: `${String(startHour + 1 + random(24 - startHour - 1)).padStart(2, '0')}:00`,
        holidays: ['2026-03-30', '2026-10-26', '2026-11-02'],
      });
      const start = at('2026-03-20T00:00Z') + random(250) * 86_400_000 + random(24 * 60) * 60_000;
      const minutes = random(3000);
      assert.equal(cal.addBusinessTime(start, minutes, 'MINUTE'), countMinutes(cal, start, minutes), JSON.stringify({ run, cfg: cal.config, start: show(start), minutes }));
    }
  });
});

describe('BusinessCalendar: always lands in working time and stays fast', () => {
  test('results are working time (or the end of a working period) for every unit', () => {
    let seed = 99;
    const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const cal = calendar({ timeZone: BERLIN, holidays: ['2026-04-03', '2026-04-06', '2026-05-01', '2026-12-25'] });
    for (let run = 0; run < 300; run++) {
      const start = at('2026-01-01T00:00Z') + random(365 * 24 * 60) * 60_000;
      const unit = TIME_UNITS[random(TIME_UNITS.length)];
      const length = 1 + random(50);
      const result = cal.addBusinessTime(start, length, unit);
      assert.ok(result > start, `${unit} ${length} from ${show(start)}`);
      const exact = unit === 'SECOND' || unit === 'MINUTE' || unit === 'HOUR';
      assert.ok(cal.isWorkingTime(exact ? result - 1 : result), `${length} ${unit} from ${show(start, BERLIN)} gave ${show(result, BERLIN)}`);
    }
  });

  test('the longest lengths finish quickly', () => {
    const cal = calendar({ timeZone: BERLIN });
    const started = performance.now();
    assert.equal(show(cal.addBusinessTime(at('2026-01-05T10:00', BERLIN), 100_000, 'HOUR'), BERLIN), '2073-12-04T10:00:00+01:00');
    cal.addBusinessTime(at('2026-01-05T10:00', BERLIN), 100_000, 'DAY');
    cal.addBusinessTime(at('2026-01-05T10:00', BERLIN), 100_000, 'WEEK');
    for (let i = 0; i < 1000; i++) cal.addBusinessTime(at('2026-01-05T10:00') + i * 3_600_000, 2, 'DAY');
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 3000, `took ${elapsed.toFixed(0)} ms`);
  });

  test('refuses results beyond 9999-12-31, quickly even for a one-minute working week', () => {
    const tiny = calendar({ timeZone: BERLIN, workDays: [7], workStart: '09:00', workEnd: '09:01' });
    const started = performance.now();
    assert.throws(() => tiny.addBusinessTime(at('2026-01-05T10:00'), 100_000, 'HOUR'), /9999-12-31/);
    assert.throws(() => calendar().addBusinessTime(at('2026-01-05T10:00'), 100_000, 'YEAR'), /9999-12-31/);
    assert.throws(() => calendar().addBusinessTime(at('2026-01-05T10:00'), 9_000_000, 'DAY'), /9999-12-31/);
    assert.ok(performance.now() - started < 5000);
  });
});
