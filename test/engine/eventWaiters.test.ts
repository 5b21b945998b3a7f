/**
 * Prefer: wait answers from the final row the dispatcher hands over (no read of the event):
 * that row must be the stored one, and a wait that starts after its event was finalized must
 * not hang until the poll.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EventWaiters } from '../../src/engine/EventWaiters.ts';
import type { EventRow } from '../../src/store/queries/events.ts';
import { deploy, startServer, workList, type TestServer } from '../helpers/harness.ts';

const W = '/EngineServer/Workflow';
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];

describe('Prefer: wait over HTTP', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ users: [alice] });
  });
  after(() => s.close());

  test('the answer of a wait is the event as stored (GetEvent), for each call of a task', async () => {
    const defId = await deploy(s, 'approval.bpmn');
    const wait = { headers: { prefer: 'wait=10' } };
    const answers = [];
    answers.push((await s.post(`${W}/CreateProcInst`, { ProcessID: defId }, wait)).json);
    const [item] = await workList(s, alice, 'New');
    answers.push((await s.post(`${W}/AssignWorkItem/${item.WorkItemID}`, {}, { ...wait, as: alice })).json);
    answers.push((await s.post(`${W}/CompleteWorkItem/${item.WorkItemID}`, {}, { ...wait, as: alice })).json);
    for (const answer of answers) {
      assert.equal(answer.Status, 'Processed', JSON.stringify(answer));
      const stored = await s.get(`${W}/GetEvent/${answer.EventID}`);
      assert.deepEqual(answer, stored.json.GetEventResult, `${answer.EventName}: the waited answer equals the stored event`);
    }
  });
});

describe('EventWaiters', () => {
  const row = (id: string) => ({ event_id: id, status: 'Processed' }) as EventRow;

  test('a waiter is woken with the final row handed over', async () => {
    const w = new EventWaiters();
    const waiting = w.wait('e1', 60_000).done;
    w.notify(['e1'], new Map([['e1', row('e1')]]));
    assert.deepEqual(await waiting, { notified: true, row: row('e1') });
    assert.equal(w.size, 0);
  });

  test('a wait that starts after the event was finalized resolves at once; without a row when another node finalized it', async () => {
    const w = new EventWaiters();
    w.notify(['mine'], new Map([['mine', row('mine')]]));
    w.notify(['theirs']);
    assert.deepEqual(await w.wait('mine', 60_000).done, { notified: true, row: row('mine') });
    assert.deepEqual(await w.wait('theirs', 60_000).done, { notified: true, row: null });
    assert.equal(w.size, 0, 'no timer left behind');
  });

  test('an event never finalized times out; the memory of final events is bounded', async () => {
    const w = new EventWaiters();
    assert.deepEqual(await w.wait('never', 10).done, { notified: false, row: null });
    w.notify(Array.from({ length: 1025 }, (_, i) => `x${i}`));
    assert.deepEqual(await w.wait('x1024', 60_000).done, { notified: true, row: null }, 'the newest is remembered');
    assert.deepEqual(await w.wait('x0', 10).done, { notified: false, row: null }, 'the oldest was forgotten');
  });
});
