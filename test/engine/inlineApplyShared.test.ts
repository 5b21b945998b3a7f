/**
 * Where nodes share the database (PostgreSQL), a group commit applies the events it admitted
 * before it commits (Dispatcher.inlineTail, BatchApplier.applyAdmitted), except high-priority ones
 * and those with an earlier event of their instance still pending: those stay Sent for the
 * dispatchers, which apply them in order. They are applied together in one savepoint first and,
 * should one fail, again with a savepoint each. Each test turns the dispatcher's own passes off
 * (runBatch), so that what is final was made so by the group commit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAssignOutcome, failAssignments } from '../helpers/failingAssign.ts';
import { DIALECT, deploy, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

const skip = DIALECT !== 'postgres' && 'only where nodes share the database (PostgreSQL)';
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const W = '/EngineServer/Workflow';

type Passes = { runBatch: () => Promise<number> };

/** Turn the dispatcher's own passes off; returns a function that turns them on again. */
function passesOff(s: TestServer): () => void {
  const dispatcher = s.waymark.engine.dispatcher as unknown as Passes;
  const runBatch = dispatcher.runBatch;
  dispatcher.runBatch = async () => 0;
  return () => {
    dispatcher.runBatch = runBatch;
  };
}

async function eventStatus(s: TestServer, eventId: string): Promise<string> {
  return (await s.get(`${W}/GetEvent/${eventId}`)).json.GetEventResult.Status;
}

test('the group commit applies the events it admitted, so a waiting call answers Processed without a dispatcher pass', { skip }, async () => {
  const s = await startServer({ users: [alice] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    passesOff(s);
    const procInstId = await startInstance(s, defId);
    const [item] = await workList(s, alice, 'New');
    assert.equal(item.ProcInstID, procInstId);
    const assigned = await s.post(`${W}/AssignWorkItem/${item.WorkItemID}`, {}, { as: alice, headers: { prefer: 'wait=5' } });
    assert.equal(assigned.json.Status, 'Processed');
    // Without waiting: the answer is the event as admitted, and it is Processed by then.
    const completed = await s.post(`${W}/CompleteWorkItem/${item.WorkItemID}`, {}, { as: alice });
    assert.equal(completed.status, 200);
    assert.equal(await eventStatus(s, completed.json.EventID), 'Processed');
    const archive = (await s.get(`${W}/GetActivityInstsByPIID/${procInstId}`)).json.GetActivityInstsByPIIDResult.find((a: any) => a.Name === 'Archive');
    // The completion moved the instance on to its service task, in the same commit.
    assert.ok(archive, 'the Archive activity was started');
    assert.equal(archive.CompletedDate, '/Date(-62135596800000+0000)/'); // not completed (the interface's empty date)
  } finally {
    await s.close();
  }
});

test('a cancel is left to the dispatchers (it reaches other instances), and with the tail turned off nothing is applied in the group commit', { skip }, async () => {
  const s = await startServer({ users: [alice] });
  const off = await startServer({ users: [alice], env: { WAYMARK_APPLY_IN_GROUP_COMMIT: 'off' } });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    const passesOn = passesOff(s);
    const canceled = await s.post(`${W}/CancelProcInst/${await startInstance(s, defId)}`, {});
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(await eventStatus(s, canceled.json.EventID), 'Sent');
    passesOn();
    await s.settle();
    assert.equal(await eventStatus(s, canceled.json.EventID), 'Processed');

    const offDef = await deploy(off, 'approval.bpmn');
    passesOff(off);
    const created = await off.post(`${W}/CreateProcInst`, { ProcessID: offDef });
    assert.equal(created.status, 200);
    assert.equal(await eventStatus(off, created.json.EventID), 'Sent');
  } finally {
    await s.close();
    await off.close();
  }
});

test('an event admitted while an earlier one of its instance is pending is not applied ahead of it', { skip }, async () => {
  const s = await startServer({ users: [alice] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    const passesOn = passesOff(s);
    const procInstId = await startInstance(s, defId);
    const [item] = await workList(s, alice, 'New');
    // High priority: left Sent by the group commit, for the dispatchers.
    const suspended = await s.post(`${W}/SuspendProcInst/${procInstId}`, {});
    assert.equal(suspended.status, 200, suspended.text);
    // The instance is still Running, so this one is admitted Sent; the suspend comes first.
    const assigned = await s.post(`${W}/AssignWorkItem/${item.WorkItemID}`, {}, { as: alice });
    assert.equal(assigned.json.Status, 'Sent');
    assert.equal(await eventStatus(s, assigned.json.EventID), 'Sent');
    passesOn();
    await s.settle();
    // Applied in order: the suspend deferred the assignment instead of following it.
    assert.equal(await eventStatus(s, suspended.json.EventID), 'Processed');
    assert.equal(await eventStatus(s, assigned.json.EventID), 'Deferred');
    const resumed = await s.post(`${W}/ResumeProcInst/${procInstId}`, {}, { headers: { prefer: 'wait=5' } });
    assert.equal(resumed.json.Status, 'Processed');
    await s.settle();
    assert.equal(await eventStatus(s, assigned.json.EventID), 'Processed');
    assert.equal((await workList(s, alice, 'Assigned')).length, 1);
  } finally {
    await s.close();
  }
});

test('an event that fails in the group commit is applied again with a savepoint of its own: it ends Failed, the others Processed, each once', { skip, timeout: 60_000 }, async (t) => {
  const s = await startServer({ users: [alice] });
  t.after(() => s.close());
  const defId = await deploy(s, 'approval.bpmn');
  for (let i = 0; i < 5; i++) await startInstance(s, defId);
  const items = (await workList(s, alice, 'New')).map((w: { WorkItemID: string }) => w.WorkItemID);
  assert.equal(items.length, 5);
  const [doomed, ...others] = items;
  const later = others.pop()!;
  passesOff(s);
  const { runs, restore } = failAssignments((id) => id === doomed || id === later);
  t.after(restore);

  // Sent at once, so that they share group commits.
  const ids = [doomed, ...others];
  const answers = await Promise.all(ids.map((id) => s.post(`${W}/AssignWorkItem/${id}`, {}, { as: alice })));
  for (const [i, id] of ids.entries()) {
    assert.equal(answers[i].status, 200, answers[i].text);
    await assertAssignOutcome(s, id, answers[i].json.EventID, alice[0], id === doomed);
  }
  // Applied together first, where it failed, then alone, where its failure was recorded.
  assert.equal(runs.get(doomed), 2);
  // The next group commit applies its events with a savepoint each from the start.
  const next = await s.post(`${W}/AssignWorkItem/${later}`, {}, { as: alice });
  assert.equal((await s.get(`${W}/GetEvent/${next.json.EventID}`)).json.GetEventResult.Status, 'Failed');
  assert.equal(runs.get(later), 1);
});
