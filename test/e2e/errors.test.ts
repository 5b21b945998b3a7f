/**
 * WIRE.md §Errors: every status of the table with its RFC 9457 problem body, and that a refused
 * request changes nothing. The 500 and 503 tests break the server on purpose and run last.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addUser, basic, deploy, rawSql, startInstance, startServer, workList, type Reply, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
/** Used only for failed logins in the 401 tests. */
const ivan: [string, string] = ['LOCAL\\ivan', 'ivan-password-1'];
/** Locked out by the 429 test. */
const tina: [string, string] = ['LOCAL\\tina', 'tina-password-1'];
const WAIT = { prefer: 'wait=5' };
const UNKNOWN_ID = '0123456789ABCDEF0123456789ABCDEF';
const PROBLEM_KEYS = ['code', 'detail', 'requestId', 'status', 'title', 'type'];
let defId: string;

/** No stack trace, SQL, internal path or driver name in a body. */
function assertNoLeak(text: string): void {
  assert.doesNotMatch(text, /\n\s+at\s|\bat\s+\S+\s+\(|\.ts:\d+|\.js:\d+/, `stack trace in ${text}`);
  assert.doesNotMatch(text, /node_modules|\/work\/|\/tmp\/|[A-Z]:\\\\/, `file path in ${text}`);
  assert.doesNotMatch(text, /\bselect\b[\s\S]*\bfrom\b|\binsert into\b|\bupdate\b\s+\S+\s+set\b|no such table|sqlite|kysely|fastify|FST_/i, `SQL or internals in ${text}`);
}

/** The RFC 9457 body of WIRE.md §Errors. */
function assertProblem(r: Reply, status: number, code?: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json(;|$)/);
  assert.ok(r.json && typeof r.json === 'object', `a JSON problem body: ${r.text}`);
  assert.deepEqual(Object.keys(r.json).sort(), PROBLEM_KEYS, r.text);
  assert.equal(r.json.status, status);
  for (const k of ['type', 'title', 'detail', 'code', 'requestId']) {
    assert.equal(typeof r.json[k], 'string', `${k} is a string`);
    assert.notEqual(r.json[k].trim(), '', `${k} is not empty`);
  }
  assert.ok(r.json.type.endsWith(r.json.code) || /^(https?:|urn:|about:)/.test(r.json.type), `type is a URI: ${r.json.type}`);
  assert.match(r.json.code, /^[A-Za-z][A-Za-z0-9]*$/, 'code is a stable identifier');
  assert.equal(r.json.requestId, r.headers.get('x-request-id'), 'requestId equals X-Request-Id');
  if (code) assert.equal(r.json.code, code, r.text);
  assertNoLeak(r.text);
}

async function role(name: string): Promise<any> {
  const r = await s.get(`/EngineServer/Admin/GetRole/${encodeURIComponent(name)}`);
  assert.equal(r.status, 200, r.text);
  return r.json.GetRoleResult;
}

async function events(pi: string): Promise<any[]> {
  const r = await s.get(`/EngineServer/Workflow/GetEventsByProcInstID/${pi}`);
  assert.equal(r.status, 200, r.text);
  return r.json.GetEventsByProcInstIDResult;
}

/** An instance whose Review item is Assigned to bob. */
async function assignedToBob(): Promise<{ pi: string; wi: string }> {
  const pi = await startInstance(s, defId);
  const wi = (await workList(s, bob, 'New')).find((w) => w.ProcInstID === pi)!.WorkItemID;
  const r = await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, {}, { as: bob, headers: WAIT });
  assert.equal(r.json?.Status, 'Processed', r.text);
  return { pi, wi };
}

before(async () => {
  s = await startServer({ throttle: { maxPerUser: 3, maxPerAddress: 100, windowMs: 60000 } });
  await addUser(s, alice[0], alice[1]);
  await addUser(s, bob[0], bob[1]);
  await addUser(s, ivan[0], ivan[1]);
  await addUser(s, tina[0], tina[1]);
  defId = await deploy(s, 'approval.bpmn');
});
after(() => s.close());

