import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_DATE_MS, formatDate, parseDate } from '../../src/domain/dates.ts';

const MS = 1394154711507;

describe('formatDate', () => {
  test('writes /Date(ms+0000)/', () => {
    assert.equal(formatDate(MS), '/Date(1394154711507+0000)/');
    assert.equal(formatDate(0), '/Date(0+0000)/');
    assert.equal(formatDate(-1), '/Date(-1+0000)/');
  });

  test('an unset date is 0001-01-01T00:00:00Z, never null', () => {
    assert.equal(MIN_DATE_MS, new Date('0001-01-01T00:00:00Z').getTime());
    assert.equal(formatDate(null), '/Date(-62135596800000+0000)/');
    assert.equal(formatDate(undefined), '/Date(-62135596800000+0000)/');
    assert.equal(formatDate(Number.NaN), '/Date(-62135596800000+0000)/');
  });

  test('drops fractions of a millisecond', () => {
    assert.equal(formatDate(1.9), '/Date(1+0000)/');
  });
});

describe('parseDate: Microsoft JSON form', () => {
  test('accepts every client spelling of the same instant', () => {
    for (const text of [
      '/Date(1394154711507)/',
      '/Date(1394154711507+0000)/',
      '/Date(1394154711507-0000)/',
      '/Date(1394154711507+0530)/',
      '/Date(1394154711507-0800)/',
      '\\/Date(1394154711507)\\/',
      '\\/Date(1394154711507+0000)\\/',
      '\\/Date(1394154711507-0000)\\/',
      '  /Date(1394154711507)/  ',
    ]) {
      assert.equal(parseDate(text), MS, text);
    }
  });

  test('accepts negative milliseconds and the MIN date', () => {
    assert.equal(parseDate('/Date(-1)/'), -1);
    assert.equal(parseDate('/Date(-62135596800000+0000)/'), MIN_DATE_MS);
    assert.equal(parseDate('\\/Date(-62135568000000+0000)\\/'), -62135568000000);
  });

  test('reads back what formatDate writes', () => {
    for (const ms of [0, 1, -1, MS, MIN_DATE_MS, 8.64e15, -8.64e15]) {
      assert.equal(parseDate(formatDate(ms)), ms);
    }
  });

  test('turns -0 into 0', () => {
    assert.ok(Object.is(parseDate('/Date(-0)/'), 0));
  });

  test('rejects malformed and out-of-range forms', () => {
    for (const text of [
      '/Date()/',
      '/Date(abc)/',
      '/Date(1.5)/',
      '/Date(1+00)/',
      '/Date(1+00000)/',
      '/Date(1) /',
      'Date(1)',
      '/Date(1)',
      '\\/Date(1)/',
      '/Date(1)\\/',
      '/date(1)/',
      '/Date(8640000000000001)/',
      '/Date(-8640000000000001)/',
      '/Date(99999999999999999)/',
    ]) {
      assert.equal(parseDate(text), null, text);
    }
  });
});

describe('parseDate: ISO 8601', () => {
  test('a date alone is midnight UTC', () => {
    assert.equal(parseDate('2026-01-31'), Date.UTC(2026, 0, 31));
  });

  test('with Z, with offsets, and without offset (= UTC)', () => {
    const utc = Date.UTC(2026, 0, 31, 10, 20, 30);
    assert.equal(parseDate('2026-01-31T10:20:30Z'), utc);
    assert.equal(parseDate('2026-01-31t10:20:30z'), utc);
    assert.equal(parseDate('2026-01-31T10:20:30'), utc);
    assert.equal(parseDate('2026-01-31 10:20:30'), utc);
    assert.equal(parseDate('2026-01-31T11:20:30+01:00'), utc);
    assert.equal(parseDate('2026-01-31T11:20:30+0100'), utc);
    assert.equal(parseDate('2026-01-31T11:20:30+01'), utc);
    assert.equal(parseDate('2026-01-31T05:20:30-05:00'), utc);
    assert.equal(parseDate('2026-01-31T15:50:30+05:30'), utc);
    assert.equal(parseDate('2026-01-31T10:20Z'), Date.UTC(2026, 0, 31, 10, 20));
  });

  test('keeps milliseconds and ignores digits beyond them', () => {
    assert.equal(parseDate('2026-01-31T10:20:30.123Z'), Date.UTC(2026, 0, 31, 10, 20, 30, 123));
    assert.equal(parseDate('2026-01-31T10:20:30.5Z'), Date.UTC(2026, 0, 31, 10, 20, 30, 500));
    assert.equal(parseDate('2026-01-31T10:20:30.123456789Z'), Date.UTC(2026, 0, 31, 10, 20, 30, 123));
  });

  test('handles years before 100 and leap days', () => {
    assert.equal(parseDate('0001-01-01T00:00:00Z'), MIN_DATE_MS);
    assert.equal(parseDate('2024-02-29'), Date.UTC(2024, 1, 29));
    assert.equal(parseDate('2000-02-29'), Date.UTC(2000, 1, 29));
  });

  test('rejects dates and times that do not exist or are not ISO', () => {
    for (const text of [
      '2026-02-29',
      '1900-02-29',
      '2026-02-30',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-01-31T24:00:00Z',
      '2026-01-31T10:60:00Z',
      '2026-01-31T10:00:60Z',
      '2026-01-31T10:00+24:00',
      '2026-01-31T10:00+01:60',
      '2026-01-31T10:00+1',
      '2026-1-5',
      '26-01-31',
      '2026-01-31T',
      '2026-01-31T10',
      '31.01.2026',
      'tomorrow',
      'Sat, 31 Jan 2026 10:00:00 GMT',
      '',
      '   ',
    ]) {
      assert.equal(parseDate(text), null, text);
    }
  });

  test('anything that is not a string is null', () => {
    for (const value of [MS, null, undefined, {}, [], true, new Date(MS)]) assert.equal(parseDate(value), null);
  });
});
