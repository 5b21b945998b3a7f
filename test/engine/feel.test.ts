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

test('a reserved word is left to feelin: refused without a context entry of that name, its value with one (fast-check found "or")', () => {
  for (const word of ['or', 'and', 'in', 'if']) {
    assert.equal(bareName(word), null);
    assert.throws(() => evaluate(word, {}));
    assert.throws(() => evaluateFeel(word, {}));
    assert.equal(evaluate(word, { [word]: 'a value' }).value, 'a value');
    assert.equal(evaluateFeel(word, { [word]: 'a value' }), 'a value');
  }
});

test('the short cut gives what feelin gives, for names present, missing and of every scalar type', () => {
  const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
  const scalar = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
  fc.assert(
    fc.property(fc.dictionary(name, scalar), name, (context, asked) => {
      const ctx = Object.assign(Object.create(null), context) as Record<string, unknown>;
      // A generated name can be a word FEEL reserves ("or", "in", "if"): feelin refuses it, and so
      // must the short cut (it leaves such words to feelin). Failing alike counts as the same.
      const outcome = (f: () => unknown) => {
        try {
          return { value: f() };
        } catch {
          return { refused: true };
        }
      };
      assert.deepEqual(outcome(() => evaluateFeel(asked, ctx)), outcome(() => evaluate(asked, ctx).value));
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