describe('400', () => {
  test('malformed JSON', async () => {
    for (const raw of ['{bad', '{"RoleName": "x",}', '[1,', 'nul']) {
      assertProblem(await s.post('/EngineServer/Admin/UpdateRole', undefined, { raw }), 400, 'InvalidJson');
    }
  });

  test('wrong type, missing required property, out of range', async () => {
    const { wi } = await assignedToBob();
    const base = { SourceWorkItemID: wi, WorkToPerform: 'w', UserID: alice[0], Length: '1', Unit: 'DAY' };
    const wrongType = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { ...base, WorkToPerform: 5 });
    assertProblem(wrongType, 400);
    assert.match(wrongType.json.detail, /WorkToPerform/);
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Administrators', Rights: 'all' }), 400);
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', ['RoleName']), 400);
    for (const missing of ['SourceWorkItemID', 'WorkToPerform', 'UserID', 'Length', 'Unit']) {
      const body: Record<string, unknown> = { ...base };
      delete body[missing];
      const r = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', body);
      assertProblem(r, 400);
      assert.ok(r.json.detail.includes(missing), `detail names ${missing}: ${r.json.detail}`);
    }
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { Description: 'no name' }), 400);
    assertProblem(await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { ...base, Length: '0' }), 400);
  });

  test('bad id, bad user name, unknown Unit', async () => {
    const id = await s.get('/EngineServer/Workflow/GetProcInst/not-32-hex');
    assertProblem(id, 400, 'InvalidId');
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'no-backslash' }), 400, 'InvalidUserName');
    const { wi } = await assignedToBob();
    const unit = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { SourceWorkItemID: wi, WorkToPerform: 'w', UserID: alice[0], Length: '1', Unit: 'FORTNIGHT' });
    assertProblem(unit, 400, 'InvalidUnit');
    assert.match(unit.json.detail, /FORTNIGHT/);
  });
});

describe('401', () => {
  test('no header, a bad password and an unknown user get the same answer, with WWW-Authenticate', async () => {
    const none = await s.get('/EngineServer/Admin/GetRoles', { as: null });
    const badPassword = await s.get('/EngineServer/Admin/GetRoles', { as: [ivan[0], 'wrong-password-1'] });
    const unknown = await s.get('/EngineServer/Admin/GetRoles', { as: ['LOCAL\\ghost', 'ghost-password-1'] });
    const bodies = [];
    for (const r of [none, badPassword, unknown]) {
      assertProblem(r, 401, 'Unauthenticated');
      assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm="Waymark"/);
      const { requestId: _id, ...rest } = r.json;
      bodies.push(rest);
    }
    assert.deepEqual(bodies[1], bodies[0]);
    assert.deepEqual(bodies[2], bodies[0]);
    assert.equal(badPassword.headers.get('www-authenticate'), unknown.headers.get('www-authenticate'));
    const ok = await s.get('/EngineServer/Admin/GetRoles', { as: ivan });
    assert.equal(ok.status, 200, ok.text);
  });

  test('a header that is not Basic DOMAIN\\user:password is 401', async () => {
    for (const header of ['Bearer abc', 'Basic !!!', basic('nodomain', 'x-password-1')]) {
      const r = await s.get('/EngineServer/Admin/GetRoles', { as: null, headers: { authorization: header } });
      assertProblem(r, 401, 'Unauthenticated');
      assert.match(r.headers.get('www-authenticate') ?? '', /^Basic realm="Waymark"/);
    }
  });
});

describe('403', () => {
  test('the detail names the missing right', async () => {
    const { pi, wi } = await assignedToBob();
    const cancel = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: alice });
    assertProblem(cancel, 403, 'AccessDenied');
    assert.match(cancel.json.detail, /Cancel a Process|CancelProcessInstance/);
    const linkReply = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { SourceWorkItemID: wi, WorkToPerform: 'w', UserID: alice[0], Length: '1', Unit: 'DAY' }, { as: bob });
    assertProblem(linkReply, 403, 'AccessDenied');
    assert.match(linkReply.json.detail, /Create a Task|CreateWorkItem/);
    const upd = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Administrators', Description: 'x' }, { as: alice });
    assertProblem(upd, 403, 'AccessDenied');
    assert.match(upd.json.detail, /Add\/Modify Role|AddModifyRole/);
    const reg = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\byalice' }, { as: alice });
    assertProblem(reg, 403, 'AccessDenied');
    assert.match(reg.json.detail, /Add\/Modify User|AddModifyUser/);
  });
});

