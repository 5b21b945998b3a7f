/**
 * WIRE.md §Paths and verbs, §Bodies and §Values, as a client on the wire sees them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN, ADMIN_PASSWORD, addUser, basic, deploy, startInstance, startServer, workList, type Reply, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
const ALLOWED_ORIGIN = 'https://app.example';
const WAIT = { prefer: 'wait=5' };
const DATE = /^\/Date\((-?\d+)\+0000\)\/$/;
const ID = /^[0-9A-F]{32}$/;
const UNKNOWN_ID = '0123456789ABCDEF0123456789ABCDEF';
let defId: string;

function assertProblem(r: Reply, status: number, code?: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.json?.status, status, r.text);
  if (code) assert.equal(r.json.code, code, r.text);
}

/** POST raw bytes with exactly the headers given: fetch adds text/plain to a string body, not to bytes. */
async function postBytes(urlPath: string, text: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(s.url + urlPath, {
    method: 'POST',
    headers: { authorization: basic(ADMIN, ADMIN_PASSWORD), ...headers },
    body: new TextEncoder().encode(text),
  });
  const body = await res.text();
  let json: any;
  try {
    json = body === '' ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text: body, json };
}

async function role(name: string): Promise<any> {
  const r = await s.get(`/EngineServer/Admin/GetRole/${encodeURIComponent(name)}`);
  assert.equal(r.status, 200, r.text);
  return r.json.GetRoleResult;
}

async function workItem(id: string): Promise<any> {
  const r = await s.get(`/EngineServer/Workflow/GetWorkItem/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.json.GetWorkItemResult;
}

/** A new instance and its Review item, pooled to alice and bob. */
async function pooledItem(): Promise<{ pi: string; wi: string }> {
  const pi = await startInstance(s, defId);
  const wi = (await workList(s, alice, 'New')).find((w) => w.ProcInstID === pi)?.WorkItemID;
  assert.ok(wi);
  return { pi, wi };
}

async function assignedItem(as: [string, string] = alice): Promise<{ pi: string; wi: string }> {
  const x = await pooledItem();
  const r = await s.post(`/EngineServer/Workflow/AssignWorkItem/${x.wi}`, { clientData: null }, { as, headers: WAIT });
  assert.equal(r.json?.Status, 'Processed', r.text);
  return x;
}

async function addRole(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const r = await s.post('/EngineServer/Admin/AddRole', { RoleName: name, Description: 'start', Rights: [11], Enabled: true, ...extra });
  assert.equal(r.status, 200, r.text);
}

before(async () => {
  s = await startServer({ env: { WAYMARK_ROOT_ALIASES: 'AgilePointServer', WAYMARK_ALLOWED_ORIGINS: ALLOWED_ORIGIN } });
  await addUser(s, alice[0], alice[1]);
  await addUser(s, bob[0], bob[1]);
  defId = await deploy(s, 'approval.bpmn');
});
after(() => s.close());

describe('paths', () => {
  test('both roots and a configured alias serve the same operations; another root is 404', async () => {
    const answers = [];
    for (const root of ['EngineServer', 'EngineService', 'AgilePointServer']) {
      const r = await s.get(`/${root}/Admin/GetRoles`);
      assert.equal(r.status, 200, `${root}: ${r.text}`);
      answers.push(r.json);
      const { pi } = await pooledItem();
      const c = await s.post(`/${root}/Workflow/CancelProcInst/${pi}`);
      assert.equal(c.status, 200, `${root}: ${c.text}`);
      assert.equal(c.json.EventName, 'CancelProcessInstance');
    }
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    assertProblem(await s.get('/OtherServer/Admin/GetRoles'), 404, 'NotFound');
  });

  test('root, area, operation and ids match case-insensitively', async () => {
    const { pi, wi } = await assignedItem();
    const acts = (await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`)).json.GetActivityInstsByPIIDResult;
    const lower = await s.get(`/engineserver/workflow/getactivityinst/${acts[1].ID.toLowerCase()}`);
    assert.equal(lower.status, 200, lower.text);
    assert.equal(lower.json.GetActivityInstResult.ID, acts[1].ID, 'ids come back upper-case');
    const upper = await s.get(`/ENGINESERVICE/WORKFLOW/GETACTIVITYINSTSBYPIID/${pi.toLowerCase()}`);
    assert.equal(upper.status, 200, upper.text);
    assert.deepEqual(upper.json, { GetActivityInstsByPIIDResult: acts });
    const alias = await s.get('/agilepointserver/ADMIN/getRegisterUsers');
    assert.equal(alias.status, 200, alias.text);
    const post = await s.post(`/engineServer/Workflow/undoassignworkitem/${wi.toLowerCase()}`, { clientData: null }, { as: alice, headers: WAIT });
    assert.equal(post.status, 200, post.text);
    assert.equal(post.json.Status, 'Processed');
    assert.equal(post.json.WorkItemID, wi);
    assert.equal(post.json.ProcInstID, pi);
  });

  test('a known path with the wrong verb is 405 with Allow; an unknown path is 404', async () => {
    const get = await s.get(`/EngineServer/Workflow/CancelProcInst/${UNKNOWN_ID}`);
    assertProblem(get, 405, 'MethodNotAllowed');
    assert.equal(get.headers.get('allow'), 'POST');
    const post = await s.post('/EngineServer/Admin/GetRoles', {});
    assertProblem(post, 405, 'MethodNotAllowed');
    assert.equal(post.headers.get('allow'), 'GET');
    assertProblem(await s.get('/EngineServer/Workflow/NoSuchOperation'), 404, 'NotFound');
    assertProblem(await s.get('/EngineServer/Nowhere/GetRoles'), 404, 'NotFound');
  });
});

