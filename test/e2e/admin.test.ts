/**
 * The Admin area: users, roles, memberships and rights, and that every write is seen by the
 * affected users at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN, ADMIN_PASSWORD, addUser, deploy, startInstance, startServer, type Reply, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
/** Right 2 AddModifyRole only. */
const erin: [string, string] = ['LOCAL\\erin', 'erin-password-1'];
const WAIT = { prefer: 'wait=5' };
const DATE = /^\/Date\((-?\d+)\+0000\)\/$/;
const MIN_DATE = '/Date(-62135596800000+0000)/';
const ROLE_KEYS = ['CreatedBy', 'CreatedDate', 'Description', 'Enabled', 'LastModifiedBy', 'LastModifiedDate', 'Name', 'RightFlags'];
let defId: string;

function assertProblem(r: Reply, status: number, code?: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.json?.status, status, r.text);
  if (code) assert.equal(r.json.code, code, r.text);
}

function flagsOf(rights: number[]): string {
  return Array.from({ length: 87 }, (_, i) => (rights.includes(i) ? 'Y' : 'N')).join('');
}

async function user(name: string): Promise<any> {
  const r = await s.post('/EngineServer/Admin/GetRegisterUser', { userName: name });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

async function rightsOf(as: [string, string]): Promise<number[]> {
  const r = await s.post('/EngineServer/Admin/GetAccessRights', {}, { as });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

async function canLogIn(as: [string, string]): Promise<number> {
  return (await s.get('/EngineServer/Admin/GetRoles', { as })).status;
}

async function register(name: string, password: string, extra: Record<string, unknown> = {}): Promise<void> {
  const r = await s.post('/EngineServer/Admin/RegisterUser', { UserName: name, Password: password, ...extra });
  assert.equal(r.status, 200, r.text);
}

before(async () => {
  s = await startServer();
  await addUser(s, alice[0], alice[1]);
  await addUser(s, bob[0], bob[1]);
  await addUser(s, erin[0], erin[1], [2]);
  defId = await deploy(s, 'approval.bpmn');
});
after(() => s.close());

describe('users', () => {
  test('RegisterUser with a Password: 200 with an empty body, and the new user can log in at once', async () => {
    const r = await s.post('/EngineServer/Admin/RegisterUser', {
      UserName: 'LOCAL\\Nora', FullName: 'Nora N', EmailAddress: 'nora@example.com', Department: 'Ops', Title: 'Lead',
      Manager: 'LOCAL\\alice', Locale: 'de-DE', TimeZone: 'Europe/Berlin', OnlineContact: 'nora-im', RefID: 'N-7', Password: 'nora-password-1',
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, '');
    assert.equal(await canLogIn(['LOCAL\\Nora', 'nora-password-1']), 200);
    assert.equal(await canLogIn(['local\\nora', 'nora-password-1']), 200, 'the user name is case-insensitive');
    assert.equal(await canLogIn(['LOCAL\\Nora', 'wrong-password-1']), 401);
    const u = await user('LOCAL\\nora');
    assert.equal(u.UserName, 'LOCAL\\Nora');
    assert.equal(u.FullName, 'Nora N');
    assert.equal(u.EmailAddress, 'nora@example.com');
    assert.equal(u.Department, 'Ops');
    assert.equal(u.Title, 'Lead');
    assert.equal(u.Manager, 'LOCAL\\alice');
    assert.equal(u.Locale, 'de-DE');
    assert.equal(u.TimeZone, 'Europe/Berlin');
    assert.equal(u.OnlineContact, 'nora-im');
    assert.equal(u.RefID, 'N-7');
    assert.match(u.RegisteredDate, DATE);
    assert.ok(!('Password' in u) && !JSON.stringify(u).includes('nora-password-1'), 'the password is never returned');
    const all = await s.get('/EngineServer/Admin/GetRegisterUsers', { as: alice });
    assert.ok(all.json.GetRegisterUsersResult.some((x: any) => x.UserName === 'LOCAL\\Nora'), 'the list shows the new user at once');
  });

  test('RegisterUser: duplicate 409, bad password 400, no right 0 403 — and no user is created', async () => {
    await register('LOCAL\\dup', 'dup-password-1');
    assertProblem(await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\DUP', Password: 'dup-password-2' }), 409, 'DuplicateUser');
    assert.equal(await canLogIn(['LOCAL\\dup', 'dup-password-1']), 200, 'the first registration is untouched');
    let n = 0;
    for (const pw of ['short1', '          ', 'aaaaaaaaaa']) {
      const name = `LOCAL\\weak${n++}`;
      const r = await s.post('/EngineServer/Admin/RegisterUser', { UserName: name, Password: pw });
      assertProblem(r, 400, 'InvalidPassword');
      assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: name }), 404, 'UserNotFound');
    }
    assertProblem(await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\weak9', Password: 12345678 }), 400);
    assertProblem(await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\weak10', Password: 'p'.repeat(600) + 'q'.repeat(600) }), 400);
    const denied = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\byalice', Password: 'byalice-password-1' }, { as: alice });
    assertProblem(denied, 403, 'AccessDenied');
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'LOCAL\\byalice' }), 404, 'UserNotFound');
  });

  test('UpdateRegisterUser keeps profile fields that are left out; EMailAddress is accepted as input', async () => {
    await register('LOCAL\\olga', 'olga-password-1', { FullName: 'Olga O', EmailAddress: 'olga@example.com', Department: 'Finance', Title: 'Clerk' });
    const r = await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'local\\OLGA', Title: 'Head Clerk' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, '');
    const u = await user('LOCAL\\olga');
    assert.equal(u.UserName, 'LOCAL\\olga');
    assert.equal(u.Title, 'Head Clerk');
    assert.equal(u.FullName, 'Olga O');
    assert.equal(u.EmailAddress, 'olga@example.com');
    assert.equal(u.Department, 'Finance');
    const e = await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\olga', EMailAddress: 'o@example.org' });
    assert.equal(e.status, 200, e.text);
    const listed = (await s.get('/EngineServer/Admin/GetRegisterUsers', { as: bob })).json.GetRegisterUsersResult.find((x: any) => x.UserName === 'LOCAL\\olga');
    assert.equal(listed.EmailAddress, 'o@example.org', 'the change shows at once, spelled EmailAddress');
    assert.equal(listed.Title, 'Head Clerk');
    assert.equal(await canLogIn(['LOCAL\\olga', 'olga-password-1']), 200, 'a profile change keeps the password');
    assertProblem(await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\nobody', Title: 'x' }), 404, 'UserNotFound');
  });

  test('UpdateRegisterUser with a new password: the old one is refused at once, the new one works', async () => {
    await register('LOCAL\\pete', 'pete-password-1');
    assert.equal(await canLogIn(['LOCAL\\pete', 'pete-password-1']), 200);
    const r = await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\pete', Password: 'pete-password-2' });
    assert.equal(r.status, 200, r.text);
    assert.equal(await canLogIn(['LOCAL\\pete', 'pete-password-1']), 401);
    assert.equal(await canLogIn(['LOCAL\\pete', 'pete-password-2']), 200);
    assertProblem(await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\pete', Password: 'short' }), 400, 'InvalidPassword');
    assert.equal(await canLogIn(['LOCAL\\pete', 'pete-password-2']), 200);
  });

  test('a user may change their own profile and password without right 0, but not someone else\'s', async () => {
    await register('LOCAL\\quinn', 'quinn-password-1', { FullName: 'Quinn' });
    const me: [string, string] = ['LOCAL\\quinn', 'quinn-password-1'];
    assert.deepEqual(await rightsOf(me), []);
    const own = await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\quinn', FullName: 'Quinn Q' }, { as: me });
    assert.equal(own.status, 200, own.text);
    assert.equal((await user('LOCAL\\quinn')).FullName, 'Quinn Q');
    const other = await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: bob[0], FullName: 'Hacked' }, { as: me });
    assertProblem(other, 403, 'AccessDenied');
    assert.match(other.json.detail, /Add\/Modify User|AddModifyUser/);
    assert.notEqual((await user(bob[0])).FullName, 'Hacked');
    const pw = await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\quinn', Password: 'quinn-password-2' }, { as: me });
    assert.equal(pw.status, 200, pw.text);
    assert.equal(await canLogIn(me), 401);
    assert.equal(await canLogIn(['LOCAL\\quinn', 'quinn-password-2']), 200);
  });

  test('GetRegisterUser answers the bare record to any user; 404 for an unknown one', async () => {
    const r = await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'local\\BOB' }, { as: alice });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(r.json.UserName, bob[0]);
    for (const f of ['Department', 'EmailAddress', 'FullName', 'Locale', 'Manager', 'OnlineContact', 'RefID', 'RegisteredDate', 'TimeZone', 'Title', 'UALExpirationDate', 'UALNeverExpires', 'UserName']) {
      assert.ok(f in r.json, `missing ${f}`);
    }
    assert.ok(!('EMailAddress' in r.json));
    assert.equal(r.json.UALExpirationDate, MIN_DATE);
    assert.equal(r.json.FullName, 'bob');
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'LOCAL\\nobody' }), 404, 'UserNotFound');
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', {}), 400);
  });

  test('UnregisterUser: the user can no longer log in, at once; needs right 1', async () => {
    await register('LOCAL\\rita', 'rita-password-1');
    const rita: [string, string] = ['LOCAL\\rita', 'rita-password-1'];
    assert.equal(await canLogIn(rita), 200);
    const denied = await s.post('/EngineServer/Admin/UnregisterUser', { userName: 'LOCAL\\rita' }, { as: alice });
    assertProblem(denied, 403, 'AccessDenied');
    assert.match(denied.json.detail, /Remove User|RemoveUser/);
    assert.equal(await canLogIn(rita), 200);
    const r = await s.post('/EngineServer/Admin/UnregisterUser', { userName: 'local\\RITA' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, '');
    assert.equal(await canLogIn(rita), 401);
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'LOCAL\\rita' }), 404, 'UserNotFound');
    const all = (await s.get('/EngineServer/Admin/GetRegisterUsers')).json.GetRegisterUsersResult;
    assert.ok(!all.some((x: any) => x.UserName === 'LOCAL\\rita'));
    assertProblem(await s.post('/EngineServer/Admin/UnregisterUser', { userName: 'LOCAL\\rita' }), 404, 'UserNotFound');
  });

  test('the last administrator cannot be unregistered (409); another administrator can', async () => {
    const last = await s.post('/EngineServer/Admin/UnregisterUser', { userName: ADMIN });
    assertProblem(last, 409, 'LastAdministrator');
    assert.equal(await canLogIn([ADMIN, ADMIN_PASSWORD]), 200);
    await register('LOCAL\\admin2', 'admin2-password-1');
    const m = await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Administrators', Assignee: 'LOCAL\\admin2', AssigneeType: 'User' });
    assert.equal(m.status, 200, m.text);
    assert.equal((await rightsOf(['LOCAL\\admin2', 'admin2-password-1'])).length, 87);
    const r = await s.post('/EngineServer/Admin/UnregisterUser', { userName: 'LOCAL\\admin2' });
    assert.equal(r.status, 200, r.text);
    assert.equal(await canLogIn(['LOCAL\\admin2', 'admin2-password-1']), 401);
    assertProblem(await s.post('/EngineServer/Admin/UnregisterUser', { userName: ADMIN }), 409, 'LastAdministrator');
  });
});

