/**
 * The per-request fast paths keep what a client sees: a list that fits one body is sent with
 * Content-Length (a longer one is still chunked and complete), request ids are unique per answer
 * and differ between processes, a cached login is still re-checked at once after a password
 * change and never accepts another password, and the one-statement reads answer what the
 * separate reads answered.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addUser, deploy, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const USERS = '/EngineServer/Admin/GetRegisterUsers';
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];

before(async () => {
  s = await startServer({ users: [alice, bob] });
});
after(() => s.close());

describe('list answers', () => {
  test('a list that fits one body is sent with Content-Length, not chunked', async () => {
    const r = await s.get(USERS);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)));
    assert.equal(r.headers.get('transfer-encoding'), null);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(r.json), ['GetRegisterUsersResult']);
    assert.ok(r.json.GetRegisterUsersResult.some((u: any) => u.UserName === alice[0]));
  });

  test('a list longer than 64 KB is streamed (chunked) and complete, in key order, across pages', async () => {
    const long = (c: string) => c.repeat(250);
    // 40 large profiles (over 64 KB on their own) and enough small ones for a second page.
    const names = Array.from({ length: 520 }, (_, i) => `LOCAL\\bulk${String(i).padStart(3, '0')}`);
    for (let i = 0; i < names.length; i += 40) {
      const batch = names.slice(i, i + 40).map((UserName, j) =>
        s.post(
          '/EngineServer/Admin/RegisterUser',
          i + j < 40
            ? {
                UserName, FullName: long('f'), Department: long('d'), Title: long('t'), Manager: long('m'),
                Locale: long('l'), TimeZone: long('z'), OnlineContact: long('o'), RefID: long('r'), EmailAddress: long('e'),
              }
            : { UserName },
        ),
      );
      for (const r of await Promise.all(batch)) assert.equal(r.status, 200, r.text);
    }
    const r = await s.get(USERS);
    assert.equal(r.status, 200, r.text);
    assert.ok(r.text.length > 64 * 1024, `${r.text.length} characters`);
    assert.equal(r.headers.get('transfer-encoding'), 'chunked');
    assert.equal(r.headers.get('content-length'), null);
    const listed = r.json.GetRegisterUsersResult.map((u: any) => u.UserName);
    for (const n of [...names, alice[0], bob[0]]) assert.ok(listed.includes(n), `${n} is listed`);
    assert.equal(new Set(listed).size, listed.length, 'each user once');
    const keys = listed.map((n: string) => n.toLowerCase());
    assert.deepEqual(keys, [...keys].sort(), 'in user order, across the streamed pieces');
  });
});

describe('the user directory kept between calls (GetRegisterUsers)', () => {
  // A server of its own: the directory above grew past one body (a streamed list is never kept).
  let s: TestServer;
  before(async () => {
    s = await startServer({ users: [alice] });
  });
  after(() => s.close());
  const listed = async (as?: [string, string]) => {
    const r = await s.get(USERS, as ? { as } : {});
    assert.equal(r.status, 200, r.text);
    return r.json.GetRegisterUsersResult as any[];
  };

  test('every change to users shows in the next answer, and the kept answer is the same bytes as a fresh one', async () => {
    const first = await s.get(USERS);
    const again = await s.get(USERS);
    assert.equal(again.text, first.text, 'unchanged directory: the same answer');
    assert.equal(again.headers.get('content-length'), String(Buffer.byteLength(again.text)));
    assert.equal(again.headers.get('content-type'), 'application/json; charset=utf-8', 'the kept bytes are still sent as JSON');
    const name = 'LOCAL\\kept-dir-user';
    assert.equal((await s.post('/EngineServer/Admin/RegisterUser', { UserName: name, Password: 'kept-password-1' })).status, 200);
    assert.ok((await listed()).some((u) => u.UserName === name), 'a registered user is listed at once');
    assert.equal((await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: name, Title: 'Keeper' })).status, 200);
    assert.equal((await listed()).find((u) => u.UserName === name)?.Title, 'Keeper', 'a profile change shows at once');
    assert.equal((await s.post('/EngineServer/Admin/UnregisterUser', { userName: name })).status, 200);
    assert.ok(!(await listed()).some((u) => u.UserName === name), 'an unregistered user is gone at once');
  });

  test('a kept answer is still only for authenticated callers (any user may list the directory)', async () => {
    const admin = await s.get(USERS); // the administrator's call keeps the answer
    const user = await s.get(USERS, { as: alice });
    assert.equal(user.status, 200, user.text);
    assert.equal(user.text, admin.text);
    const anonymous = await s.get(USERS, { as: null });
    assert.equal(anonymous.status, 401);
    assert.ok(!anonymous.text.includes('GetRegisterUsersResult'));
    assert.equal((await s.get(USERS, { as: [alice[0], 'not-her-password-1'] })).status, 401);
  });
});

describe('request ids', () => {
  test('every answer of many concurrent requests has its own 16-hex id, also in problem bodies', async () => {
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 3 === 2 ? s.get(USERS, { as: null }) : s.get('/EngineServer/Workflow/GetUUID'))),
    );
    const ids = replies.map((r) => r.headers.get('x-request-id') ?? '');
    for (const id of ids) assert.match(id, /^[0-9a-f]{16}$/);
    assert.equal(new Set(ids).size, ids.length, 'no id twice');
    for (const r of replies.filter((x) => x.status === 401)) assert.equal(r.json.requestId, r.headers.get('x-request-id'));
  });

  test('two processes start from unrelated ids', () => {
    const module = path.join(import.meta.dirname, '..', '..', 'src', 'api', 'requestIds.ts');
    const script = `const { nextRequestId } = await import(${JSON.stringify(module)}); console.log(nextRequestId(), nextRequestId());`;
    const run = () => execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split(' ');
    const [a1, a2] = run();
    const [b1] = run();
    for (const id of [a1, a2, b1]) assert.match(id, /^[0-9a-f]{16}$/);
    assert.notEqual(a1, a2);
    // Two random 64-bit starting points: equal only with probability 2^-64.
    assert.ok(BigInt(`0x${b1}`) - BigInt(`0x${a1}`) > 1000n || BigInt(`0x${a1}`) - BigInt(`0x${b1}`) > 1000n, `${a1} and ${b1} are far apart`);
  });
});

describe('cached logins', () => {
  test('a cached login accepts only its own password, and a password change applies to the very next request', async () => {
    const carol: [string, string] = ['LOCAL\\carol', 'carol-password-1'];
    await addUser(s, carol[0], carol[1]);
    assert.equal((await s.get(USERS, { as: carol })).status, 200);
    assert.equal((await s.get(USERS, { as: carol })).status, 200, 'cached');
    assert.equal((await s.get(USERS, { as: [carol[0], 'carol-password-2'] })).status, 401, 'same length, one character differs');
    assert.equal((await s.get(USERS, { as: [carol[0], 'carol-password-1x'] })).status, 401, 'longer');
    assert.equal((await s.get(USERS, { as: [carol[0], 'carol-password-'] })).status, 401, 'a prefix');
    assert.equal((await s.get(USERS, { as: ['local\\CAROL', carol[1]] })).status, 200, 'any spelling of the name');
    const changed = await s.post('/EngineServer/Admin/UpdateRegisterUser', { UserName: carol[0], Password: 'carol-password-new' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await s.get(USERS, { as: carol })).status, 401, 'the old password is refused at once');
    assert.equal((await s.get(USERS, { as: [carol[0], 'carol-password-new'] })).status, 200);
  });
});

describe('reads answered with fewer statements', () => {
  let defId: string;
  before(async () => {
    defId = await deploy(s, 'approval.bpmn');
  });

  test("GetWorkItem shows its instance's fields; Pending follows a suspension", async () => {
    const pi = await startInstance(s, defId, { WorkObjID: 'WO-7' });
    const item = (await workList(s, alice, 'New')).find((w) => w.ProcInstID === pi);
    assert.ok(item);
    const instance = (await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`)).json.GetProcInstResult;
    const r = await s.get(`/EngineServer/Workflow/GetWorkItem/${item.WorkItemID}`, { as: bob });
    assert.equal(r.status, 200, r.text);
    const wi = r.json.GetWorkItemResult;
    assert.deepEqual(wi, item, 'the same record as the work list shows');
    assert.equal(wi.ProcInstName, instance.ProcInstName);
    assert.equal(wi.ProcDefID, defId);
    assert.equal(wi.DefName, instance.DefName);
    assert.equal(wi.WorkObjectID, 'WO-7');
    assert.equal(wi.Pending, false);
    const suspended = await s.post(`/EngineServer/Workflow/SuspendProcInst/${pi}`, undefined, { headers: { prefer: 'wait=10' } });
    assert.equal(suspended.status, 200, suspended.text);
    assert.equal((await s.get(`/EngineServer/Workflow/GetWorkItem/${item.WorkItemID}`)).json.GetWorkItemResult.Pending, true);
    const missing = await s.get('/EngineServer/Workflow/GetWorkItem/0123456789ABCDEF0123456789ABCDEF');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'WorkItemNotFound');
  });

  test('GetActivityInstsByPIID: the rows in order; 404 for an unknown instance, 403 before any row for an outsider', async () => {
    const pi = await startInstance(s, defId);
    const r = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`);
    assert.equal(r.status, 200, r.text);
    const rows = r.json.GetActivityInstsByPIIDResult;
    assert.ok(rows.length >= 2, 'the start event and the waiting task');
    for (const a of rows) assert.equal(a.ProcInstID, pi);
    const one = await s.get(`/EngineServer/Workflow/GetActivityInst/${rows[0].ID}`);
    assert.deepEqual(one.json.GetActivityInstResult, rows[0]);
    const unknown = await s.get('/EngineServer/Workflow/GetActivityInstsByPIID/0123456789ABCDEF0123456789ABCDEF');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.code, 'ProcessInstanceNotFound');
    const dave: [string, string] = ['LOCAL\\dave', 'dave-password-1'];
    await addUser(s, dave[0], dave[1]);
    const outsider = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`, { as: dave });
    assert.equal(outsider.status, 403, outsider.text);
    assert.equal(outsider.json.code, 'AccessDenied');
    const participant = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`, { as: alice });
    assert.deepEqual(participant.json, r.json, 'a pool member of the instance sees the same rows');
  });
});