describe('bodies', () => {
  test('GET results are wrapped, POST results bare, void POSTs answer 200 with an empty body', async () => {
    const g = await s.get('/EngineServer/Admin/GetRole/Administrators');
    assert.equal(g.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(g.json), ['GetRoleResult']);
    const uuid = await s.get('/EngineServer/Workflow/GetUUID');
    assert.deepEqual(Object.keys(uuid.json), ['GetUUIDResult']);
    assert.match(uuid.json.GetUUIDResult, ID);

    await addRole('Bare Role');
    const u = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Bare Role', Description: 'bare' });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(u.json.Name, 'Bare Role');
    assert.equal(u.json.Description, 'bare');
    const user = await s.post('/EngineServer/Admin/GetRegisterUser', { userName: alice[0] });
    assert.equal(user.json.UserName, alice[0]);
    const list = await s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: alice[0], Status: 'New' }, { as: alice });
    assert.ok(Array.isArray(list.json), list.text);

    const reg = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\void1', Password: 'void-password-1' });
    assert.equal(reg.status, 200, reg.text);
    assert.equal(reg.text, '');
    const member = await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: 'Bare Role', Assignee: 'LOCAL\\void1', AssigneeType: 'User' });
    assert.equal(member.status, 200, member.text);
    assert.equal(member.json.RoleName, 'Bare Role', 'AddRoleMember answers the bare WFRoleMember');
    const remove = await s.post('/EngineServer/Admin/RemoveRoleMember', { RoleName: 'Bare Role', Assignee: 'LOCAL\\void1', AssigneeType: 'User' });
    assert.equal(remove.status, 200, remove.text);
    assert.equal(remove.text, '');
  });

  test('a POST body is read as JSON with no Content-Type, any JSON charset and application/*+json; other types are 415', async () => {
    await addRole('Type Role');
    const none = await postBytes('/EngineServer/Admin/UpdateRole', '{"RoleName":"Type Role","Description":"no type"}');
    assert.equal(none.status, 200, none.text);
    assert.equal((await role('Type Role')).Description, 'no type', 'the body was read without a Content-Type');
    const charset = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Type Role', Description: 'charset' }, { contentType: 'application/json; charset=utf-8' });
    assert.equal(charset.status, 200, charset.text);
    assert.equal((await role('Type Role')).Description, 'charset');
    const vnd = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Type Role', Description: 'vendor' }, { contentType: 'application/vnd.x+json' });
    assert.equal(vnd.status, 200, vnd.text);
    assert.equal((await role('Type Role')).Description, 'vendor');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Type Role', Description: type }, { contentType: type });
      assertProblem(r, 415, 'UnsupportedMediaType');
    }
    assert.equal((await role('Type Role')).Description, 'vendor', 'a 415 changes nothing');
  });

  test('a POST that needs no body accepts none, an empty body, {} or any JSON object', async () => {
    const variants: { body?: unknown; raw?: string; contentType?: string | null }[] = [
      { contentType: null },
      { raw: '', contentType: 'application/json' },
      { body: {} },
      { body: { Date: '/Date(0)/', anything: [1, 2] } },
    ];
    for (const v of variants) {
      const { pi } = await pooledItem();
      const r = await s.request('POST', `/EngineServer/Workflow/CancelProcInst/${pi}`, { ...v, headers: WAIT });
      assert.equal(r.status, 200, `${JSON.stringify(v)}: ${r.text}`);
      assert.equal(r.json.Status, 'Processed');
    }
    const { wi } = await pooledItem();
    const take = await s.request('POST', `/EngineServer/Workflow/AssignWorkItem/${wi}`, { as: alice, contentType: null, headers: WAIT });
    assert.equal(take.status, 200, take.text);
    assert.equal(take.json.Status, 'Processed');
  });

  test('property names match in any case', async () => {
    const { wi } = await pooledItem();
    const take = await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, { clientdata: 'lower' }, { as: alice, headers: WAIT });
    assert.equal(take.json?.Status, 'Processed', take.text);
    assert.equal((await workItem(wi)).ClientData, 'lower');
    const undo = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { CLIENTDATA: 'upper' }, { as: alice, headers: WAIT });
    assert.equal(undo.json?.Status, 'Processed', undo.text);
    assert.equal((await workItem(wi)).ClientData, 'upper');
    await addRole('Case Role');
    const u = await s.post('/EngineServer/Admin/UpdateRole', { rolename: 'Case Role', DESCRIPTION: 'any case', enabled: false, RIGHTS: [14] });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.json.Description, 'any case');
    assert.equal(u.json.Enabled, false);
    assert.equal(u.json.RightFlags[14], 'Y');
    assert.equal(u.json.RightFlags[11], 'N');
  });

  test('booleans as true/false and as "true"/"false" strings in any case', async () => {
    await addRole('Bool Role');
    for (const [value, expected] of [['false', false], ['TRUE', true], ['False', false], [true, true]] as const) {
      const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Bool Role', Enabled: value });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.Enabled, expected, `Enabled ${JSON.stringify(value)}`);
    }
    const bad = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Bool Role', Enabled: 'yes' });
    assertProblem(bad, 400);
    const { wi } = await assignedItem(bob);
    const l = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', {
      SourceWorkItemID: wi, WorkToPerform: 'strings', UserID: alice[0], Length: '1', Unit: 'DAY', BusinessTime: 'True', bDependent: 'TRUE',
    });
    assert.equal(l.status, 200, l.text);
    assert.match(l.json.ParamsXml, /<param name="ExpectedTime" value="1 DAY;BusinessTime=True"\/>/);
    assert.match(l.json.ParamsXml, /<param name="waitWorkPerformed" value="True"\/>/);
  });

  test('Length as a JSON number; unknown properties are ignored; bad Lengths are 400', async () => {
    const { wi } = await assignedItem(bob);
    const base = { SourceWorkItemID: wi, WorkToPerform: 'length', UserID: alice[0], Unit: 'DAY' };
    const num = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { ...base, Length: 2, Unknown: 'x', Nested: { a: [1] } }, { headers: WAIT });
    assert.equal(num.status, 200, num.text);
    assert.match(num.json.ParamsXml, /<param name="ExpectedTime" value="2 DAY"\/>/);
    assert.equal(num.json.Status, 'Processed');
    for (const bad of ['0', '-1', '1.5', 'two', '', 0, 1.5]) {
      const r = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { ...base, Length: bad });
      assertProblem(r, 400);
    }
    await addRole('Extra Role');
    const u = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Extra Role', Description: 'extra', Foo: { bar: 1 }, Rights2: 'x' });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.json.Description, 'extra');
  });
});

