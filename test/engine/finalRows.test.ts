/**
 * Which final event rows cross from the writer thread (src/engine/finalRows.ts): a caller that
 * waits gets its final row, either as the answer (applied in the same commit) or with the `final`
 * message (applied later); no other row crosses.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { FinalRows } from '../../src/engine/finalRows.ts';
import type { EventRow } from '../../src/store/queries/events.ts';

function row(id: string, status: string): EventRow {
  return { event_id: id, status } as EventRow;
}

test('an event applied in the commit that admitted it: the waiting caller is answered with its final row, and no row goes with final', () => {
  const f = new FinalRows();
  const sent = { ids: ['A', 'B'], rows: new Map([['A', row('A', 'Processed')], ['B', row('B', 'Failed')]]) };
  assert.equal(f.finalized(sent.ids, sent.rows), undefined, 'nobody was answered Sent yet: ids only');
  assert.equal(f.answer(row('A', 'Sent')).status, 'Processed');
  assert.equal(f.answer(row('B', 'Sent')).status, 'Failed');
  assert.equal(f.awaitedCount, 0);
});

test('an event applied after its answer: the answer is Sent and its final row goes with its final message, once', () => {
  const f = new FinalRows();
  assert.equal(f.answer(row('A', 'Sent')).status, 'Sent');
  assert.equal(f.awaitedCount, 1);
  const rows = f.finalized(['A', 'C'], new Map([['A', row('A', 'Processed')], ['C', row('C', 'Processed')]]));
  assert.deepEqual([...(rows ?? new Map()).keys()], ['A'], 'the row of the awaited event only');
  assert.equal(f.awaitedCount, 0);
  assert.equal(f.finalized(['A'], new Map([['A', row('A', 'Processed')]])), undefined, 'reported once');
});

test('final rows are kept for the turn that reported them only', async () => {
  const f = new FinalRows();
  f.finalized(['A'], new Map([['A', row('A', 'Processed')]]));
  await nextTurn();
  assert.equal(f.answer(row('A', 'Sent')).status, 'Sent', 'a later turn does not find it');
});

test('an awaited event finalized without rows (ids only) is forgotten; the awaited set is bounded', () => {
  const f = new FinalRows();
  f.answer(row('A', 'Sent'));
  assert.equal(f.finalized(['A']), undefined);
  assert.equal(f.awaitedCount, 0);
  for (let i = 0; i < 10_050; i++) f.answer(row(`E${i}`, 'Sent'));
  assert.equal(f.awaitedCount, 10_000);
});
