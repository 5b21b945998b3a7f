import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { evaluate } from 'feelin';
import { bareName, evaluateFeel } from '../../src/engine/feel.ts';

test('a bare name is recognised; reserved words and anything more are not', () => {
  assert.equal(bareName('initiator'), 'initiator');
  assert.equal(bareName('  amount '), 'amount');
  for (const e of ['true', 'null', 'not', 'a + 1', 'a.b', 'count(x)', '"x"', '', 'a b']) assert.equal(bareName(e), null, e);
});

test('the short cut gives what feelin gives, for names present, missing and of every scalar type', () => {
  const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
  const scalar = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
  fc.assert(
    fc.property(fc.dictionary(name, scalar), name, (context, asked) => {
      const ctx = Object.assign(Object.create(null), context) as Record<string, unknown>;
      assert.deepEqual(evaluateFeel(asked, ctx), evaluate(asked, ctx).value);
    }),
    { numRuns: 300 },
  );
});

test('expressions that are more than a name still go through feelin', () => {
  const ctx = { amount: 1200, initiator: 'ACME\\ann' };
  assert.equal(evaluateFeel('amount > 1000', ctx), true);
  assert.deepEqual(evaluateFeel('[initiator, "ACME\\\\bob"]', ctx), ['ACME\\ann', 'ACME\\bob']);
  assert.deepEqual(evaluateFeel('list', { list: ['a', 'b'] }), ['a', 'b']);
});
