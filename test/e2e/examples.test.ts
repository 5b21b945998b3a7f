/**
 * The example processes of examples/ driven end to end through the HTTP interface, the way their
 * users would: people take and complete tasks, attributes steer the gateways, a fake clock lets the
 * timers come due.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../helpers/harness.ts';
import { DAY, example, FakeClock, HOUR, ProcessDriver, USERS } from '../helpers/processDriver.ts';

let s: TestServer;
let d: ProcessDriver;
const defs: Record<string, string> = {};

before(async () => {
  const clock = new FakeClock();
  s = await startServer({ now: clock.now });
  d = new ProcessDriver(s, clock);
  await d.setUpPeople();
  for (const name of ['expense-approval', 'onboarding', 'escalation', 'shipping', 'order', 'rework-loop']) {
    defs[name] = await d.deploy(example(`${name}.bpmn`));
  }
});
after(() => s.close());

describe('expense approval', () => {
  test('a small claim is booked at once, without an approver', async () => {
    const pi = await d.start(defs['expense-approval'], { amount: 500 });
    assert.deepEqual(await d.trail(pi), ['Submitted', 'CheckAmount', 'Book', 'Booked']);
    assert.equal((await d.instance(pi)).Status, 'Completed');
  });

  test('a large claim waits for an approver from the Approvers group and is booked once approved', async () => {
    const pi = await d.start(defs['expense-approval'], { amount: 1500 });
    assert.deepEqual(await d.trail(pi), ['Submitted', 'CheckAmount', 'Approve']);
    assert.equal(await d.findTask(pi, 'Approve', 'bob'), undefined, 'bob is not an approver');
    await d.complete(pi, 'Approve', 'alice', { approved: true });
    assert.deepEqual(await d.trail(pi), ['Submitted', 'CheckAmount', 'Approve', 'Decision', 'Book', 'Booked']);
    assert.equal((await d.instance(pi)).Status, 'Completed');
  });

  test('a rejected claim goes back to its author; an approval left too long becomes Overdue', async () => {
    const pi = await d.start(defs['expense-approval'], { amount: 2500 }, USERS.bob);
    const task = await d.findTask(pi, 'Approve', 'alice');
    await d.ok(`/EngineServer/Workflow/AssignWorkItem/${task.WorkItemID}`, {}, USERS.alice);
    await d.advance(2 * DAY + HOUR);
    const overdue = await s.get(`/EngineServer/Workflow/GetWorkItem/${task.WorkItemID}`);
    assert.equal(overdue.json.GetWorkItemResult.Status, 'Overdue');
    await d.complete(pi, 'Approve', 'alice', { approved: false });
    assert.ok(await d.findTask(pi, 'Explain', 'bob'), 'the author (initiator) reads why');
    await d.complete(pi, 'Explain', 'bob');
    assert.deepEqual(await d.trail(pi), ['Submitted', 'CheckAmount', 'Approve', 'Decision', 'Explain', 'Rejected']);
  });
});

describe('onboarding', () => {
  test('parallel tasks join once all are done; the join counts its tokens', async () => {
    const pi = await d.start(defs.onboarding, { needsLaptop: true, needsPhone: false, manager: USERS.dave[0] });
    assert.deepEqual(await d.active(pi), ['CreateAccount', 'OrderLaptop', 'PrepareDesk']);
    await d.complete(pi, 'PrepareDesk', 'bob');
    let join = (await d.activities(pi)).find((a) => a.Name === 'Join');
    assert.equal(join.Tokens, 1);
    assert.equal(join.TokenPos.Value, 1, 'a waiting join is entered, not executing');
    await d.complete(pi, 'CreateAccount', 'carol');
    join = (await d.activities(pi)).find((a) => a.Name === 'Join');
    assert.equal(join.Tokens, 2);
    assert.equal(await d.findTask(pi, 'Welcome', 'dave'), undefined, 'the laptop is still missing');
    await d.complete(pi, 'OrderLaptop', 'carol');
    join = (await d.activities(pi)).find((a) => a.Name === 'Join');
    assert.equal(join.Tokens, 3);
    assert.equal(join.TokenPos.Value, 2);
    await d.complete(pi, 'Welcome', 'dave');
    assert.equal((await d.instance(pi)).Status, 'Completed');
    assert.equal((await d.trail(pi)).filter((n) => n === 'Join').length, 1, 'the join ran once');
  });

  test('with no equipment asked for, the inclusive join does not wait for equipment', async () => {
    const pi = await d.start(defs.onboarding, { manager: USERS.dave[0] });
    await d.complete(pi, 'PrepareDesk', 'bob');
    await d.complete(pi, 'CreateAccount', 'carol');
    await d.complete(pi, 'Welcome', 'dave');
    const trail = await d.trail(pi);
    assert.ok(!trail.includes('OrderLaptop') && !trail.includes('OrderPhone'));
    assert.equal((await d.instance(pi)).Status, 'Completed');
  });
});

describe('ticket escalation', () => {
  test('a reminder leaves the ticket with the team; after 2 days it is escalated; a grace period closes it', async () => {
    const pi = await d.start(defs.escalation);
    const solve = await d.findTask(pi, 'Solve', 'alice');
    assert.ok(solve);
    await d.advance(4 * HOUR + 1);
    assert.deepEqual(await d.active(pi), ['Solve']);
    assert.ok((await d.trail(pi)).includes('Remind'), 'the reminder path ran');
    await d.advance(2 * DAY);
    const canceled = await s.get(`/EngineServer/Workflow/GetWorkItem/${solve.WorkItemID}`);
    assert.equal(canceled.json.GetWorkItemResult.Status, 'Canceled');
    assert.deepEqual(await d.active(pi), ['Escalate']);
    await d.complete(pi, 'Escalate', 'dave');
    assert.deepEqual(await d.active(pi), ['GracePeriod']);
    await d.advance(DAY - 1000);
    assert.deepEqual(await d.active(pi), ['GracePeriod'], 'not due yet');
    await d.advance(1000);
    assert.equal((await d.instance(pi)).Status, 'Completed');
    assert.deepEqual(await d.trail(pi), ['Opened', 'Solve', 'Reminder', 'Remind', 'Reminded', 'TooLate', 'Escalate', 'GracePeriod', 'Close', 'Closed']);
    const timers = (await s.get(`/EngineServer/Workflow/GetEventsByProcInstID/${pi}`)).json.GetEventsByProcInstIDResult.filter(
      (e: any) => e.EventName === 'FireTimer',
    );
    assert.deepEqual(timers.map((e: any) => e.Status), ['Processed', 'Processed', 'Processed'], 'each timer fired once');
  });

  test('a ticket solved in time stops its timers', async () => {
    const pi = await d.start(defs.escalation);
    await d.complete(pi, 'Solve', 'bob');
    const events = (await s.get(`/EngineServer/Workflow/GetEventsByProcInstID/${pi}`)).json.GetEventsByProcInstIDResult;
    const statuses = events.filter((e: any) => e.EventName === 'FireTimer').map((e: any) => e.Status);
    assert.deepEqual(statuses, ['Canceled', 'Canceled', 'Deferred'], 'both boundary timers stopped; the grace period waits');
    await d.advance(3 * DAY);
    assert.equal((await d.instance(pi)).Status, 'Completed');
    assert.ok(!(await d.trail(pi)).includes('Escalate'));
  });
});

describe('order with a shipping child process', () => {
  test('the parent waits for its child; the child runs an embedded sub-process; attributes come back', async () => {
    const pi = await d.start(defs.order, { customer: 'ACME' });
    await d.complete(pi, 'TakeOrder', 'alice');
    assert.deepEqual(await d.active(pi), ['Ship']);
    const pick = await d.findTask((await childOf(pi)).ProcInstID, 'Pick', 'bob');
    assert.ok(pick);
    const child = await d.instance(pick.ProcInstID);
    assert.equal(child.SuperProcInstID, pi);
    assert.equal(child.DefName, 'Shipping');
    const inherited = await s.get(`/EngineServer/Workflow/GetProcInstAttr/${child.ProcInstID}/customer`);
    assert.equal(inherited.json.GetProcInstAttrResult.Value, 'ACME', 'the child starts with the parent attributes');
    await d.complete(child.ProcInstID, 'Pick', 'bob');
    await d.complete(child.ProcInstID, 'Pack', 'bob', { trackingNumber: 'TRACK-1' });
    assert.deepEqual(await d.active(child.ProcInstID), ['HandOver']);
    await d.complete(child.ProcInstID, 'HandOver', 'bob');
    assert.equal((await d.instance(child.ProcInstID)).Status, 'Completed');
    assert.deepEqual(await d.trail(child.ProcInstID), ['ShipStart', 'Prepare', 'PrepareStart', 'Pick', 'Pack', 'PrepareEnd', 'HandOver', 'Shipped']);
    assert.deepEqual(await d.active(pi), ['Invoice']);
    const copied = await s.get(`/EngineServer/Workflow/GetProcInstAttr/${pi}/trackingNumber`);
    assert.equal(copied.json.GetProcInstAttrResult.Value, 'TRACK-1');
    await d.complete(pi, 'Invoice', 'alice');
    assert.equal((await d.instance(pi)).Status, 'Completed');
  });

  test('canceling the parent cancels the child', async () => {
    const pi = await d.start(defs.order);
    await d.complete(pi, 'TakeOrder', 'alice');
    const child = await childOf(pi);
    await d.ok(`/EngineServer/Workflow/CancelProcInst/${pi}`);
    assert.equal((await d.instance(child.ProcInstID)).Status, 'Canceled');
  });

  test('a child canceled on its own shows as an incident of the parent, which keeps waiting', async () => {
    const pi = await d.start(defs.order);
    await d.complete(pi, 'TakeOrder', 'alice');
    const child = await childOf(pi);
    await d.ok(`/EngineServer/Workflow/CancelProcInst/${child.ProcInstID}`);
    await s.settle();
    const parent = await d.instance(pi);
    assert.equal(parent.Status, 'Running');
    assert.match(parent.Incident, new RegExp(`Call activity Ship: Child process ${child.ProcInstID} .* was canceled`));
    assert.deepEqual(await d.active(pi), ['Ship']);
  });
});

describe('document review with rework', () => {
  test('the draft loops through rework until approved; each visit counts its Session', async () => {
    const pi = await d.start(defs['rework-loop'], { reviewer: USERS.bob[0] }, USERS.alice);
    await d.complete(pi, 'Review', 'bob', { approved: false });
    await d.complete(pi, 'Rework', 'alice');
    await d.complete(pi, 'Review', 'bob', { approved: false });
    await d.complete(pi, 'Rework', 'alice');
    await d.complete(pi, 'Review', 'bob', { approved: true });
    const reviews = (await d.activities(pi)).filter((a) => a.Name === 'Review');
    assert.deepEqual(reviews.map((a) => a.Session), [1, 2, 3]);
    assert.deepEqual(await d.trail(pi), [
      'Drafted', 'Review', 'Verdict', 'Rework', 'Review', 'Verdict', 'Rework', 'Review', 'Verdict', 'Publish', 'Published',
    ]);
    assert.equal((await d.instance(pi)).Status, 'Completed');
  });
});

/** The child instance a parent's call activity started: found through the warehouse's work list. */
async function childOf(parentId: string): Promise<any> {
  const r = await s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: USERS.bob[0], Status: 'New' }, { as: USERS.bob });
  for (const w of r.json) {
    const p = await d.instance(w.ProcInstID);
    if (p.SuperProcInstID === parentId) return p;
  }
  assert.fail(`no child of ${parentId} found`);
}
