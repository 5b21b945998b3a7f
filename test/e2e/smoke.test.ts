import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addUser, deploy, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];

before(async () => {
  s = await startServer();
  await addUser(s, alice[0], alice[1]);
  await addUser(s, bob[0], bob[1]);
});
after(() => s.close());

test('a pooled task is taken, released, linked, completed and the instance moves on', async () => {
  const defId = await deploy(s, 'approval.bpmn');
  const pi = await startInstance(s, defId);
  const items = await workList(s, alice, 'New');
  assert.equal(items.length, 1);
  const wi = items[0].WorkItemID;
  const take = await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, { clientData: 'x' }, { as: alice, headers: { prefer: 'wait=5' } });
  assert.equal(take.status, 200, take.text);
  assert.equal(take.json.Status, 'Processed');
  const release = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: alice, headers: { prefer: 'wait=5' } });
  assert.equal(release.json.Status, 'Processed', release.text);
  assert.equal(release.json.EventName, 'UndoAssignWorkItem');
  const item = await s.get(`/EngineServer/Workflow/GetWorkItem/${wi}`);
  assert.equal(item.json.GetWorkItemResult.Status, 'New');
  assert.equal(item.json.GetWorkItemResult.ClientData, 'x');
  await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, {}, { as: bob, headers: { prefer: 'wait=5' } });
  const link = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', {
    SourceWorkItemID: wi, WorkToPerform: 'Check budget', UserID: 'LOCAL\\alice', Length: '2', Unit: 'DAY', BusinessTime: true, bDependent: true,
  }, { headers: { prefer: 'wait=5' } });
  assert.equal(link.status, 200, link.text);
  assert.equal(link.json.EventName, 'CreateWorkItem');
  assert.match(link.json.ParamsXml, /name="ExpectedTime" value="2 DAY;BusinessTime=True"/);
  const blocked = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: bob });
  assert.equal(blocked.status, 409, blocked.text);
  assert.equal(blocked.json.code, 'WorkItemBlocked');
  const done = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${link.json.WorkItemID}`, {}, { as: alice, headers: { prefer: 'wait=5' } });
  assert.equal(done.json.Status, 'Processed', done.text);
  const ok = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: bob, headers: { prefer: 'wait=5' } });
  assert.equal(ok.json.Status, 'Processed', ok.text);
  const acts = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`);
  assert.deepEqual(acts.json.GetActivityInstsByPIIDResult.map((a: any) => a.Name), ['Start', 'Review', 'Archive']);
  const cancel = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: { prefer: 'wait=5' } });
  assert.equal(cancel.json.Status, 'Processed', cancel.text);
  const inst = await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`);
  assert.equal(inst.json.GetProcInstResult.Status, 'Canceled');
});
