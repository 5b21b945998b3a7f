import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { RIGHT_COUNT } from '../../src/domain/rights.ts';
import { decodeRights, encodeRights } from '../../src/engine/rightsWire.ts';

const rightSets = fc.uniqueArray(fc.integer({ min: 0, max: RIGHT_COUNT - 1 }), { maxLength: RIGHT_COUNT });

test('rights cross to the writer thread as text and come back as the same rights', () => {
  fc.assert(
    fc.property(rightSets, (indexes) => {
      const rights = new Set(indexes);
      const text = encodeRights(rights);
      assert.equal(typeof text, 'string');
      assert.deepEqual([...decodeRights(text)].sort((a, b) => a - b), [...rights].sort((a, b) => a - b));
    }),
    { numRuns: 300 },
  );
});

test('the text does not depend on the order the rights were added in', () => {
  fc.assert(
    fc.property(rightSets, (indexes) => {
      assert.equal(encodeRights(new Set(indexes)), encodeRights(new Set([...indexes].reverse())));
    }),
  );
});

test('no rights at all, and one Set per text on the receiving side', () => {
  assert.equal(encodeRights(new Set()), '');
  assert.equal(decodeRights('').size, 0);
  assert.equal(decodeRights('3,14,86'), decodeRights('3,14,86'));
  assert.deepEqual([...decodeRights('3,14,86')], [3, 14, 86]);
});
