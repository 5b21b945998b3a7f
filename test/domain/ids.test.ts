import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ZERO_ID, isId, newId, normalizeId } from '../../src/domain/ids.ts';

describe('newId', () => {
  test('is 32 upper-case hex characters in the UUIDv7 layout', () => {
    for (let i = 0; i < 1000; i++) {
      const id = newId();
      assert.match(id, /^[0-9A-F]{32}$/);
      assert.equal(id[12], '7', 'version nibble');
      assert.match(id[16], /[89AB]/, 'variant bits 10');
    }
  });

  test('starts with the 48-bit millisecond timestamp', () => {
    assert.equal(newId(0x0123456789ab).slice(0, 12), '0123456789AB');
    const ms = Date.UTC(2026, 0, 31, 12, 0, 0, 123);
    assert.equal(parseInt(newId(ms).slice(0, 12), 16), ms);
    assert.equal(newId(0).slice(0, 12), '000000000000');
  });

  test('ids of later milliseconds sort after earlier ones, also across hex digit boundaries', () => {
    const times = [0xfff, 0x1000, 0xffff, 0x10000, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, 2 ** 48 - 1];
    const ids = times.map((t) => newId(t));
    assert.deepEqual([...ids].sort(), ids);
  });

  test('ids made in a sequence of milliseconds come out in order', () => {
    const start = Date.now();
    const ids = Array.from({ length: 500 }, (_, i) => newId(start + i));
    assert.deepEqual([...ids].sort(), ids);
  });

  test('ids in the same millisecond are all different (random part refilled from the pool)', () => {
    const ms = Date.now();
    const ids = new Set(Array.from({ length: 50_000 }, () => newId(ms)));
    assert.equal(ids.size, 50_000);
  });

  test('every random position varies', () => {
    const ids = Array.from({ length: 2000 }, () => newId(1_700_000_000_000));
    for (const position of [13, 14, 15, 16, 17, 20, 25, 31]) {
      assert.ok(new Set(ids.map((id) => id[position])).size > 1, `position ${position} never changes`);
    }
    assert.ok(new Set(ids.map((id) => id[16])).size === 4, 'variant digit takes 8, 9, A and B');
  });

  test('refuses times outside 0 .. 2^48-1', () => {
    assert.throws(() => newId(-1), RangeError);
    assert.throws(() => newId(2 ** 48), RangeError);
    assert.throws(() => newId(Number.NaN), RangeError);
  });
});

describe('isId / normalizeId / ZERO_ID', () => {
  test('accepts exactly 32 hex characters in any case', () => {
    assert.equal(isId('0FD3088F40B640D4AFE41AEEBDAE914B'), true);
    assert.equal(isId('0fd3088f40b640d4afe41aeebdae914b'), true);
    assert.equal(isId('0fD3088F40b640D4afe41AEEBDAE914b'), true);
    assert.equal(isId(newId()), true);
  });

  test('rejects everything else', () => {
    for (const bad of [
      '0FD3088F40B640D4AFE41AEEBDAE914',
      '0FD3088F40B640D4AFE41AEEBDAE914B0',
      '0FD3088F40B640D4AFE41AEEBDAE914G',
      '0FD3088F-40B6-40D4-AFE4-1AEEBDAE914B',
      ' 0FD3088F40B640D4AFE41AEEBDAE914B',
      '0FD3088F40B640D4AFE41AEEBDAE914B\n',
      '',
      null,
      undefined,
      12345,
      {},
    ]) {
      assert.equal(isId(bad), false, JSON.stringify(bad));
    }
  });

  test('normalizeId upper-cases', () => {
    assert.equal(normalizeId('0fd3088f40b640d4afe41aeebdae914b'), '0FD3088F40B640D4AFE41AEEBDAE914B');
  });

  test('ZERO_ID is 32 zeros and a valid id', () => {
    assert.equal(ZERO_ID, '00000000000000000000000000000000');
    assert.equal(isId(ZERO_ID), true);
  });
});
