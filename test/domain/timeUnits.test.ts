import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LENGTH, TIME_UNITS, TIME_UNIT_VALUE, formatExpectedTime, parseLength, parseUnit } from '../../src/domain/timeUnits.ts';

describe('time units', () => {
  test('are the seven units, shortest first, with their WFTimeUnit values', () => {
    assert.deepEqual([...TIME_UNITS], ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR']);
    assert.deepEqual(TIME_UNITS.map((u) => TIME_UNIT_VALUE[u]), [6, 5, 4, 3, 2, 1, 0]);
  });

  test('parseUnit accepts any case and surrounding spaces', () => {
    assert.equal(parseUnit('DAY'), 'DAY');
    assert.equal(parseUnit('day'), 'DAY');
    assert.equal(parseUnit(' Week '), 'WEEK');
    assert.equal(parseUnit('sEcOnD'), 'SECOND');
    for (const unit of TIME_UNITS) assert.equal(parseUnit(unit.toLowerCase()), unit);
  });

  test('parseUnit refuses everything else', () => {
    for (const bad of ['DAYS', 'd', 'HOURS', '', ' ', 'MILLISECOND', 3, null, undefined, {}, ['DAY']]) {
      assert.equal(parseUnit(bad), null, JSON.stringify(bad));
    }
  });
});

describe('parseLength', () => {
  test('accepts positive integers as digit strings or JSON numbers', () => {
    assert.equal(parseLength('2'), 2);
    assert.equal(parseLength(' 15 '), 15);
    assert.equal(parseLength('007'), 7);
    assert.equal(parseLength(5), 5);
    assert.equal(parseLength('100000'), MAX_LENGTH);
    assert.equal(parseLength(100000), 100000);
  });

  test('refuses zero, negatives, fractions, other notations and other types', () => {
    for (const bad of [
      '0', 0, '-1', -1, '1.5', 1.5, '1e3', '0x10', '+5', '', ' ', '2 DAY', 'two',
      '100001', 100001, '99999999999999999999', Number.NaN, Number.POSITIVE_INFINITY, true, null, undefined, {}, [2],
    ]) {
      assert.equal(parseLength(bad), null, String(bad));
    }
  });
});

describe('formatExpectedTime', () => {
  test('writes the length and unit, and marks business time', () => {
    assert.equal(formatExpectedTime(2, 'DAY', false), '2 DAY');
    assert.equal(formatExpectedTime(2, 'DAY', true), '2 DAY;BusinessTime=True');
    assert.equal(formatExpectedTime(30, 'MINUTE', true), '30 MINUTE;BusinessTime=True');
  });
});
