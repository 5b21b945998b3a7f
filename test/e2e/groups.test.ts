/** Groups: the Admin operations, and groups in pools and in role membership. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addUser, startServer, type TestServer } from '../helpers/harness.ts';
import { bpmnProcess, flows, ProcessDriver } from '../helpers/processDriver.ts';

let s: TestServer;
let d: ProcessDriver;
const ann: [string, string] = ['LOCAL\\ann', 'ann-password-1'];
const ben: [string, string] = ['LOCAL\\ben', 'ben-password-1'];

before(async () => {
  s = await startServer();
  d = new ProcessDriver(s);
  await addUser(s, ann[0], ann[1]);
  await addUser(s, ben[0], ben[1]);
});
after(() => s.close());

test('groups are added, read, updated and removed with their members', async () => {
  const added = await s.post('/EngineServer/Admin/AddGroup', { GroupName: 'Buyers', Description: 'Purchasing', ResponsibleUser: ann[0] });
  assert.equal(added.status, 200, added.text);
  assert.deepEqual(Object.keys(added.json), ['CreatedBy', 'CreatedDate', 'Description', 'Enabled', 'LastModifiedBy', 'LastModifiedDate', 'Name', 'ResponsibleUser', 'Source']);
  assert.equal(added.json.Enabled, true);
  assert.equal((await s.post('/EngineServer/Admin/AddGroup', { GroupName: 'buyers' })).json.code, 'DuplicateGroup');
  assert.equal((await s.post('/EngineServer/Admin/AddGroup', { GroupName: 'X', ResponsibleUser: 'LOCAL\\ghost' })).json.code, 'UserNotFound');
  const member = await s.post('/EngineServer/Admin/AddGroupMember', { GroupName: 'BUYERS', UserName: 'local\\ANN', Description: 'lead' });
  assert.deepEqual(member.json, {
    ClientData: null, CreatedBy: 'LOCAL\\admin', CreatedDate: member.json.CreatedDate, Description: 'lead', Enabled: true, Member: 'LOCAL\\ann', Name: 'Buyers',
  });
  assert.equal((await s.post('/EngineServer/Admin/AddGroupMember', { GroupName: 'Buyers', UserName: ann[0] })).json.code, 'DuplicateGroupMember');
  const members = (await s.get('/EngineServer/Admin/GetGroupMembers/Buyers')).json.GetGroupMembersResult;
  assert.deepEqual(members.map((m: any) => m.Member), ['LOCAL\\ann']);
  const updated = await s.post('/EngineServer/Admin/UpdateGroup', { GroupName: 'Buyers', Description: 'Procurement' });
  assert.equal(updated.json.Description, 'Procurement');
  assert.equal(updated.json.ResponsibleUser, 'LOCAL\\ann', 'left out, kept');
  assert.equal((await s.get('/EngineServer/Admin/GetGroup/buyers')).json.GetGroupResult.Description, 'Procurement');
  assert.deepEqual((await s.get('/EngineServer/Admin/GetGroups')).json.GetGroupsResult.map((g: any) => g.Name), ['Buyers']);
  assert.equal((await s.get('/EngineServer/Admin/GetGroup/Nobody')).status, 404);
  assert.equal((await s.post('/EngineServer/Admin/AddGroup', { GroupName: 'Y' }, { as: ann })).status, 403);
  assert.equal((await s.post('/EngineServer/Admin/RemoveGroupMember', { GroupName: 'Buyers', UserName: ben[0] })).json.code, 'GroupMemberNotFound');
  const removed = await s.post('/EngineServer/Admin/RemoveGroup/Buyers');
  assert.equal(removed.status, 200);
  assert.equal(removed.text, '');
  assert.equal((await s.get('/EngineServer/Admin/GetGroup/Buyers')).status, 404);
});

test('a group in a pool offers the task to its enabled members, resolved when the task is reached', async () => {
  await s.post('/EngineServer/Admin/AddGroup', { GroupName: 'Clerks' });
  await s.post('/EngineServer/Admin/AddGroupMember', { GroupName: 'Clerks', UserName: ann[0] });
  await s.post('/EngineServer/Admin/AddGroupMember', { GroupName: 'Clerks', UserName: ben[0], Enabled: false });
  const def = await d.deploy(bpmnProcess('Filing', `<bpmn:startEvent id="S" /><bpmn:userTask id="File" camunda:candidateGroups="Clerks" /><bpmn:endEvent id="E" />${flows('S>File', 'File>E')}`));
  const pi = await d.start(def);
  const annList = (await s.post('/EngineServer/Workflow/GetWorkListByUserID', { Status: 'New' }, { as: ann })).json;
  const benList = (await s.post('/EngineServer/Workflow/GetWorkListByUserID', { Status: 'New' }, { as: ben })).json;
  assert.equal(annList.filter((w: any) => w.ProcInstID === pi).length, 1);
  assert.equal(benList.filter((w: any) => w.ProcInstID === pi).length, 0, 'a disabled member is not in the pool');
  await s.post('/EngineServer/Admin/UpdateGroup', { GroupName: 'Clerks', Enabled: false });
  const none = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: def }, { headers: { prefer: 'wait=5' } });
  await s.settle();
  assert.match((await d.instance(none.json.ProcInstID)).Incident, /Task File cannot be given to anyone: its pool is empty/);
});

test('a role given to a group grants its rights to the members; removing the membership takes them away', async () => {
  await s.post('/EngineServer/Admin/AddGroup', { GroupName: 'Starters' });
  await s.post('/EngineServer/Admin/AddGroupMember', { GroupName: 'Starters', UserName: ben[0] });
  await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Initiators', Rights: ['InitiateProcessInstance'] });
  const member = await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Initiators', Assignee: 'starters', AssigneeType: 'Group' });
  assert.equal(member.status, 200, member.text);
  assert.equal(member.json.AssigneeType, 'Group');
  assert.equal(member.json.Assignee, 'Starters');
  assert.deepEqual((await s.post('/EngineServer/Admin/GetAccessRights', { userName: ben[0] }, { as: ben })).json, [11]);
  assert.equal((await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Initiators', Assignee: 'Ghosts', AssigneeType: 'Group' })).json.code, 'GroupNotFound');
  await s.post('/EngineServer/Admin/RemoveGroupMember', { GroupName: 'Starters', UserName: ben[0] });
  assert.deepEqual((await s.post('/EngineServer/Admin/GetAccessRights', { userName: ben[0] }, { as: ben })).json, []);
});