describe('values', () => {
  test('RegisteredDate accepts /Date(ms)/, /Date(ms±hhmm)/, escaped slashes and ISO 8601; dates go out as +0000', async () => {
    const ms = 1700000000000;
    const inputs: { label: string; raw?: string; value?: string }[] = [
      { label: 'plain', value: `/Date(${ms})/` },
      { label: 'plus offset', value: `/Date(${ms}+0200)/` },
      { label: 'minus offset', value: `/Date(${ms}-0500)/` },
      { label: 'JSON-escaped slashes', raw: `"\\/Date(${ms})\\/"` },
      { label: 'literal backslashes', value: `\\/Date(${ms})\\/` },
      { label: 'ISO Z', value: '2023-11-14T22:13:20Z' },
      { label: 'ISO offset', value: '2023-11-15T00:13:20+02:00' },
      { label: 'ISO millis', value: '2023-11-14T22:13:20.000Z' },
    ];
    let n = 0;
    for (const input of inputs) {
      const name = `LOCAL\\dated${n++}`;
      const date = input.raw ?? JSON.stringify(input.value);
      const r = await s.post('/EngineServer/Admin/RegisterUser', undefined, { raw: `{"UserName":${JSON.stringify(name)},"RegisteredDate":${date}}` });
      assert.equal(r.status, 200, `${input.label}: ${r.text}`);
      const u = await s.post('/EngineServer/Admin/GetRegisterUser', { userName: name });
      assert.equal(u.json.RegisteredDate, `/Date(${ms}+0000)/`, input.label);
    }
    const bad = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\baddate', RegisteredDate: 'yesterday' });
    assertProblem(bad, 400, 'InvalidDate');
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'LOCAL\\baddate' }), 404, 'UserNotFound');
  });

  test('every date the server writes ends in +0000', async () => {
    const { pi, wi } = await assignedItem();
    const texts = [
      (await s.get('/EngineServer/Admin/GetRegisterUsers')).text,
      (await s.get('/EngineServer/Admin/GetRoles')).text,
      (await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`)).text,
      (await s.get(`/EngineServer/Workflow/GetWorkItem/${wi}`)).text,
      (await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`)).text,
      (await s.get(`/EngineServer/Workflow/GetEventsByProcInstID/${pi}`)).text,
    ];
    let seen = 0;
    for (const text of texts) {
      for (const m of text.matchAll(/"(\\?\/Date\([^"]*\)\\?\/)"/g)) {
        seen++;
        assert.match(m[1], DATE, `date ${m[1]}`);
      }
    }
    assert.ok(seen > 20, `only ${seen} dates seen`);
  });

  test('a date field is never null: unset dates are /Date(-62135596800000+0000)/', async () => {
    const { pi, wi } = await pooledItem();
    const records = [
      (await s.get(`/EngineServer/Workflow/GetWorkItem/${wi}`)).json,
      (await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`)).json,
      (await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`)).json,
      (await s.get(`/EngineServer/Workflow/GetEventsByProcInstID/${pi}`)).json,
      (await s.get('/EngineServer/Admin/GetRoles')).json,
      (await s.get('/EngineServer/Admin/GetRegisterUsers')).json,
    ];
    let unset = 0;
    const walk = (v: unknown, where: string): void => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (/Date$/.test(k)) {
            assert.equal(typeof x, 'string', `${where}.${k} is ${JSON.stringify(x)}`);
            assert.match(x as string, DATE, `${where}.${k}`);
            if (x === '/Date(-62135596800000+0000)/') unset++;
          } else walk(x, `${where}.${k}`);
        }
      }
    };
    records.forEach((r, i) => walk(r, `record${i}`));
    assert.ok(unset > 3, 'unset dates are written as the MIN date');
  });

  test('ids are 32 upper-case hex characters in the time-ordered UUIDv7 layout', async () => {
    const before = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await s.get('/EngineServer/Workflow/GetUUID')).json.GetUUIDResult);
      await new Promise((r) => setTimeout(r, 2));
    }
    const pi = await startInstance(s, defId);
    ids.push(pi);
    const afterMs = Date.now();
    for (const id of ids) {
      assert.match(id, ID);
      const ms = parseInt(id.slice(0, 12), 16);
      assert.ok(ms >= before - 5 && ms <= afterMs + 5, `the first 48 bits of ${id} are the creation time`);
      assert.equal(id[12], '7', `version nibble of ${id}`);
      assert.match(id[16], /[89AB]/, `variant of ${id}`);
    }
    assert.deepEqual([...ids].sort(), ids, 'later ids sort after earlier ones');
    assert.equal(new Set(ids).size, ids.length);
  });

  test('user names are compared case-insensitively and returned as registered', async () => {
    const reg = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'Corp\\Mixed.Case', Password: 'mixed-password-1' });
    assert.equal(reg.status, 200, reg.text);
    const u = await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'CORP\\mixed.case' });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.json.UserName, 'Corp\\Mixed.Case');
    const dup = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'corp\\MIXED.CASE' });
    assertProblem(dup, 409, 'DuplicateUser');
    const login = await s.post('/EngineServer/Admin/GetAccessRights', {}, { as: ['corp\\mixed.CASE', 'mixed-password-1'] });
    assert.equal(login.status, 200, login.text);
    const list = await s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: 'CORP\\MIXED.case' }, { as: ['Corp\\Mixed.Case', 'mixed-password-1'] });
    assert.equal(list.status, 200, list.text);
    const { pi } = await pooledItem();
    const c = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: ['local\\ADMIN', ADMIN_PASSWORD] });
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.Sender, ADMIN, 'Sender is the user as registered');
  });

  test('a user name that is not DOMAIN\\user is 400', async () => {
    for (const bad of ['nobackslash', 'A\\b\\c', '\\user', 'DOMAIN\\', ' LOCAL\\x', 'LOCAL\\x\u0001']) {
      const r = await s.post('/EngineServer/Admin/GetRegisterUser', { userName: bad });
      assertProblem(r, 400, 'InvalidUserName');
      const reg = await s.post('/EngineServer/Admin/RegisterUser', { UserName: bad });
      assertProblem(reg, 400, 'InvalidUserName');
    }
  });

  test('ids: not 32 hex characters is 400, well-formed but unknown is 404', async () => {
    const malformed = ['0123456789ABCDEF0123456789ABCDE', '0123456789ABCDEF0123456789ABCDEF0', 'G123456789ABCDEF0123456789ABCDEF', '01234567-89AB-CDEF-0123-456789ABCDEF'];
    for (const id of malformed) {
      assertProblem(await s.get(`/EngineServer/Workflow/GetProcInst/${id}`), 400, 'InvalidId');
      assertProblem(await s.post(`/EngineServer/Workflow/CancelProcInst/${id}`), 400, 'InvalidId');
      assertProblem(await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${id}`, {}), 400, 'InvalidId');
      const body = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { SourceWorkItemID: id, WorkToPerform: 'x', UserID: alice[0], Length: '1', Unit: 'DAY' });
      assertProblem(body, 400, 'InvalidId');
    }
    assertProblem(await s.get(`/EngineServer/Workflow/GetProcInst/${UNKNOWN_ID}`), 404, 'ProcessInstanceNotFound');
    assertProblem(await s.get(`/EngineServer/Workflow/GetProcInst/${UNKNOWN_ID.toLowerCase()}`), 404, 'ProcessInstanceNotFound');
    assertProblem(await s.post(`/EngineServer/Workflow/CancelProcInst/${UNKNOWN_ID}`), 404, 'ProcessInstanceNotFound');
    assertProblem(await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${UNKNOWN_ID}`, {}), 404, 'WorkItemNotFound');
    const body = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { SourceWorkItemID: UNKNOWN_ID, WorkToPerform: 'x', UserID: alice[0], Length: '1', Unit: 'DAY' });
    assertProblem(body, 404, 'WorkItemNotFound');
    const { wi } = await assignedItem(bob);
    const lower = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { SourceWorkItemID: wi.toLowerCase(), WorkToPerform: 'x', UserID: alice[0], Length: '1', Unit: 'DAY' });
    assert.equal(lower.status, 200, lower.text);
    assert.equal(lower.json.SourceWorkItemID, wi, 'a body id in lower case is the same id');
  });

  test('Status "Cancelled" is accepted as input; "Canceled" is what comes out', async () => {
    const { pi, wi } = await assignedItem(alice);
    const c = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: WAIT });
    assert.equal(c.json?.Status, 'Processed', c.text);
    for (const status of ['Cancelled', 'cancelled', 'Canceled', 'CANCELLED']) {
      const items = await workList(s, alice, status);
      const item = items.find((w) => w.WorkItemID === wi);
      assert.ok(item, `${status} lists the canceled item`);
      assert.equal(item.Status, 'Canceled');
    }
    const both = await workList(s, alice, 'Assigned;Cancelled');
    assert.ok(both.some((w) => w.WorkItemID === wi));
    assert.ok(!(await workList(s, alice, 'Assigned')).some((w) => w.WorkItemID === wi));
    assert.ok(!(await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`)).text.includes('Cancelled'));
  });
});

describe('cross-site requests', () => {
  test('an Origin that is not allowed is refused with 403 and changes nothing', async () => {
    const r = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\evil1', Password: 'evil-password-1' }, { headers: { origin: 'https://evil.example' } });
    assertProblem(r, 403, 'CrossSiteRequest');
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'LOCAL\\evil1' }), 404, 'UserNotFound');
    const { pi } = await pooledItem();
    const c = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: { origin: 'null' } });
    assertProblem(c, 403, 'CrossSiteRequest');
    const get = await s.get('/EngineServer/Admin/GetRoles', { headers: { origin: 'https://evil.example' } });
    assertProblem(get, 403, 'CrossSiteRequest');
    assert.equal(get.headers.get('access-control-allow-origin'), null);
    await s.settle();
    assert.equal((await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`)).json.GetProcInstResult.Status, 'Running');
  });

  test('Sec-Fetch-Site: cross-site is refused with 403 and changes nothing', async () => {
    await addRole('Csrf Role');
    const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Csrf Role', Description: 'forged' }, { headers: { 'sec-fetch-site': 'cross-site' } });
    assertProblem(r, 403, 'CrossSiteRequest');
    assert.equal((await role('Csrf Role')).Description, 'start');
    const same = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Csrf Role', Description: 'same site' }, { headers: { 'sec-fetch-site': 'same-origin' } });
    assert.equal(same.status, 200, same.text);
  });

  test('an origin listed in WAYMARK_ALLOWED_ORIGINS passes, with CORS headers; its preflight answers 204', async () => {
    await addRole('Cors Role');
    const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Cors Role', Description: 'from app' }, { headers: { origin: ALLOWED_ORIGIN } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.equal((await role('Cors Role')).Description, 'from app');
    const pre = await s.request('OPTIONS', '/EngineServer/Admin/UpdateRole', {
      as: null,
      headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    assert.equal(pre.status, 204, pre.text);
    assert.equal(pre.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /GET/);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /authorization/i);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /content-type/i);
    const evil = await s.request('OPTIONS', '/EngineServer/Admin/UpdateRole', {
      as: null,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(evil.status, 403, evil.text);
    assert.equal(evil.headers.get('access-control-allow-origin'), null);
  });
});

