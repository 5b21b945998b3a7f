/**
 * The rest of the task lifecycle: Removed items for the other pool members, ReassignWorkItem,
 * CancelWorkItem, CreateWorkItem, ActivateWorkItem, UpdateWorkItem, Overdue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../helpers/harness.ts';
import { bpmnProcess, DAY, FakeClock, flows, HOUR, ProcessDriver, USERS, type Credentials } from '../helpers/processDriver.ts';

let s: TestServer;
let d: ProcessDriver;
let pooled: string;

before(async () => {
  const clock = new FakeClock();
  s = await startServer({ now: clock.now });
  d = new ProcessDriver(s, clock);
  await d.setUpPeople();
  pooled = await d.deploy(
    bpmnProcess(
      'Pooled',
      `<bpmn:startEvent id="S" />
       <bpmn:userTask id="Review" waymark:expectedTime="1 DAY"><bpmn:potentialOwner><bpmn:resourceAssignmentExpression>
         <bpmn:formalExpression>user(LOCAL\\alice), group(Support), user(LOCAL\\carol)</bpmn:formalExpression>
       </bpmn:resourceAssignmentExpression></bpmn:potentialOwner></bpmn:userTask>
       <bpmn:userTask id="After" camunda:assignee="LOCAL\\dave" />
       <bpmn:endEvent id="E" />
       ${flows('S>Review', 'Review>After', 'After>E')}`,
    ),
  );
});
after(() => s.close());

async function items(who: Credentials, status: string, pi: string): Promise<any[]> {
  const r = await s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: who[0], Status: status }, { as: who });
  assert.equal(r.status, 200, r.text);
  return r.json.filter((w: any) => w.ProcInstID === pi);
}

async function item(id: string): Promise<any> {
  return (await s.get(`/EngineServer/Workflow/GetWorkItem/${id}`)).json.GetWorkItemResult;
}

describe('pools', () => {
  test('when one member takes a pooled task, the others get Removed items; releasing it takes them back', async () => {
    const pi = await d.start(pooled);
    const offered = await items(USERS.bob, 'New', pi);
    assert.equal(offered.length, 1, 'bob is in the pool through the Support group');
    const wi = offered[0].WorkItemID;
    await d.ok(`/EngineServer/Workflow/AssignWorkItem/${wi}`, {}, USERS.carol);
    for (const who of [USERS.alice, USERS.bob]) {
      const removed = await items(who, 'Removed', pi);
      assert.equal(removed.length, 1, `${who[0]} sees a Removed item`);
      assert.equal(removed[0].UserID, who[0]);
      assert.equal(removed[0].Name, 'Review');
    }
    assert.deepEqual(await items(USERS.carol, 'Removed', pi), []);
    await d.ok(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, {}, USERS.carol);
    assert.deepEqual(await items(USERS.alice, 'Removed', pi), []);
    assert.equal((await items(USERS.alice, 'New', pi)).length, 1);
  });
});

describe('work lists', () => {
  test('a work list joins own and pooled items with their instance fields, once each, by id; no status asked lists nothing', async () => {
    const pi = await d.start(pooled);
    const [offered] = await items(USERS.carol, 'New', pi);
    // The same records as GetWorkItem gives, the instance's fields included.
    assert.deepEqual(offered, await item(offered.WorkItemID));
    assert.match(offered.ProcInstName, /^Pooled-/);
    assert.equal(offered.Pending, false);
    await d.ok(`/EngineServer/Workflow/AssignWorkItem/${offered.WorkItemID}`, {}, USERS.carol);
    const both = await items(USERS.carol, 'New;Assigned', pi);
    assert.deepEqual(both.map((w) => [w.WorkItemID, w.Status]), [[offered.WorkItemID, 'Assigned']], 'listed once although carol is also in its pool');
    assert.deepEqual(both[0], await item(offered.WorkItemID));
    const all = await s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: USERS.carol[0], Status: 'New;Assigned;Removed' }, { as: USERS.carol });
    const ids = all.json.map((w: any) => w.WorkItemID);
    assert.deepEqual(ids, [...ids].sort(), 'ordered by id');
    const none = await s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: USERS.carol[0], Status: ';' }, { as: USERS.carol });
    assert.equal(none.status, 200, none.text);
    assert.deepEqual(none.json, []);
  });
});

describe('ReassignWorkItem', () => {
  test('the old item becomes Reassigned and a new one is assigned to the user; completing it moves on', async () => {
    const pi = await d.start(pooled);
    const [offered] = await items(USERS.alice, 'New', pi);
    await d.ok(`/EngineServer/Workflow/AssignWorkItem/${offered.WorkItemID}`, {}, USERS.alice);
    const denied = await s.post('/EngineServer/Workflow/ReassignWorkItem', { WorkItemID: offered.WorkItemID, UserName: USERS.bob[0] }, { as: USERS.alice });
    assert.equal(denied.status, 403);
    const event = await d.ok('/EngineServer/Workflow/ReassignWorkItem', { WorkItemID: offered.WorkItemID, UserName: 'local\\BOB', ClientData: 'over to you' });
    assert.equal(event.EventName, 'ReassignWorkItem');
    assert.equal(event.UserID, 'LOCAL\\bob');
    assert.equal((await item(offered.WorkItemID)).Status, 'Reassigned');
    const [mine] = await items(USERS.bob, 'Assigned', pi);
    assert.notEqual(mine.WorkItemID, offered.WorkItemID);
    assert.equal(mine.ClientData, 'over to you');
    assert.equal(mine.OriginalUserID, 'LOCAL\\alice');
    assert.equal((await items(USERS.alice, 'Removed', pi)).length, 1, 'alice is now removed from the pool');
    await d.complete(pi, 'Review', 'bob');
    assert.deepEqual(await d.active(pi), ['After']);
    const unknown = await s.post('/EngineServer/Workflow/ReassignWorkItem', { WorkItemID: mine.WorkItemID, UserName: 'LOCAL\\nobody' });
    assert.equal(unknown.status, 409, 'a completed item cannot be reassigned');
  });
});

describe('CancelWorkItem', () => {
  test("canceling an activity's own task cancels the activity and moves the token on", async () => {
    const pi = await d.start(pooled);
    const [offered] = await items(USERS.alice, 'New', pi);
    const denied = await s.post(`/EngineServer/Workflow/CancelWorkItem/${offered.WorkItemID}`, {}, { as: USERS.alice });
    assert.equal(denied.status, 403);
    await d.ok(`/EngineServer/Workflow/CancelWorkItem/${offered.WorkItemID}`, { clientData: 'not needed' });
    const canceled = await item(offered.WorkItemID);
    assert.equal(canceled.Status, 'Canceled');
    assert.equal(canceled.ClientData, 'not needed');
    assert.deepEqual(await d.active(pi), ['After']);
    assert.equal((await d.activities(pi)).find((a) => a.Name === 'Review').TokenPos.Value, 0);
    const again = await s.post(`/EngineServer/Workflow/CancelWorkItem/${offered.WorkItemID}`, {});
    assert.equal(again.status, 409);
  });
});

describe('CreateWorkItem, ActivateWorkItem, UpdateWorkItem', () => {
  test('an extra task in an activity is independent: completing it does not move the token', async () => {
    const pi = await d.start(pooled);
    const review = (await d.activities(pi)).find((a) => a.Name === 'Review');
    const event = await d.ok('/EngineServer/Workflow/CreateWorkItem', {
      ActivityInstanceID: review.ID, WorkToPerform: 'Second opinion', UserID: USERS.dave[0], Length: '4', Unit: 'hour',
    });
    assert.equal(event.EventName, 'CreateWorkItem');
    assert.match(event.ParamsXml, /name="SourceWorkItemID" value=""/);
    const extra = await item(event.WorkItemID);
    assert.equal(extra.Status, 'Assigned');
    assert.equal(extra.DisplayName, 'Second opinion');
    assert.equal(extra.ActivityInstID, review.ID);
    await d.ok(`/EngineServer/Workflow/CompleteWorkItem/${event.WorkItemID}`, {}, USERS.dave);
    assert.deepEqual(await d.active(pi), ['Review'], 'the review still holds the token');
    const passed = await s.post('/EngineServer/Workflow/CreateWorkItem', {
      ActivityInstanceID: (await d.activities(pi)).find((a) => a.Name === 'S').ID, WorkToPerform: 'x', UserID: USERS.dave[0], Length: '1', Unit: 'DAY',
    });
    assert.equal(passed.status, 409);
    assert.equal(passed.json.code, 'ActivityNotActive');
  });

  test('the assignee activates and deactivates a task', async () => {
    const pi = await d.start(pooled);
    const [offered] = await items(USERS.alice, 'New', pi);
    await d.ok(`/EngineServer/Workflow/AssignWorkItem/${offered.WorkItemID}`, {}, USERS.alice);
    const notMine = await s.post(`/EngineServer/Workflow/ActivateWorkItem/${offered.WorkItemID}/true`, {}, { as: USERS.bob });
    assert.equal(notMine.status, 403);
    await d.ok(`/EngineServer/Workflow/ActivateWorkItem/${offered.WorkItemID}/True`, {}, USERS.alice);
    assert.doesNotMatch((await item(offered.WorkItemID)).ActivatedDate, /-62135596800000/);
    await d.ok(`/EngineServer/Workflow/ActivateWorkItem/${offered.WorkItemID}/false`, {}, USERS.alice);
    assert.match((await item(offered.WorkItemID)).ActivatedDate, /-62135596800000/);
    const bad = await s.post(`/EngineServer/Workflow/ActivateWorkItem/${offered.WorkItemID}/maybe`, {}, { as: USERS.alice });
    assert.equal(bad.status, 400);
  });

  test('UpdateWorkItem changes the listed columns and refuses others', async () => {
    const pi = await d.start(pooled);
    const [offered] = await items(USERS.alice, 'New', pi);
    const id = offered.WorkItemID;
    const r = await s.post(`/EngineServer/Workflow/UpdateWorkItem/${id}`, {
      attributes: [{ Name: 'USER_ID', Value: 'LOCAL\\carol' }, { Name: 'PRIORITY', Value: 'High' }, { Name: 'client_data', Value: 'x' }],
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, '');
    let now = await item(id);
    assert.deepEqual([now.Status, now.UserID, now.Priority, now.ClientData], ['Assigned', 'LOCAL\\carol', 'High', 'x']);
    const due = new Date(d.clock!.ms + 3 * DAY).toISOString();
    assert.equal((await s.post(`/EngineServer/Workflow/UpdateWorkItem/${id}`, { attributes: [{ Name: 'DUE_DATE', Value: due }] })).status, 200);
    now = await item(id);
    assert.equal(now.DueDate, `/Date(${Date.parse(due)}+0000)/`);
    await d.advance(DAY + HOUR);
    assert.equal((await item(id)).Status, 'Assigned', 'the old due date no longer counts');
    await d.advance(2 * DAY);
    assert.equal((await item(id)).Status, 'Overdue', 'the new one does');
    for (const [attribute, code] of [
      [{ Name: 'STATUS', Value: 'Completed' }, 'InvalidRequest'],
      [{ Name: 'DISPLAY_NAME', Value: 'x' }, 'InvalidRequest'],
      [{ Name: 'USER_ID', Value: 'LOCAL\\nobody' }, 'UserNotFound'],
      [{ Name: 'DUE_DATE', Value: 'tomorrow' }, 'InvalidDate'],
    ] as const) {
      const refused = await s.post(`/EngineServer/Workflow/UpdateWorkItem/${id}`, { attributes: [attribute] });
      assert.equal(refused.json.code, code, JSON.stringify(attribute));
    }
    assert.equal((await s.post(`/EngineServer/Workflow/UpdateWorkItem/${id}`, { attributes: [{ Name: 'PRIORITY', Value: 'Low' }] }, { as: USERS.carol })).status, 403);
  });
});