describe('404', () => {
  test('unknown id, user, role and path', async () => {
    assertProblem(await s.get(`/EngineServer/Workflow/GetProcInst/${UNKNOWN_ID}`), 404, 'ProcessInstanceNotFound');
    assertProblem(await s.get(`/EngineServer/Workflow/GetWorkItem/${UNKNOWN_ID}`), 404, 'WorkItemNotFound');
    assertProblem(await s.get(`/EngineServer/Workflow/GetEvent/${UNKNOWN_ID}`), 404, 'EventNotFound');
    assertProblem(await s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'LOCAL\\nobody' }), 404, 'UserNotFound');
    assertProblem(await s.get('/EngineServer/Admin/GetRole/No%20Such%20Role'), 404, 'RoleNotFound');
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'No Such Role' }), 404, 'RoleNotFound');
    const p = await s.get('/EngineServer/Workflow/NoSuchOperation');
    assertProblem(p, 404, 'NotFound');
    assertProblem(await s.get('/nowhere'), 404);
    const { wi } = await assignedToBob();
    const user = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', { SourceWorkItemID: wi, WorkToPerform: 'w', UserID: 'LOCAL\\nobody', Length: '1', Unit: 'DAY' });
    assertProblem(user, 404, 'UserNotFound');
  });
});

describe('405, 409, 413, 415', () => {
  test('405: a known path with the wrong verb, with Allow', async () => {
    const get = await s.get(`/EngineServer/Workflow/UndoAssignWorkItem/${UNKNOWN_ID}`);
    assertProblem(get, 405, 'MethodNotAllowed');
    assert.equal(get.headers.get('allow'), 'POST');
    const post = await s.post('/EngineServer/Admin/GetRegisterUsers', {});
    assertProblem(post, 405, 'MethodNotAllowed');
    assert.equal(post.headers.get('allow'), 'GET');
  });

  test('409: the target\'s state forbids it now', async () => {
    const pi = await startInstance(s, defId);
    const wi = (await workList(s, bob, 'New')).find((w) => w.ProcInstID === pi)!.WorkItemID;
    const release = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, {});
    assertProblem(release, 409, 'WorkItemNotAssigned');
    assert.ok(release.json.detail.includes(wi));
    const c = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: WAIT });
    assert.equal(c.json?.Status, 'Processed', c.text);
    assertProblem(await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`), 409, 'ProcessInstanceNotActive');
    assertProblem(await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'local\\ALICE' }), 409, 'DuplicateUser');
    assertProblem(await s.post('/EngineServer/Admin/AddRole', { RoleName: 'administrators' }), 409, 'DuplicateRole');
  });

  test('409 DuplicateProcessInstance: CreateProcInst with a ProcessInstID or a ProcInstName (any case) already taken; the id is reported first', async () => {
    const id = 'AB'.repeat(16);
    const first = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcessInstID: id, ProcInstName: 'Order 4711' });
    assert.equal(first.json?.ProcInstID, id, first.text);
    const sameId = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcessInstID: id, ProcInstName: 'Another name' });
    assertProblem(sameId, 409, 'DuplicateProcessInstance');
    assert.equal(sameId.json.detail, `Process instance ${id} already exists.`);
    const sameName = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcInstName: 'ORDER 4711' });
    assertProblem(sameName, 409, 'DuplicateProcessInstance');
    assert.match(sameName.json.detail, /named "ORDER 4711" already exists/);
    const both = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcessInstID: id, ProcInstName: 'order 4711' });
    assert.equal(both.json.detail, `Process instance ${id} already exists.`);
    const free = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcessInstID: 'CD'.repeat(16), ProcInstName: 'Order 4712' });
    assert.equal(free.status, 200, free.text);
  });

  test('409 DuplicateProcessInstance for every concurrent CreateProcInst but one with the same ProcessInstID, or the same ProcInstName; nothing else written', async () => {
    const id = 'EF'.repeat(16);
    const sameId = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcessInstID: id, ProcInstName: `Race ${i}` })),
    );
    assert.equal(sameId.filter((r) => r.status === 200).length, 1, sameId.map((r) => r.text).join('\n'));
    for (const r of sameId.filter((r) => r.status !== 200)) {
      assertProblem(r, 409, 'DuplicateProcessInstance');
      assert.equal(r.json.detail, `Process instance ${id} already exists.`);
    }
    const sameName = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcessInstID: `${i}`.repeat(32), ProcInstName: 'Race for one name' })),
    );
    const won = sameName.filter((r) => r.status === 200);
    assert.equal(won.length, 1, sameName.map((r) => r.text).join('\n'));
    for (const r of sameName.filter((r) => r.status !== 200)) {
      assertProblem(r, 409, 'DuplicateProcessInstance');
      assert.match(r.json.detail, /named "Race for one name" already exists/);
    }
    // The losers left nothing: their ids are free.
    for (let i = 0; i < 8; i++) {
      const pi = `${i}`.repeat(32);
      if (pi === won[0].json.ProcInstID) continue;
      const r = await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`);
      assert.equal(r.status, 404, r.text);
    }
  });

  test('413 and 415', async () => {
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'x', Pad: 'p'.repeat(1024 * 1024 + 1) }), 413, 'PayloadTooLarge');
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'x' }, { contentType: 'text/plain' }), 415, 'UnsupportedMediaType');
  });
});