describe('headers and limits', () => {
  test('security headers and a fresh X-Request-Id on every answer', async () => {
    const replies: [string, Reply][] = [
      ['GET 200', await s.get('/EngineServer/Admin/GetRoles')],
      ['POST empty 200', await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\hdr1' })],
      ['400', await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'bad' })],
      ['401', await s.get('/EngineServer/Admin/GetRoles', { as: null })],
      ['403', await s.get('/EngineServer/Admin/GetRoles', { headers: { 'sec-fetch-site': 'cross-site' } })],
      ['404', await s.get('/EngineServer/Admin/NoSuchThing')],
      ['405', await s.get(`/EngineServer/Workflow/CancelProcInst/${UNKNOWN_ID}`)],
      ['415', await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'x' }, { contentType: 'text/plain' })],
      ['204', await s.request('OPTIONS', '/EngineServer/Admin/GetRoles', { as: null, headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'GET' } })],
    ];
    const ids = new Set<string>();
    for (const [label, r] of replies) {
      const id = r.headers.get('x-request-id');
      assert.ok(id && id.length > 0, `${label}: X-Request-Id`);
      ids.add(id);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', `${label}: nosniff`);
      assert.equal(r.headers.get('cache-control'), 'no-store', `${label}: Cache-Control`);
      if (r.status >= 400) assert.equal(r.json.requestId, id, `${label}: requestId in the body`);
    }
    assert.equal(ids.size, replies.length, 'every answer has its own request id');
  });

  test('WorkToPerform 1024 characters pass, 1025 are 400', async () => {
    const { wi } = await assignedItem(bob);
    const base = { SourceWorkItemID: wi, UserID: alice[0], Length: '1', Unit: 'DAY' };
    const ok = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { ...base, WorkToPerform: 'w'.repeat(1024) });
    assert.equal(ok.status, 200, ok.text);
    const long = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { ...base, WorkToPerform: 'w'.repeat(1025) });
    assertProblem(long, 400);
  });

  test('Description 4000 characters pass, 4001 are 400; names over 256 are 400', async () => {
    await addRole('Limit Role');
    const ok = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Limit Role', Description: 'd'.repeat(4000) });
    assert.equal(ok.status, 200, ok.text);
    const long = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Limit Role', Description: 'e'.repeat(4001) });
    assertProblem(long, 400);
    assert.equal((await role('Limit Role')).Description, 'd'.repeat(4000));
    assertProblem(await s.post('/EngineServer/Admin/AddRole', { RoleName: 'r'.repeat(257) }), 400);
    assertProblem(await s.post('/EngineServer/Admin/RegisterUser', { UserName: `LOCAL\\${'u'.repeat(251)}` }), 400);
  });

  test('ClientData up to 64 KiB passes, longer is 400', async () => {
    const { wi } = await pooledItem();
    const long = await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, { clientData: 'c'.repeat(64 * 1024 + 1) }, { as: alice });
    assertProblem(long, 400);
    assert.equal((await workItem(wi)).Status, 'New');
    const ok = await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, { clientData: 'c'.repeat(64 * 1024) }, { as: alice, headers: WAIT });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await workItem(wi)).ClientData.length, 64 * 1024);
    const { wi: src } = await assignedItem(bob);
    const linked = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', {
      SourceWorkItemID: src, WorkToPerform: 'x', UserID: alice[0], Length: '1', Unit: 'DAY', ClientData: 'c'.repeat(64 * 1024 + 1),
    });
    assertProblem(linked, 400);
  });

  test('a body over 1 MiB is 413 and changes nothing', async () => {
    await addRole('Big Role');
    const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Big Role', Description: 'x', Padding: 'p'.repeat(1024 * 1024) });
    assertProblem(r, 413, 'PayloadTooLarge');
    assert.equal((await role('Big Role')).Description, 'start');
  });

  test('Prefer: wait=N is capped at 30 seconds', async () => {
    const { pi } = await pooledItem();
    const r = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: { prefer: 'wait=120' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('preference-applied'), 'wait=30');
    assert.equal(r.json.Status, 'Processed');
  });
});
