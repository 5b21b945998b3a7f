/**
 * How to call each operation of the server so that an allowed caller succeeds: one function per
 * operation that makes a fresh target (a new instance, a task bob took, a new role, ...) and
 * returns the request. "Participant" targets are always ones bob (who holds no right) takes part in.
 * Used by the authorization matrix and the audit-trail tests.
 */
import assert from 'node:assert/strict';
import { fixture, type Reply, type TestServer } from './harness.ts';

export interface Req {
  method?: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export const BOB: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
export const ALICE = 'LOCAL\\alice';
export const WAIT = { prefer: 'wait=10' };

let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Date.now().toString(36)}`;

/** The server must have alice and bob (no rights) and the approval process released as `defId`. */
export function operationFixtures(s: TestServer, defId: string): Record<string, () => Promise<Req>> {
  
  async function ok(r: Reply, what: string): Promise<Reply> {
    assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${r.text}`);
    return r;
  }

  async function newInstance(extra: Record<string, unknown> = {}): Promise<string> {
    const r = await ok(await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ...extra }, { headers: WAIT }), 'CreateProcInst');
    assert.equal(r.json.Status, 'Processed', r.text);
    return r.json.ProcInstID;
  }

  /** The New pooled Review task of a new instance (pool: alice and bob). */
  async function newItem(): Promise<{ pi: string; wi: string }> {
    const pi = await newInstance();
    const r = await ok(await s.post('/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: `PROC_INST_ID = '${pi}' AND STATUS = 'New'` }), 'query');
    assert.equal(r.json.length, 1, r.text);
    return { pi, wi: r.json[0].WorkItemID };
  }

  /** A Review task bob took. */
  async function bobsItem(): Promise<{ pi: string; wi: string; eventId: string }> {
    const { pi, wi } = await newItem();
    const r = await ok(await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, {}, { as: BOB, headers: WAIT }), 'AssignWorkItem');
    assert.equal(r.json.Status, 'Processed', r.text);
    return { pi, wi, eventId: r.json.EventID };
  }

  async function activeActivity(pi: string, name = 'Review'): Promise<string> {
    const r = await ok(await s.post('/EngineServer/Workflow/QueryActivityInsts', { ColumnName: 'PROC_INST_ID', Operator: 'EQ', WhereClause: pi }), 'activities');
    const a = r.json.find((x: { Name: string; InStack: boolean }) => x.Name === name);
    assert.ok(a, `${name} in ${r.text}`);
    return a.ID;
  }

  /** An instance whose Review bob completed: its Archive service task waits for CompleteProcedure. */
  async function waitingProcedure(): Promise<{ pi: string; id: string; reviewActivity: string }> {
    const { pi, wi } = await bobsItem();
    const reviewActivity = await activeActivity(pi);
    const done = await ok(await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: BOB, headers: WAIT }), 'CompleteWorkItem');
    assert.equal(done.json.Status, 'Processed', done.text);
    const r = await ok(await s.post('/EngineServer/Workflow/QueryProcedureList', { ColumnName: 'PROC_INST_ID', Operator: 'EQ', WhereClause: pi }), 'procedures');
    return { pi, id: r.json[0].WorkItemID, reviewActivity };
  }

  async function newRole(members: string[] = []): Promise<string> {
    const name = unique('role');
    await ok(await s.post('/EngineServer/Admin/AddRole', { RoleName: name, Rights: [], Enabled: true }), 'AddRole');
    for (const m of members) await ok(await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: name, Assignee: m, AssigneeType: 'User' }), 'AddRoleMember');
    return name;
  }

  async function newGroup(members: string[] = []): Promise<string> {
    const name = unique('group');
    await ok(await s.post('/EngineServer/Admin/AddGroup', { GroupName: name, Enabled: true }), 'AddGroup');
    for (const m of members) await ok(await s.post('/EngineServer/Admin/AddGroupMember', { GroupName: name, UserName: m }), 'AddGroupMember');
    return name;
  }

  async function newUser(): Promise<string> {
    const name = `LOCAL\\${unique('user')}`;
    await ok(await s.post('/EngineServer/Admin/RegisterUser', { UserName: name }), 'RegisterUser');
    return name;
  }

  /** The approval process under another name: deploying and releasing it leaves Approval released. */
  const otherProcess = () => fixture('approval.bpmn').replace('name="Approval"', 'name="Matrix"');

  const W = (op: string) => `/EngineServer/Workflow/${op}`;
  const A = (op: string) => `/EngineServer/Admin/${op}`;

  /**
   * How to call each operation so that an allowed caller succeeds. Targets are made fresh for
   * each call; "participant" targets are always ones bob (who holds no right) takes part in.
   */
  const fixtures: Record<string, () => Promise<Req>> = {
    // Definitions and lookups
    CreateProcDef: async () => ({ path: W('CreateProcDef'), body: { Xml: otherProcess() } }),
    ReleaseProcDef: async () => {
      const r = await ok(await s.post(W('CreateProcDef'), { Xml: otherProcess() }), 'CreateProcDef');
      return { path: W(`ReleaseProcDef/${r.json.DefID}`) };
    },
    GetProcDefs: async () => ({ method: 'GET', path: W('GetProcDefs') }),
    GetReleasedPID: async () => ({ method: 'GET', path: W('GetReleasedPID/Approval') }),
    GetReleasedProcDefs: async () => ({ method: 'GET', path: W('GetReleasedProcDefs') }),
    GetUUID: async () => ({ method: 'GET', path: W('GetUUID') }),
    // Process instances
    CreateProcInst: async () => ({ path: W('CreateProcInst'), body: { ProcessID: defId } }),
    CancelProcInst: async () => ({ path: W(`CancelProcInst/${(await newItem()).pi}`) }),
    SuspendProcInst: async () => ({ path: W(`SuspendProcInst/${(await newItem()).pi}`) }),
    ResumeProcInst: async () => {
      const { pi } = await newItem();
      const r = await ok(await s.post(W(`SuspendProcInst/${pi}`), {}, { headers: WAIT }), 'SuspendProcInst');
      assert.equal(r.json.Status, 'Processed', r.text);
      return { path: W(`ResumeProcInst/${pi}`) };
    },
    GetProcInst: async () => ({ method: 'GET', path: W(`GetProcInst/${(await newItem()).pi}`) }),
    GetActivityInstsByPIID: async () => ({ method: 'GET', path: W(`GetActivityInstsByPIID/${(await newItem()).pi}`) }),
    GetActivityInst: async () => ({ method: 'GET', path: W(`GetActivityInst/${await activeActivity((await newItem()).pi)}`) }),
    CancelActivityInst: async () => ({ path: W(`CancelActivityInst/${await activeActivity((await newItem()).pi)}`) }),
    RollbackProcInst: async () => ({ path: W(`RollbackProcInst/${(await waitingProcedure()).reviewActivity}`) }),
    GetEventsByProcInstID: async () => ({ method: 'GET', path: W(`GetEventsByProcInstID/${(await newItem()).pi}`) }),
    GetEvent: async () => ({ method: 'GET', path: W(`GetEvent/${(await bobsItem()).eventId}`) }),
    GetProcInstAttrs: async () => ({ method: 'GET', path: W(`GetProcInstAttrs/${(await newItem()).pi}`) }),
    GetProcInstAttr: async () => {
      const pi = await newInstance({ Attributes: [{ Name: 'amount', Value: '5' }] });
      await ok(await s.post(W(`AssignWorkItem/${(await s.post(W('QueryWorkListUsingSQL'), { sqlWhereClause: `PROC_INST_ID = '${pi}'` })).json[0].WorkItemID}`), {}, { as: BOB, headers: WAIT }), 'assign');
      return { method: 'GET', path: W(`GetProcInstAttr/${pi}/amount`) };
    },
    UpdateProcInst: async () => ({ path: W(`UpdateProcInst/${(await newItem()).pi}`), body: { attributes: [{ Name: 'amount', Value: '7' }] } }),
    SetCustomAttrs: async () => ({ path: W(`SetCustomAttrs/${(await newItem()).pi}`), body: { attributes: [{ Name: 'note', Value: 'x' }] } }),
    GetCustomAttrsbyID: async () => ({ method: 'GET', path: W(`GetCustomAttrsbyID/${(await newItem()).pi}`) }),
    RemoveCustomAttrs: async () => {
      const { pi } = await newItem();
      await ok(await s.post(W(`SetCustomAttrs/${pi}`), { attributes: [{ Name: 'note', Value: 'x' }] }), 'SetCustomAttrs');
      return { path: W(`RemoveCustomAttrs/${pi}`), body: { namesArray: 'note' } };
    },
    // Tasks
    GetWorkItem: async () => ({ method: 'GET', path: W(`GetWorkItem/${(await newItem()).wi}`) }),
    GetWorkListByUserID: async () => ({ path: W('GetWorkListByUserID'), body: { UserName: BOB[0] } }),
    AssignWorkItem: async () => ({ path: W(`AssignWorkItem/${(await newItem()).wi}`), body: {} }),
    UndoAssignWorkItem: async () => ({ path: W(`UndoAssignWorkItem/${(await bobsItem()).wi}`), body: {} }),
    CompleteWorkItem: async () => ({ path: W(`CompleteWorkItem/${(await bobsItem()).wi}`), body: {} }),
    ActivateWorkItem: async () => ({ path: W(`ActivateWorkItem/${(await bobsItem()).wi}/true`), body: {} }),
    ReassignWorkItem: async () => ({ path: W('ReassignWorkItem'), body: { WorkItemID: (await bobsItem()).wi, UserName: ALICE } }),
    CancelWorkItem: async () => ({ path: W(`CancelWorkItem/${(await bobsItem()).wi}`), body: {} }),
    UpdateWorkItem: async () => ({ path: W(`UpdateWorkItem/${(await bobsItem()).wi}`), body: { attributes: [{ Name: 'PRIORITY', Value: 'High' }] } }),
    CreateWorkItem: async () => ({
      path: W('CreateWorkItem'),
      body: { ActivityInstanceID: await activeActivity((await newItem()).pi), WorkToPerform: 'extra', UserID: ALICE, Length: '1', Unit: 'DAY' },
    }),
    CreateLinkedWorkItem: async () => ({
      path: W('CreateLinkedWorkItem'),
      body: { SourceWorkItemID: (await bobsItem()).wi, WorkToPerform: 'linked', UserID: ALICE, Length: '1', Unit: 'DAY' },
    }),
    // Automatic work items
    QueryProcedureList: async () => ({ path: W('QueryProcedureList'), body: { ColumnName: 'STATUS', Operator: 'EQ', WhereClause: 'Waiting' } }),
    GetProcedure: async () => ({ method: 'GET', path: W(`GetProcedure/${(await waitingProcedure()).id}`) }),
    CompleteProcedure: async () => ({ path: W(`CompleteProcedure/${(await waitingProcedure()).id}`) }),
    // Queries
    QueryWorkList: async () => ({ path: W('QueryWorkList'), body: { ColumnName: 'STATUS', Operator: 'EQ', WhereClause: 'New' } }),
    QueryWorkListUsingSQL: async () => ({ path: W('QueryWorkListUsingSQL'), body: { sqlWhereClause: "STATUS = 'New'" } }),
    QueryProcInsts: async () => ({ path: W('QueryProcInsts'), body: { ColumnName: 'STATUS', Operator: 'EQ', WhereClause: 'Running' } }),
    QueryProcInstsUsingSQL: async () => ({ path: W('QueryProcInstsUsingSQL'), body: { sqlWhereClause: "STATUS = 'Running'" } }),
    QueryActivityInsts: async () => ({ path: W('QueryActivityInsts'), body: { ColumnName: 'NAME', Operator: 'EQ', WhereClause: 'Review' } }),
    QueryAuditTrail: async () => ({ path: W('QueryAuditTrail'), body: { where: 'CATEGORY = 7' } }),
    QueryRegisterUsersUsingSQL: async () => ({ path: A('QueryRegisterUsersUsingSQL'), body: { sqlWhereClause: "USER_NAME LIKE 'LOCAL\\%'" } }),
    // Users
    RegisterUser: async () => ({ path: A('RegisterUser'), body: { UserName: `LOCAL\\${unique('new')}` } }),
    UpdateRegisterUser: async () => ({ path: A('UpdateRegisterUser'), body: { UserName: BOB[0], Title: unique('title') } }),
    UnregisterUser: async () => ({ path: A('UnregisterUser'), body: { userName: await newUser() } }),
    GetRegisterUser: async () => ({ path: A('GetRegisterUser'), body: { userName: ALICE } }),
    GetRegisterUsers: async () => ({ method: 'GET', path: A('GetRegisterUsers') }),
    GetAccessRights: async () => ({ path: A('GetAccessRights'), body: { userName: BOB[0] } }),
    GetAccessRightNames: async () => ({ method: 'GET', path: A('GetAccessRightNames') }),
    // Roles
    AddRole: async () => ({ path: A('AddRole'), body: { RoleName: unique('role'), Rights: [] } }),
    UpdateRole: async () => ({ path: A('UpdateRole'), body: { RoleName: await newRole(), Description: 'changed' } }),
    GetRole: async () => ({ method: 'GET', path: A('GetRole/Administrators') }),
    GetRoles: async () => ({ method: 'GET', path: A('GetRoles') }),
    RemoveRole: async () => ({ path: A(`RemoveRole/${await newRole()}`) }),
    AddRoleMember: async () => ({ path: A('AddRoleMember'), body: { RoleName: await newRole(), Assignee: ALICE, AssigneeType: 'User' } }),
    RemoveRoleMember: async () => ({ path: A('RemoveRoleMember'), body: { RoleName: await newRole([ALICE]), Assignee: ALICE, AssigneeType: 'User' } }),
    // Groups
    AddGroup: async () => ({ path: A('AddGroup'), body: { GroupName: unique('group') } }),
    GetGroup: async () => ({ method: 'GET', path: A(`GetGroup/${await newGroup()}`) }),
    GetGroups: async () => ({ method: 'GET', path: A('GetGroups') }),
    UpdateGroup: async () => ({ path: A('UpdateGroup'), body: { GroupName: await newGroup(), Description: 'changed' } }),
    RemoveGroup: async () => ({ path: A(`RemoveGroup/${await newGroup()}`) }),
    AddGroupMember: async () => ({ path: A('AddGroupMember'), body: { GroupName: await newGroup(), UserName: ALICE } }),
    GetGroupMembers: async () => ({ method: 'GET', path: A(`GetGroupMembers/${await newGroup([ALICE])}`) }),
    RemoveGroupMember: async () => ({ path: A('RemoveGroupMember'), body: { GroupName: await newGroup([ALICE]), UserName: ALICE } }),
  };

  return fixtures;
}