describe('roles', () => {
  test('AddRole answers the bare WFRole; GetRole and GetRoles show it', async () => {
    const r = await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Clerks', Description: 'Front office', Rights: [11, 'CancelProcessInstance'] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json), ROLE_KEYS);
    assert.equal(r.json.Name, 'Clerks');
    assert.equal(r.json.Description, 'Front office');
    assert.equal(r.json.Enabled, true, 'Enabled defaults to true');
    assert.equal(r.json.RightFlags, flagsOf([11, 14]));
    assert.equal(r.json.CreatedBy, ADMIN);
    assert.match(r.json.CreatedDate, DATE);
    assert.notEqual(r.json.CreatedDate, MIN_DATE);
    const g = await s.get('/EngineServer/Admin/GetRole/clerks', { as: alice });
    assert.equal(g.status, 200, g.text);
    assert.deepEqual(Object.keys(g.json), ['GetRoleResult']);
    assert.deepEqual(g.json.GetRoleResult, r.json);
    const all = await s.get('/EngineServer/Admin/GetRoles', { as: alice });
    assert.deepEqual(Object.keys(all.json), ['GetRolesResult']);
    const names = all.json.GetRolesResult.map((x: any) => x.Name);
    assert.ok(names.includes('Administrators'));
    assert.ok(names.includes('Clerks'));
    for (const x of all.json.GetRolesResult) {
      assert.deepEqual(Object.keys(x), ROLE_KEYS);
      assert.match(x.RightFlags, /^[YN]{87}$/);
    }
    assert.equal(all.json.GetRolesResult.find((x: any) => x.Name === 'Administrators').RightFlags, 'Y'.repeat(87));
  });

  test('AddRole: duplicate 409, unknown right 400, escalation 403, no right 2 403', async () => {
    await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Once', Rights: [] });
    assertProblem(await s.post('/EngineServer/Admin/AddRole', { RoleName: 'ONCE' }), 409, 'DuplicateRole');
    assertProblem(await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Bad Right', Rights: ['FlyToTheMoon'] }), 400, 'InvalidRight');
    assertProblem(await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Bad Index', Rights: [87] }), 400, 'InvalidRight');
    const esc = await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Escalate', Rights: [14] }, { as: erin });
    assertProblem(esc, 403, 'AccessDenied');
    const ok = await s.post('/EngineServer/Admin/AddRole', { RoleName: 'By Erin', Rights: [2] }, { as: erin });
    assert.equal(ok.status, 200, ok.text);
    assertProblem(await s.post('/EngineServer/Admin/AddRole', { RoleName: 'By Alice' }, { as: alice }), 403, 'AccessDenied');
    for (const name of ['Bad Right', 'Bad Index', 'Escalate', 'By Alice']) {
      assertProblem(await s.get(`/EngineServer/Admin/GetRole/${encodeURIComponent(name)}`), 404, 'RoleNotFound');
    }
  });

  test('AddRoleMember grants the role\'s rights at once; RemoveRoleMember takes them away at once', async () => {
    await register('LOCAL\\sam', 'sam-password-1');
    const sam: [string, string] = ['LOCAL\\sam', 'sam-password-1'];
    await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Cancellers', Rights: [14] });
    const pi = await startInstance(s, defId);
    assertProblem(await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: sam }), 403, 'AccessDenied');
    const add = await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'cancellers', Assignee: 'local\\SAM', AssigneeType: 'User' });
    assert.equal(add.status, 200, add.text);
    assert.equal(add.json.RoleName, 'Cancellers');
    assert.equal(add.json.Assignee, 'LOCAL\\sam', 'the member as registered');
    assert.equal(add.json.AssigneeType, 'User');
    assert.deepEqual(await rightsOf(sam), [14]);
    assertProblem(await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Cancellers', Assignee: 'LOCAL\\sam', AssigneeType: 'User' }), 409, 'DuplicateRoleMember');
    const remove = await s.post('/EngineServer/Admin/RemoveRoleMember', { RoleName: 'Cancellers', Assignee: 'LOCAL\\sam', AssigneeType: 'User' });
    assert.equal(remove.status, 200, remove.text);
    assert.equal(remove.text, '');
    assert.deepEqual(await rightsOf(sam), []);
    assertProblem(await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: sam }), 403, 'AccessDenied');
    assertProblem(await s.post('/EngineServer/Admin/RemoveRoleMember', { RoleName: 'Cancellers', Assignee: 'LOCAL\\sam', AssigneeType: 'User' }), 404, 'RoleMemberNotFound');
    await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Cancellers', Assignee: 'LOCAL\\sam', AssigneeType: 'User' });
    const ok = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: sam, headers: WAIT });
    assert.equal(ok.json?.Status, 'Processed', ok.text);
    assertProblem(await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Cancellers', Assignee: 'LOCAL\\nobody', AssigneeType: 'User' }), 404, 'UserNotFound');
    assertProblem(await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'No Such Role', Assignee: 'LOCAL\\sam', AssigneeType: 'User' }), 404, 'RoleNotFound');
  });

  test('AddRoleMember cannot hand out rights the caller lacks; Administrators keeps its last member', async () => {
    const esc = await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Administrators', Assignee: erin[0], AssigneeType: 'User' }, { as: erin });
    assertProblem(esc, 403, 'AccessDenied');
    assert.deepEqual(await rightsOf(erin), [2]);
    const last = await s.post('/EngineServer/Admin/RemoveRoleMember', { RoleName: 'Administrators', Assignee: ADMIN, AssigneeType: 'User' });
    assertProblem(last, 409, 'LastAdministrator');
    assert.equal((await rightsOf([ADMIN, ADMIN_PASSWORD])).length, 87);
    await register('LOCAL\\admin3', 'admin3-password-1');
    await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Administrators', Assignee: 'LOCAL\\admin3', AssigneeType: 'User' });
    const r = await s.post('/EngineServer/Admin/RemoveRoleMember', { RoleName: 'Administrators', Assignee: 'LOCAL\\admin3', AssigneeType: 'User' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await rightsOf(['LOCAL\\admin3', 'admin3-password-1']), []);
    assertProblem(await s.post('/EngineServer/Admin/RemoveRoleMember', { RoleName: 'Administrators', Assignee: ADMIN, AssigneeType: 'User' }), 409, 'LastAdministrator');
  });

  test('RemoveRole: empty 200, its members lose its rights at once; Administrators is protected', async () => {
    await register('LOCAL\\tom', 'tom-password-1');
    const tom: [string, string] = ['LOCAL\\tom', 'tom-password-1'];
    await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Doomed', Rights: [23] });
    await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Doomed', Assignee: tom[0], AssigneeType: 'User' });
    assert.deepEqual(await rightsOf(tom), [23]);
    const denied = await s.post('/EngineServer/Admin/RemoveRole/Doomed', undefined, { as: erin });
    assertProblem(denied, 403, 'AccessDenied');
    assert.match(denied.json.detail, /Remove Role|RemoveRole/);
    const r = await s.post('/EngineServer/Admin/RemoveRole/doomed');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, '');
    assertProblem(await s.get('/EngineServer/Admin/GetRole/Doomed'), 404, 'RoleNotFound');
    assert.deepEqual(await rightsOf(tom), []);
    assert.ok(!(await s.get('/EngineServer/Admin/GetRoles')).json.GetRolesResult.some((x: any) => x.Name === 'Doomed'));
    assertProblem(await s.post('/EngineServer/Admin/RemoveRole/Doomed'), 404, 'RoleNotFound');
    assertProblem(await s.post('/EngineServer/Admin/RemoveRole/Administrators'), 409, 'BuiltInRoleProtected');
    assertProblem(await s.post('/EngineServer/Admin/RemoveRole/ADMINISTRATORS'), 409, 'BuiltInRoleProtected');
    assert.equal((await s.get('/EngineServer/Admin/GetRole/Administrators')).status, 200);
  });

  test('UpdateRole changes the rights of its members at once', async () => {
    await register('LOCAL\\uma', 'uma-password-1');
    const uma: [string, string] = ['LOCAL\\uma', 'uma-password-1'];
    await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Shifting', Rights: [23] });
    await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Shifting', Assignee: uma[0], AssigneeType: 'User' });
    assert.deepEqual(await rightsOf(uma), [23]);
    await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Shifting', Rights: [11, 23] });
    assert.deepEqual(await rightsOf(uma), [11, 23]);
    await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Shifting', Enabled: false });
    assert.deepEqual(await rightsOf(uma), []);
  });
});