describe('a 4xx changes nothing', () => {
  test('a rejected UpdateRole leaves the role as it was', async () => {
    const add = await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Steady Role', Description: 'as it was', Rights: [11], Enabled: true });
    assert.equal(add.status, 200, add.text);
    const before = await role('Steady Role');
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Steady Role', Description: 'changed', Enabled: false, Rights: [11, 'Bogus'] }), 400, 'InvalidRight');
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Steady Role', Description: 'changed', Enabled: 'maybe' }), 400);
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Steady Role', Description: 'changed' }, { as: alice }), 403, 'AccessDenied');
    assertProblem(await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Steady Role', Description: 'x'.repeat(4001) }), 400);
    assert.deepEqual(await role('Steady Role'), before);
  });

  test('a rejected CreateLinkedWorkItem creates no work item and no event', async () => {
    const { pi, wi } = await assignedToBob();
    await s.settle();
    const eventsBefore = await events(pi);
    const aliceBefore = await workList(s, alice);
    const base = { SourceWorkItemID: wi, WorkToPerform: 'never', UserID: alice[0], Length: '1', Unit: 'DAY' };
    const rejected: [Record<string, unknown>, number, [string, string]?][] = [
      [{ ...base, Unit: 'EON' }, 400],
      [{ ...base, Length: 'x' }, 400],
      [{ ...base, UserID: 'LOCAL\\nobody' }, 404],
      [{ ...base, SourceWorkItemID: UNKNOWN_ID }, 404],
      [{ ...base, WorkToPerform: 'w'.repeat(1025) }, 400],
      [base, 403, bob],
    ];
    for (const [body, status, as] of rejected) {
      const r = await s.post('/EngineServer/Workflow/CreateLinkedWorkItem', body, as ? { as } : {});
      assertProblem(r, status);
    }
    await s.settle();
    assert.deepEqual(await events(pi), eventsBefore);
    assert.deepEqual(await workList(s, alice), aliceBefore);
  });
});

describe('429', () => {
  test('after 3 failed logins even the right password answers 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await s.get('/EngineServer/Admin/GetRoles', { as: [tina[0], `wrong-password-${i}`] });
      assertProblem(r, 401, 'Unauthenticated');
    }
    const locked = await s.get('/EngineServer/Admin/GetRoles', { as: tina });
    assertProblem(locked, 429, 'TooManyFailedLogins');
    const retry = Number(locked.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry > 0 && retry <= 60, `Retry-After ${locked.headers.get('retry-after')}`);
    const otherCase = await s.get('/EngineServer/Admin/GetRoles', { as: ['local\\TINA', tina[1]] });
    assertProblem(otherCase, 429, 'TooManyFailedLogins');
    const others = await s.get('/EngineServer/Admin/GetRoles', { as: alice });
    assert.equal(others.status, 200, 'other users are not locked out');
  });
});

describe('500 and 503 (they break the server; they run last)', () => {
  test('500 when the database fails: a request id in the body equal to X-Request-Id, no SQL', async () => {
    // GetRegisterUser reads the users table on every call (GetRegisterUsers may answer from memory).
    const read = () => s.post('/EngineServer/Admin/GetRegisterUser', { userName: 'LOCAL\\admin' });
    const ok = await read();
    assert.equal(ok.status, 200, ok.text);
    await rawSql(s, 'ALTER TABLE users RENAME TO users_gone');
    try {
      const r = await read();
      assertProblem(r, 500, 'InternalError');
      assert.ok(r.json.requestId.length > 0);
      assert.equal(r.json.requestId, r.headers.get('x-request-id'));
      assert.doesNotMatch(r.text, /users_gone|users|table/i);
    } finally {
      await rawSql(s, 'ALTER TABLE users_gone RENAME TO users');
    }
    const back = await read();
    assert.equal(back.status, 200, back.text);
  });

  test('503 with Retry-After while the server drains', async () => {
    s.waymark.web.drain();
    for (const r of [
      await s.get('/EngineServer/Admin/GetRegisterUsers'),
      await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Administrators' }),
      await s.get('/EngineServer/Admin/GetRoles', { as: null }),
    ]) {
      assertProblem(r, 503, 'ServiceUnavailable');
      const retry = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry > 0, `Retry-After ${r.headers.get('retry-after')}`);
    }
  });
});
