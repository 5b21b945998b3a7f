/** WaymarkError: a business answer, built without a stack trace (src/domain/errors.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WaymarkError, isWaymarkError } from '../../src/domain/errors.ts';

test('a WaymarkError carries its code, status, title, detail and headers, and no stack frames', () => {
  const e = new WaymarkError('WorkItemNotAvailable', 'The work item is taken.', { 'Retry-After': '1' });
  assert.ok(e instanceof Error);
  assert.ok(isWaymarkError(e));
  assert.equal(e.status, 409);
  assert.equal(e.title, 'The work item cannot be taken');
  assert.equal(e.detail, 'The work item is taken.');
  assert.deepEqual(e.headers, { 'Retry-After': '1' });
  assert.equal(e.name, 'WaymarkError');
  assert.doesNotMatch(String(e.stack), /\n\s+at /, 'no frames captured');
});

test('building one leaves the stack trace limit as it was, for the errors that need their frames', () => {
  const before = Error.stackTraceLimit;
  new WaymarkError('InternalError', 'x');
  assert.equal(Error.stackTraceLimit, before);
  assert.match(String(new Error('a bug').stack), /\n\s+at /);
});