describe('rights', () => {
  test('GetAccessRights: one\'s own rights; someone else\'s need right 0', async () => {
    assert.deepEqual(await rightsOf(alice), []);
    const named = await s.post('/EngineServer/Admin/GetAccessRights', { userName: 'local\\ALICE' }, { as: alice });
    assert.equal(named.status, 200, named.text);
    assert.deepEqual(named.json, []);
    const admin = await rightsOf([ADMIN, ADMIN_PASSWORD]);
    assert.deepEqual(admin, Array.from({ length: 87 }, (_, i) => i));
    const other = await s.post('/EngineServer/Admin/GetAccessRights', { userName: erin[0] }, { as: alice });
    assertProblem(other, 403, 'AccessDenied');
    assert.match(other.json.detail, /Add\/Modify User|AddModifyUser/);
    const byAdmin = await s.post('/EngineServer/Admin/GetAccessRights', { userName: erin[0] });
    assert.equal(byAdmin.status, 200, byAdmin.text);
    assert.deepEqual(byAdmin.json, [2]);
    assertProblem(await s.post('/EngineServer/Admin/GetAccessRights', { userName: 'LOCAL\\nobody' }), 404, 'UserNotFound');
  });

  test('GetAccessRightNames: 87 names in index order', async () => {
    const r = await s.get('/EngineServer/Admin/GetAccessRightNames', { as: alice });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json), ['GetAccessRightNamesResult']);
    const names = r.json.GetAccessRightNamesResult;
    assert.equal(names.length, 87);
    for (const n of names) assert.ok(typeof n === 'string' && n.trim() !== '');
    assert.equal(new Set(names).size, 87, 'the names are distinct');
    assert.equal(names[14], 'Cancel a Process');
    assert.equal(names[18], 'Create a Task');
  });
});
