/**
 * Suspend and resume (events wait Deferred), incidents and how to clear them (UpdateProcInst,
 * RollbackProcInst), CancelActivityInst, and the process-attribute operations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addUser, startServer, type TestServer } from '../helpers/harness.ts';
import { bpmnProcess, FakeClock, flows, HOUR, ProcessDriver, USERS } from '../helpers/processDriver.ts';

let s: TestServer;
let d: ProcessDriver;
let twoSteps: string;
let decide: string;

before(async () => {
  const clock = new FakeClock();
  s = await startServer({ now: clock.now });
  d = new ProcessDriver(s, clock);
  await d.setUpPeople();
  twoSteps = await d.deploy(
    bpmnProcess(
      'TwoSteps',
      `<bpmn:startEvent id="S" />
       <bpmn:userTask id="First" camunda:assignee="LOCAL\\alice" />
       <bpmn:intermediateCatchEvent id="Wait"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
       <bpmn:userTask id="Second" camunda:assignee="LOCAL\\bob" />
       <bpmn:endEvent id="E" />
       ${flows('S>First', 'First>Wait', 'Wait>Second', 'Second>E')}`,
    ),
  );
  decide = await d.deploy(
    bpmnProcess(
      'Decide',
      `<bpmn:startEvent id="S" />
       <bpmn:exclusiveGateway id="Route" />
       <bpmn:userTask id="Big" camunda:assignee="=approver" />
       <bpmn:userTask id="Small" camunda:assignee="LOCAL\\bob" />
       <bpmn:endEvent id="E" />
       ${flows('S>Route', 'Route>Big:amount > 1000', 'Route>Small:amount <= 1000', 'Big>E', 'Small>E')}`,
    ),
  );
});
after(() => s.close());

describe('suspend and resume', () => {
  test('events sent to a suspended instance wait Deferred, timers too, and run on resume', async () => {
    const pi = await d.start(twoSteps);
    const first = await d.findTask(pi, 'First', 'alice');
    await d.ok(`/EngineServer/Workflow/SuspendProcInst/${pi}`);
    assert.equal((await d.instance(pi)).Status, 'Suspended');
    assert.equal((await s.get(`/EngineServer/Workflow/GetWorkItem/${first.WorkItemID}`)).json.GetWorkItemResult.Pending, true);
    const complete = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${first.WorkItemID}`, {}, { as: USERS.alice });
    assert.equal(complete.status, 200, complete.text);
    assert.equal(complete.json.Status, 'Deferred');
    await s.settle();
    assert.deepEqual(await d.active(pi), ['First'], 'nothing moved while suspended');
    const again = await s.post(`/EngineServer/Workflow/SuspendProcInst/${pi}`);
    assert.equal(again.status, 409);
    await d.ok(`/EngineServer/Workflow/ResumeProcInst/${pi}`);
    await s.settle();
    assert.equal((await s.get(`/EngineServer/Workflow/GetEvent/${complete.json.EventID}`)).json.GetEventResult.Status, 'Processed');
    assert.deepEqual(await d.active(pi), ['Wait']);
    await d.ok(`/EngineServer/Workflow/SuspendProcInst/${pi}`);
    await d.advance(2 * HOUR);
    assert.deepEqual(await d.active(pi), ['Wait'], 'a timer due while suspended waits');
    await d.ok(`/EngineServer/Workflow/ResumeProcInst/${pi}`);
    await s.settle();
    assert.deepEqual(await d.active(pi), ['Second'], 'and fires on resume');
    const resumeRunning = await s.post(`/EngineServer/Workflow/ResumeProcInst/${pi}`);
    assert.equal(resumeRunning.status, 409);
    assert.equal(resumeRunning.json.code, 'ProcessInstanceNotSuspended');
  });

  test('suspending a parent suspends its child; resuming the parent resumes it', async () => {
    await d.deploy(bpmnProcess('Child', `<bpmn:startEvent id="S" /><bpmn:userTask id="T" camunda:assignee="LOCAL\\bob" /><bpmn:endEvent id="E" />${flows('S>T', 'T>E')}`));
    const parentDef = await d.deploy(bpmnProcess('Parent', `<bpmn:startEvent id="S" /><bpmn:callActivity id="Call" calledElement="Child" /><bpmn:endEvent id="E" />${flows('S>Call', 'Call>E')}`));
    const pi = await d.start(parentDef);
    const task = (await s.post('/EngineServer/Workflow/GetWorkListByUserID', { Status: 'Assigned' }, { as: USERS.bob })).json.find((w: any) => w.Name === 'T');
    const child = task.ProcInstID;
    await d.ok(`/EngineServer/Workflow/SuspendProcInst/${pi}`);
    assert.equal((await d.instance(child)).Status, 'Suspended');
    await d.ok(`/EngineServer/Workflow/ResumeProcInst/${pi}`);
    assert.equal((await d.instance(child)).Status, 'Running');
    await d.complete(child, 'T', 'bob');
    assert.equal((await d.instance(pi)).Status, 'Completed');
  });

  test('only holders of Suspend and Resume a Process may suspend', async () => {
    const pi = await d.start(twoSteps);
    const r = await s.post(`/EngineServer/Workflow/SuspendProcInst/${pi}`, undefined, { as: USERS.alice });
    assert.equal(r.status, 403);
    assert.match(r.json.detail, /12 SuspendResumeProcessInstance/);
  });
});

describe('incidents', () => {
  test('a gateway with no flow to take stops the instance with an incident; fixing the data and rolling back moves on', async () => {
    const pi = await d.start(decide, {});
    const inst = await d.instance(pi);
    assert.equal(inst.Status, 'Running');
    assert.match(inst.Incident, /Gateway Route has no outgoing flow to take/);
    const route = (await d.activities(pi)).find((a) => a.Name === 'Route');
    assert.equal(route.Pending, true);
    assert.equal(route.InStack, true);
    const audit = await s.post('/EngineServer/Workflow/QueryAuditTrail', { where: `OBJECT_ID = '${pi}' AND PURPOSE = 'Incident'` });
    assert.equal(audit.status, 200, audit.text);
    assert.equal(audit.json.length, 1, 'the audit trail shows the incident');
    assert.match(audit.json[0].Description, /Gateway Route has no outgoing flow to take/);
    assert.equal(audit.json[0].Status, 1);
    const update = await s.post(`/EngineServer/Workflow/UpdateProcInst/${pi}`, { attributes: [{ Name: 'amount', Value: '5000' }, { Name: 'approver', Value: 'LOCAL\\carol' }] });
    assert.equal(update.status, 200, update.text);
    await d.ok(`/EngineServer/Workflow/RollbackProcInst/${route.ID}`);
    assert.equal((await d.instance(pi)).Incident, null);
    assert.deepEqual(await d.active(pi), ['Big']);
    const routes = (await d.activities(pi)).filter((a) => a.Name === 'Route');
    assert.deepEqual(routes.map((a) => [a.TokenPos.Value, a.Session]), [[0, 1], [2, 2]]);
    await d.complete(pi, 'Big', 'carol');
    assert.equal((await d.instance(pi)).Status, 'Completed');
  });

  test('a task nobody can be given stops at the task; CancelActivityInst moves the token on', async () => {
    const pi = await d.start(decide, { amount: 2000 });
    assert.match((await d.instance(pi)).Incident, /Task Big cannot be given to anyone/);
    const big = (await d.activities(pi)).find((a) => a.Name === 'Big');
    await d.ok(`/EngineServer/Workflow/CancelActivityInst/${big.ID}`);
    const after = await d.instance(pi);
    assert.equal(after.Incident, null);
    assert.equal(after.Status, 'Completed');
    const canceled = (await d.activities(pi)).find((a) => a.Name === 'Big');
    assert.equal(canceled.TokenPos.Value, 0);
  });

  test('CancelActivityInst cancels the tasks of the activity and refuses gateways and finished activities', async () => {
    const pi = await d.start(decide, { amount: 10 });
    const small = await d.findTask(pi, 'Small', 'bob');
    const activity = (await d.activities(pi)).find((a) => a.Name === 'Small');
    await d.ok(`/EngineServer/Workflow/CancelActivityInst/${activity.ID}`);
    assert.equal((await s.get(`/EngineServer/Workflow/GetWorkItem/${small.WorkItemID}`)).json.GetWorkItemResult.Status, 'Canceled');
    assert.equal((await d.instance(pi)).Status, 'Completed');
    const done = await s.post(`/EngineServer/Workflow/CancelActivityInst/${activity.ID}`);
    assert.equal(done.status, 409);
    const stuck = await d.start(decide, {});
    const route = (await d.activities(stuck)).find((a) => a.Name === 'Route');
    const gateway = await s.post(`/EngineServer/Workflow/CancelActivityInst/${route.ID}`);
    assert.equal(gateway.status, 409);
    assert.equal(gateway.json.code, 'ActivityNotCancelable');
  });

  test('rollback re-enters an earlier task: the current one is canceled and the earlier one runs a new session', async () => {
    const pi = await d.start(twoSteps);
    await d.complete(pi, 'First', 'alice');
    await d.advance(HOUR);
    const first = (await d.activities(pi)).find((a) => a.Name === 'First');
    const second = await d.findTask(pi, 'Second', 'bob');
    await d.ok(`/EngineServer/Workflow/RollbackProcInst/${first.ID}`);
    assert.equal((await s.get(`/EngineServer/Workflow/GetWorkItem/${second.WorkItemID}`)).json.GetWorkItemResult.Status, 'Canceled');
    const redo = await d.findTask(pi, 'First', 'alice');
    assert.equal(redo.Session, 2);
    assert.deepEqual(await d.active(pi), ['First']);
  });
});

describe('process attributes', () => {
  test('GetProcInstAttrs lists the instance facts and its attributes; GetProcInstAttr reads one', async () => {
    const pi = await d.start(decide, { amount: 10, note: 'a & b' });
    const all = (await s.get(`/EngineServer/Workflow/GetProcInstAttrs/${pi}`)).json.GetProcInstAttrsResult;
    const byName = Object.fromEntries(all.map((a: any) => [a.Name, a.Value]));
    assert.equal(byName.DefName, 'Decide');
    assert.equal(byName.Status, 'Running');
    assert.equal(byName.amount, '10');
    assert.match(byName.StartDate, /^\d{4}-\d\d-\d\dT/);
    const one = await s.get(`/EngineServer/Workflow/GetProcInstAttr/${pi}/note`);
    assert.deepEqual(one.json, { GetProcInstAttrResult: { Name: 'note', Value: 'a & b' } });
    const status = await s.get(`/EngineServer/Workflow/GetProcInstAttr/${pi}/status`);
    assert.equal(status.json.GetProcInstAttrResult.Value, 'Running');
    assert.equal((await s.get(`/EngineServer/Workflow/GetProcInstAttr/${pi}/missing`)).status, 404);
    const builtIn = await s.post(`/EngineServer/Workflow/UpdateProcInst/${pi}`, { attributes: [{ Name: 'Status', Value: 'Completed' }] });
    assert.equal(builtIn.status, 400);
    const reader = await s.get(`/EngineServer/Workflow/GetProcInstAttrs/${pi}`, { as: USERS.carol });
    assert.equal(reader.status, 403, 'carol takes no part in it');
  });

  test('custom attributes by CustomID: set, read as XML, remove', async () => {
    const id = 'FORM-77';
    const set = await s.post(`/EngineServer/Workflow/SetCustomAttrs/${id}`, { attributes: [{ Name: '/pd:AP/pd:total', Value: '<12>' }, { Name: 'state', Value: 'new' }] });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.text, '');
    const xml = (await s.get(`/EngineServer/Workflow/GetCustomAttrsByID/${id}`)).json.GetCustomAttrsByIDResult;
    assert.equal(
      xml,
      '<?xml version="1.0" encoding="utf-8"?><ArrayOfNameValue xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
        '<NameValue><Name>/pd:AP/pd:total</Name><Value xsi:type="xsd:string">&lt;12&gt;</Value></NameValue>' +
        '<NameValue><Name>state</Name><Value xsi:type="xsd:string">new</Value></NameValue></ArrayOfNameValue>',
    );
    const removed = await s.post(`/EngineServer/Workflow/RemoveCustomAttrs/${id}`, { namesArray: 'state;unknown' });
    assert.equal(removed.status, 200, removed.text);
    const after = (await s.get(`/EngineServer/Workflow/GetCustomAttrsbyID/${id}`)).json.GetCustomAttrsByIDResult;
    assert.ok(!after.includes('state'));
    await addUser(s, 'LOCAL\\erin', 'erin-password-1');
    const denied = await s.post(`/EngineServer/Workflow/SetCustomAttrs/${id}`, { attributes: [] }, { as: ['LOCAL\\erin', 'erin-password-1'] });
    assert.equal(denied.status, 403);
  });

  test('a participant may update the attributes of its instance, which conditions then read', async () => {
    const pi = await d.start(decide, { amount: 10 });
    const r = await s.post(`/EngineServer/Workflow/UpdateProcInst/${pi}`, { attributes: [{ Name: 'comment', Value: 'ok' }] }, { as: USERS.bob });
    assert.equal(r.status, 200, r.text);
    assert.equal((await s.get(`/EngineServer/Workflow/GetProcInstAttr/${pi}/comment`)).json.GetProcInstAttrResult.Value, 'ok');
  });
});
