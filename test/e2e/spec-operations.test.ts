/**
 * The seven operations of the spec, one by one, against WIRE.md: the WFEvent records of the three
 * state-changing ones, the activity-instance reads, the user list and UpdateRole.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ADMIN, addUser, deploy, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
/** When set, the server's clock stands still at this instant: lets a test put it on a Friday afternoon. */
let frozenNow: number | null = null;

const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
/** No rights, takes part in nothing. */
const carol: [string, string] = ['LOCAL\\carol', 'carol-password-1'];
/** Right 16 ReassignWorkItem only. */
const dana: [string, string] = ['LOCAL\\dana', 'dana-password-1'];
/** Right 2 AddModifyRole only. */
const erin: [string, string] = ['LOCAL\\erin', 'erin-password-1'];
/** Right 23 ViewProcessDetails only. */
const frank: [string, string] = ['LOCAL\\frank', 'frank-password-1'];
/** Right 14 CancelProcessInstance through the role role-of-gina. */
const gina: [string, string] = ['LOCAL\\gina', 'gina-password-1'];

let approvalDef: string;
let directDef: string;

const WAIT = { prefer: 'wait=5' };
const DATE = /^\/Date\((-?\d+)\+0000\)\/$/;
const MIN_DATE = '/Date(-62135596800000+0000)/';
const ID = /^[0-9A-F]{32}$/;
const DAY = 86_400_000;
const HOUR = 3_600_000;

const EVENT_KEYS = [
  'ActivityInstID', 'AutoStart', 'CustomAttributes', 'Diagnostic', 'EndDate', 'Entries', 'Error', 'EventID', 'EventName',
  'HighPriority', 'ParamsXml', 'ParentProcInstID', 'ProcDefID', 'ProcInstID', 'ProcInstName', 'Sender', 'SentDate',
  'SourceWorkItemID', 'Status', 'UserID', 'WorkItemID', 'WorkObjectID', 'WorkObjectInfo',
];
const ROLE_KEYS = ['CreatedBy', 'CreatedDate', 'Description', 'Enabled', 'LastModifiedBy', 'LastModifiedDate', 'Name', 'RightFlags'];
const ACTIVITY_FIELDS = ['CompletedDate', 'DisplayName', 'DueDate', 'ID', 'InStack', 'Name', 'Pending', 'Session', 'StartedDate', 'TokenPos', 'Tokens'];
const USER_FIELDS = [
  'Department', 'EmailAddress', 'FullName', 'Locale', 'Manager', 'OnlineContact', 'RefID', 'RegisteredDate', 'TimeZone', 'Title',
  'UALExpirationDate', 'UALNeverExpires', 'UserName',
];

function ms(date: string): number {
  const m = DATE.exec(date);
  assert.ok(m, `not a wire date: ${date}`);
  return Number(m[1]);
}

/** The [name, value] pairs of a ParamsXml, raw (entities not decoded). */
function params(xml: string): [string, string][] {
  assert.match(xml, /^<WFEvent>(<param name="[^"]*" value="[^"]*"\/>)*<\/WFEvent>$/, `ParamsXml: ${xml}`);
  return [...xml.matchAll(/<param name="([^"]*)" value="([^"]*)"\/>/g)].map((m) => [m[1], m[2]]);
}

function param(xml: string, name: string): string | undefined {
  return params(xml).find(([n]) => n === name)?.[1];
}

function assertSortedKeys(record: Record<string, unknown>, what: string): void {
  const keys = Object.keys(record);
  assert.deepEqual(keys, [...keys].sort(), `${what} keys are not in alphabetical order: ${keys.join(',')}`);
}

/** Every WFEvent field with its type as seen, keys in alphabetical order. */
function assertEventShape(ev: any): void {
  assert.deepEqual(Object.keys(ev), EVENT_KEYS);
  for (const k of ['ActivityInstID', 'EventName', 'ParamsXml', 'ParentProcInstID', 'ProcDefID', 'ProcInstID', 'ProcInstName', 'Sender',
    'SourceWorkItemID', 'Status', 'UserID', 'WorkItemID', 'WorkObjectID', 'WorkObjectInfo']) {
    assert.equal(typeof ev[k], 'string', `${k} is ${typeof ev[k]}`);
  }
  for (const k of ['AutoStart', 'Diagnostic', 'HighPriority']) assert.equal(typeof ev[k], 'boolean', `${k} is ${typeof ev[k]}`);
  assert.ok(Number.isInteger(ev.Entries), 'Entries is an integer');
  assert.match(ev.EventID, ID);
  assert.match(ev.ProcInstID, ID);
  assert.match(ev.SentDate, DATE);
  assert.match(ev.EndDate, DATE);
  assert.equal(ev.CustomAttributes, null);
  assert.equal(ev.Diagnostic, false);
  assert.equal(ev.AutoStart, false, 'AutoStart is true only for CreateProcessInstance');
  assert.ok(['Sent', 'Failed', 'Processed', 'Canceled', 'Deferred'].includes(ev.Status), ev.Status);
}

/** A Sent event as admitted: nothing applied yet. */
function assertFreshlySent(r: { status: number; text: string; json: any; headers: Headers }): void {
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(r.headers.get('preference-applied'), null);
  assert.equal(r.json.Status, 'Sent');
  assert.equal(r.json.Entries, 0);
  assert.equal(r.json.EndDate, MIN_DATE);
  assert.equal(r.json.Error, null);
}

function assertProcessed(r: { status: number; text: string; json: any; headers: Headers }): void {
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.Status, 'Processed', r.text);
  assert.equal(r.headers.get('preference-applied'), 'wait=5');
  assert.equal(r.json.Entries, 1);
  assert.equal(r.json.Error, null);
  assert.notEqual(r.json.EndDate, MIN_DATE);
  assert.ok(ms(r.json.EndDate) >= ms(r.json.SentDate), 'EndDate is not before SentDate');
}

function assertProblem(r: { status: number; text: string; json: any; headers: Headers }, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.json.status, status);
  assert.equal(r.json.code, code, r.text);
  assert.equal(typeof r.json.detail, 'string');
}

async function getWorkItem(id: string): Promise<any> {
  const r = await s.get(`/EngineServer/Workflow/GetWorkItem/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.json.GetWorkItemResult;
}

async function getProcInst(id: string): Promise<any> {
  const r = await s.get(`/EngineServer/Workflow/GetProcInst/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.json.GetProcInstResult;
}

async function getEvent(id: string): Promise<any> {
  const r = await s.get(`/EngineServer/Workflow/GetEvent/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.json.GetEventResult;
}

/** A new approval instance and its pooled Review item (pool: alice, bob). */
async function newApproval(extra: Record<string, unknown> = {}): Promise<{ pi: string; wi: string }> {
  const pi = await startInstance(s, approvalDef, extra);
  const items = (await workList(s, alice, 'New')).filter((w) => w.ProcInstID === pi);
  assert.equal(items.length, 1, 'the Review item is offered to alice');
  return { pi, wi: items[0].WorkItemID };
}

async function assign(wi: string, as: [string, string], clientData: string | null = null): Promise<void> {
  const r = await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, { clientData }, { as, headers: WAIT });
  assert.equal(r.json?.Status, 'Processed', r.text);
}

/** An approval instance whose Review item is Assigned to `as`. */
async function assignedApproval(as: [string, string] = alice, clientData: string | null = null): Promise<{ pi: string; wi: string }> {
  const x = await newApproval();
  await assign(x.wi, as, clientData);
  return x;
}

function link(body: Record<string, unknown>, headers: Record<string, string> = {}, as?: [string, string]) {
  return s.post('/EngineServer/Workflow/CreateLinkedWorkItem', body, { headers, ...(as ? { as } : {}) });
}

/**
 * Run `fn` while the dispatcher applies nothing: the events it admits stay Sent. (On PostgreSQL a
 * group commit applies what it admits too: that tail is taken off meanwhile.)
 */
async function withDispatcherPaused<T>(fn: () => Promise<T>): Promise<T> {
  await s.settle();
  const d = s.waymark.engine.dispatcher as unknown as { wake: () => void };
  d.wake = () => {};
  const tail = s.waymark.store.groupCommitTail;
  s.waymark.store.setGroupCommitTail(null);
  try {
    return await fn();
  } finally {
    delete (d as { wake?: unknown }).wake;
    s.waymark.store.setGroupCommitTail(tail);
  }
}

before(async () => {
  s = await startServer({ now: () => frozenNow ?? Date.now() });
  await addUser(s, alice[0], alice[1]);
  await addUser(s, bob[0], bob[1]);
  await addUser(s, carol[0], carol[1]);
  await addUser(s, dana[0], dana[1], [16]);
  await addUser(s, erin[0], erin[1], [2]);
  await addUser(s, frank[0], frank[1], [23]);
  await addUser(s, gina[0], gina[1], [14]);
  approvalDef = await deploy(s, 'approval.bpmn');
  directDef = await deploy(s, 'wire-direct.bpmn');
});
after(() => s.close());

describe('CreateLinkedWorkItem', () => {
  test('a plain call answers a Sent CreateWorkItem event with every WFEvent field', async () => {
    const { pi, wi } = await assignedApproval(bob);
    const source = await getWorkItem(wi);
    const inst = await getProcInst(pi);
    const r = await link({ SourceWorkItemID: wi, WorkToPerform: 'Check budget', UserID: 'local\\ALICE', Length: '2', Unit: 'DAY' });
    assertFreshlySent(r);
    const ev = r.json;
    assertEventShape(ev);
    assert.equal(ev.EventName, 'CreateWorkItem');
    assert.match(ev.WorkItemID, ID);
    assert.notEqual(ev.WorkItemID, wi);
    assert.equal(ev.SourceWorkItemID, wi);
    assert.equal(ev.ProcInstID, pi);
    assert.equal(ev.ActivityInstID, source.ActivityInstID);
    assert.equal(ev.UserID, 'LOCAL\\alice', 'the participant as registered');
    assert.equal(ev.Sender, ADMIN);
    assert.equal(ev.HighPriority, false);
    assert.equal(ev.ProcDefID, approvalDef);
    assert.equal(ev.ProcInstName, inst.ProcInstName);
    assert.equal(ev.ParentProcInstID, '');
    assert.deepEqual(params(ev.ParamsXml), [
      ['ProcInstID', pi],
      ['ActivityInstID', source.ActivityInstID],
      ['HighPriority', 'False'],
      ['WorkItemID', ev.WorkItemID],
      ['ExpectedTime', '2 DAY'],
      ['workPerformer', 'Check budget'],
      ['SourceWorkItemID', wi],
      ['UserID', 'LOCAL\\alice'],
      ['waitWorkPerformed', 'False'],
      ['Carbon', 'False'],
    ]);
    await s.settle();
    const later = await getEvent(ev.EventID);
    assert.equal(later.Status, 'Processed');
    assert.equal(later.Entries, 1);
    assert.ok(ms(later.EndDate) >= ms(later.SentDate));
    assert.equal(later.SentDate, ev.SentDate);
    const item = await getWorkItem(ev.WorkItemID);
    assert.equal(item.Status, 'Assigned');
    assert.equal(item.UserID, 'LOCAL\\alice');
    assert.equal(item.ProcInstID, pi);
    assert.equal(item.ActivityInstID, source.ActivityInstID);
    assert.equal(item.SourceWorkItemID, wi);
    assert.equal(item.ClientData, null, 'ClientData defaults to null');
    assert.equal(item.DueDate, `/Date(${ms(ev.SentDate) + 2 * DAY}+0000)/`);
    const mine = await workList(s, alice, 'Assigned');
    assert.ok(mine.some((w) => w.WorkItemID === ev.WorkItemID), 'the new task is on the participant\'s work list');
  });

  test('Prefer: wait=5 answers the Processed event with Preference-Applied; business time and bDependent show in ParamsXml', async () => {
    const { wi } = await assignedApproval(bob);
    const r = await link(
      { SourceWorkItemID: wi, WorkToPerform: 'Ask legal', UserID: 'LOCAL\\alice', Length: '3', Unit: 'HOUR', BusinessTime: true, bDependent: true, ClientData: 'cd-1' },
      WAIT,
    );
    assertProcessed(r);
    assertEventShape(r.json);
    assert.equal(r.json.EventName, 'CreateWorkItem');
    assert.equal(param(r.json.ParamsXml, 'ExpectedTime'), '3 HOUR;BusinessTime=True');
    assert.equal(param(r.json.ParamsXml, 'waitWorkPerformed'), 'True');
    assert.equal(param(r.json.ParamsXml, 'Carbon'), 'False');
    const item = await getWorkItem(r.json.WorkItemID);
    assert.equal(item.Status, 'Assigned', 'the item exists when the Processed answer arrives');
    assert.equal(item.ClientData, 'cd-1');
  });

  test('WorkToPerform is XML-escaped in ParamsXml', async () => {
    const { wi } = await assignedApproval(bob);
    const r = await link({ SourceWorkItemID: wi, WorkToPerform: 'Check <budget> & "costs"', UserID: 'LOCAL\\alice', Length: '1', Unit: 'DAY' }, WAIT);
    assert.equal(r.status, 200, r.text);
    assert.equal(param(r.json.ParamsXml, 'workPerformer'), 'Check &lt;budget&gt; &amp; &quot;costs&quot;');
    assert.ok(!r.json.ParamsXml.includes('<budget>'));
  });

  test('DueDate counts calendar time, or business time when BusinessTime is true (Friday + 1 business DAY is Monday)', async () => {
    // The server's clock stands at Friday 2027-01-08 15:00 UTC; the default business calendar is
    // UTC, Monday to Friday, 09:00-17:00, no holidays (src/domain/calendar.ts).
    const friday = Date.UTC(2027, 0, 8, 15, 0, 0);
    frozenNow = friday;
    try {
      const { wi } = await assignedApproval(bob);
      const cases: { body: Record<string, unknown>; expected: string; due: number }[] = [
        { body: { Length: '1', Unit: 'DAY' }, expected: '1 DAY', due: friday + DAY },
        { body: { Length: '1', Unit: 'day', BusinessTime: true }, expected: '1 DAY;BusinessTime=True', due: Date.UTC(2027, 0, 11, 15) },
        { body: { Length: '2', Unit: 'DAY', BusinessTime: true }, expected: '2 DAY;BusinessTime=True', due: Date.UTC(2027, 0, 12, 15) },
        { body: { Length: '3', Unit: 'Hour', BusinessTime: true }, expected: '3 HOUR;BusinessTime=True', due: Date.UTC(2027, 0, 11, 10) },
        { body: { Length: '2', Unit: 'HOUR', BusinessTime: true }, expected: '2 HOUR;BusinessTime=True', due: Date.UTC(2027, 0, 8, 17) },
        { body: { Length: '3', Unit: 'HOUR' }, expected: '3 HOUR', due: friday + 3 * HOUR },
        { body: { Length: '30', Unit: 'SECOND' }, expected: '30 SECOND', due: friday + 30_000 },
        { body: { Length: '5', Unit: 'minute', BusinessTime: false }, expected: '5 MINUTE', due: friday + 300_000 },
        { body: { Length: '1', Unit: 'WEEK' }, expected: '1 WEEK', due: friday + 7 * DAY },
        { body: { Length: '1', Unit: 'WEEK', BusinessTime: true }, expected: '1 WEEK;BusinessTime=True', due: friday + 7 * DAY },
        { body: { Length: '1', Unit: 'MONTH' }, expected: '1 MONTH', due: Date.UTC(2027, 1, 8, 15) },
        { body: { Length: '1', Unit: 'YEAR' }, expected: '1 YEAR', due: Date.UTC(2028, 0, 8, 15) },
        // 2028-01-08 is a Saturday: business time moves on to Monday's start of work.
        { body: { Length: '1', Unit: 'YEAR', BusinessTime: true }, expected: '1 YEAR;BusinessTime=True', due: Date.UTC(2028, 0, 10, 9) },
      ];
      for (const c of cases) {
        const r = await link({ SourceWorkItemID: wi, WorkToPerform: `due ${c.expected}`, UserID: 'LOCAL\\alice', ...c.body }, WAIT);
        assert.equal(r.json?.Status, 'Processed', r.text);
        assert.equal(r.json.SentDate, `/Date(${friday}+0000)/`, 'the server clock is on the Friday');
        assert.equal(param(r.json.ParamsXml, 'ExpectedTime'), c.expected);
        const item = await getWorkItem(r.json.WorkItemID);
        assert.equal(item.DueDate, `/Date(${c.due}+0000)/`, `DueDate of ${c.expected}: ${new Date(ms(item.DueDate)).toISOString()}`);
      }
    } finally {
      frozenNow = null;
    }
  });

  test('bDependent true blocks completing the source with 409 naming the blocking item; false does not', async () => {
    const { wi } = await assignedApproval(bob);
    const dep = await link({ SourceWorkItemID: wi, WorkToPerform: 'Blocking', UserID: 'LOCAL\\alice', Length: '1', Unit: 'DAY', bDependent: true }, WAIT);
    assert.equal(dep.json?.Status, 'Processed', dep.text);
    const blocked = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: bob });
    assertProblem(blocked, 409, 'WorkItemBlocked');
    assert.ok(blocked.json.detail.includes(dep.json.WorkItemID), `detail names the blocking item: ${blocked.json.detail}`);
    assert.equal((await getWorkItem(wi)).Status, 'Assigned');
    const done = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${dep.json.WorkItemID}`, {}, { as: alice, headers: WAIT });
    assert.equal(done.json?.Status, 'Processed', done.text);
    const ok = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: bob, headers: WAIT });
    assert.equal(ok.json?.Status, 'Processed', ok.text);

    const other = await assignedApproval(bob);
    const free = await link({ SourceWorkItemID: other.wi, WorkToPerform: 'Not blocking', UserID: 'LOCAL\\alice', Length: '1', Unit: 'DAY', bDependent: false }, WAIT);
    assert.equal(param(free.json.ParamsXml, 'waitWorkPerformed'), 'False');
    const completed = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${other.wi}`, {}, { as: bob, headers: WAIT });
    assert.equal(completed.status, 200, completed.text);
    assert.equal(completed.json.Status, 'Processed', completed.text);
    assert.equal((await getWorkItem(other.wi)).Status, 'Completed');
    assert.equal((await getWorkItem(free.json.WorkItemID)).Status, 'Assigned', 'the linked task stays open');
  });

  test('needs right 18 CreateWorkItem: 403 naming it, and nothing is created', async () => {
    const { pi, wi } = await assignedApproval(bob);
    const before = (await s.get(`/EngineServer/Workflow/GetEventsByProcInstID/${pi}`)).json.GetEventsByProcInstIDResult.length;
    const r = await link({ SourceWorkItemID: wi, WorkToPerform: 'x', UserID: 'LOCAL\\alice', Length: '1', Unit: 'DAY' }, {}, bob);
    assertProblem(r, 403, 'AccessDenied');
    assert.match(r.json.detail, /Create a Task|CreateWorkItem/);
    const after = (await s.get(`/EngineServer/Workflow/GetEventsByProcInstID/${pi}`)).json.GetEventsByProcInstIDResult.length;
    assert.equal(after, before);
  });
});

describe('UndoAssignWorkItem', () => {
  test('a plain call answers a Sent UndoAssignWorkItem event; the item goes back to its pool', async () => {
    const { pi, wi } = await assignedApproval(alice);
    const item = await getWorkItem(wi);
    const r = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: alice });
    assertFreshlySent(r);
    assertEventShape(r.json);
    assert.equal(r.json.EventName, 'UndoAssignWorkItem');
    assert.equal(r.json.WorkItemID, wi);
    assert.equal(r.json.ProcInstID, pi);
    assert.equal(r.json.ActivityInstID, item.ActivityInstID);
    assert.equal(r.json.Sender, 'LOCAL\\alice');
    assert.equal(r.json.HighPriority, false);
    assert.deepEqual(params(r.json.ParamsXml), [
      ['ProcInstID', pi],
      ['ActivityInstID', item.ActivityInstID],
      ['HighPriority', 'False'],
      ['WorkItemID', wi],
    ]);
    await s.settle();
    assert.equal((await getEvent(r.json.EventID)).Status, 'Processed');
    const released = await getWorkItem(wi);
    assert.equal(released.Status, 'New');
    assert.equal(released.UserID, '');
    assert.ok((await workList(s, bob, 'New')).some((w) => w.WorkItemID === wi), 'the other pool member sees it again');
    await assign(wi, bob);
    assert.equal((await getWorkItem(wi)).UserID, 'LOCAL\\bob');
  });

  test('clientData: null keeps the stored value, "" and a string replace it', async () => {
    const { wi } = await assignedApproval(alice, 'original');
    const keep = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: alice, headers: WAIT });
    assertProcessed(keep);
    assert.equal((await getWorkItem(wi)).ClientData, 'original');

    await assign(wi, alice);
    const empty = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: '' }, { as: alice, headers: WAIT });
    assertProcessed(empty);
    assert.equal((await getWorkItem(wi)).ClientData, '');

    await assign(wi, alice);
    const text = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: 'replaced <x>' }, { as: alice, headers: WAIT });
    assertProcessed(text);
    assert.equal((await getWorkItem(wi)).ClientData, 'replaced <x>');
  });

  test('allowed for the assignee and for a holder of right 16; 403 for anyone else', async () => {
    const { wi } = await assignedApproval(alice);
    const denied = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: carol });
    assertProblem(denied, 403, 'AccessDenied');
    const poolMate = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: bob });
    assertProblem(poolMate, 403, 'AccessDenied');
    assert.equal((await getWorkItem(wi)).Status, 'Assigned');
    const byRight = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: dana, headers: WAIT });
    assertProcessed(byRight);
    assert.equal(byRight.json.Sender, 'LOCAL\\dana');
    assert.equal((await getWorkItem(wi)).Status, 'New');
  });

  test('an admitted release that fails later is Failed with Error {Code, Message}; Prefer: wait=1 answers Sent after a second', async () => {
    const { wi } = await assignedApproval(alice);
    const [first, second] = await withDispatcherPaused(async () => {
      const a = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: alice });
      const started = Date.now();
      const b = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: alice, headers: { prefer: 'wait=1' } });
      const waited = Date.now() - started;
      assert.ok(waited >= 900, `Prefer: wait=1 waited ${waited} ms for an event that cannot move`);
      assert.equal(b.headers.get('preference-applied'), 'wait=1');
      assert.equal(b.json?.Status, 'Sent', b.text);
      assert.equal(b.json.Entries, 0);
      return [a, b];
    });
    assert.equal(first.json?.Status, 'Sent', first.text);
    await s.settle();
    assert.equal((await getEvent(first.json.EventID)).Status, 'Processed');
    const failed = await getEvent(second.json.EventID);
    assertEventShape(failed);
    assert.equal(failed.Status, 'Failed');
    assert.deepEqual(Object.keys(failed.Error ?? {}), ['Code', 'Message']);
    assert.equal(failed.Error.Code, 'WorkItemNotAssigned');
    assert.equal(typeof failed.Error.Message, 'string');
    assert.notEqual(failed.Error.Message, '');
    assert.equal(failed.Entries, 1);
    assert.notEqual(failed.EndDate, MIN_DATE);
    assert.equal((await getWorkItem(wi)).Status, 'New');
  });

  test('409 when the item is not Assigned', async () => {
    const { wi } = await newApproval();
    const r = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null });
    assertProblem(r, 409, 'WorkItemNotAssigned');
    assert.equal((await getWorkItem(wi)).Status, 'New');
  });

  test('a directly assigned item released goes back to the user who held it, who can take it again', async () => {
    const pi = await startInstance(s, directDef);
    const items = (await workList(s, bob, 'Assigned')).filter((w) => w.ProcInstID === pi);
    assert.equal(items.length, 1);
    const wi = items[0].WorkItemID;
    const r = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${wi}`, { clientData: null }, { as: bob, headers: WAIT });
    assertProcessed(r);
    assert.equal((await getWorkItem(wi)).Status, 'New');
    assert.ok((await workList(s, bob, 'New')).some((w) => w.WorkItemID === wi), 'the holder sees it in New');
    const stranger = await s.post(`/EngineServer/Workflow/AssignWorkItem/${wi}`, { clientData: null }, { as: alice });
    assertProblem(stranger, 403, 'AccessDenied');
    await assign(wi, bob);
    const again = await getWorkItem(wi);
    assert.equal(again.Status, 'Assigned');
    assert.equal(again.UserID, 'LOCAL\\bob');
  });

  test('a released linked task goes back to its participant', async () => {
    const { wi } = await assignedApproval(bob);
    const l = await link({ SourceWorkItemID: wi, WorkToPerform: 'Linked', UserID: 'LOCAL\\alice', Length: '1', Unit: 'DAY' }, WAIT);
    const id = l.json.WorkItemID;
    const r = await s.post(`/EngineServer/Workflow/UndoAssignWorkItem/${id}`, {}, { as: alice, headers: WAIT });
    assertProcessed(r);
    assert.ok((await workList(s, alice, 'New')).some((w) => w.WorkItemID === id));
    await assign(id, alice);
    assert.equal((await getWorkItem(id)).UserID, 'LOCAL\\alice');
  });
});

describe('CancelProcInst', () => {
  test('a plain call answers a Sent, high-priority CancelProcessInstance event', async () => {
    const { pi } = await newApproval({ WorkObjID: 'WO-17', WorkObjInfo: 'Order <17>' });
    const inst = await getProcInst(pi);
    const r = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`);
    assertFreshlySent(r);
    assertEventShape(r.json);
    assert.equal(r.json.EventName, 'CancelProcessInstance');
    assert.equal(r.json.ProcInstID, pi);
    assert.equal(r.json.HighPriority, true);
    assert.equal(r.json.WorkItemID, '');
    assert.equal(r.json.Sender, ADMIN);
    assert.equal(r.json.ProcDefID, approvalDef);
    assert.equal(r.json.ProcInstName, inst.ProcInstName);
    assert.equal(r.json.WorkObjectID, 'WO-17');
    assert.equal(r.json.WorkObjectInfo, 'Order <17>');
    assert.equal(r.json.ParentProcInstID, '');
    assert.equal(r.json.ActivityInstID, '');
    assert.equal(r.json.SourceWorkItemID, '');
    assert.equal(param(r.json.ParamsXml, 'ProcInstID'), pi);
    assert.equal(param(r.json.ParamsXml, 'HighPriority'), 'True');
    await s.settle();
    assert.equal((await getEvent(r.json.EventID)).Status, 'Processed');
    assert.equal((await getProcInst(pi)).Status, 'Canceled');
  });

  test('cancels the instance and its open work items, linked ones included', async () => {
    const { pi, wi } = await assignedApproval(bob);
    const l = await link({ SourceWorkItemID: wi, WorkToPerform: 'Linked', UserID: 'LOCAL\\alice', Length: '1', Unit: 'DAY' }, WAIT);
    const r = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: WAIT });
    assertProcessed(r);
    assert.equal(r.json.HighPriority, true);
    assert.equal((await getProcInst(pi)).Status, 'Canceled');
    assert.equal((await getWorkItem(wi)).Status, 'Canceled');
    assert.equal((await getWorkItem(l.json.WorkItemID)).Status, 'Canceled');
    const acts = (await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`)).json.GetActivityInstsByPIIDResult;
    for (const a of acts) assert.equal(a.InStack, false, `${a.Name} is no longer active`);
  });

  test('cancels a waiting automatic work item (GetProcedure shows Canceled)', async () => {
    const { pi, wi } = await assignedApproval(alice);
    const done = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: alice, headers: WAIT });
    assert.equal(done.json?.Status, 'Processed', done.text);
    const found = await s.post('/EngineServer/Workflow/QueryProcedureList', { ColumnName: 'PROC_INST_ID', Operator: 'EQ', WhereClause: pi });
    assert.equal(found.json.length, 1, 'the Archive task waits as an automatic work item');
    const procId: string = found.json[0].WorkItemID;
    const waiting = await s.get(`/EngineServer/Workflow/GetProcedure/${procId}`);
    assert.equal(waiting.json.GetProcedureResult.Status, 'Waiting');
    const r = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: WAIT });
    assertProcessed(r);
    const proc = await s.get(`/EngineServer/Workflow/GetProcedure/${procId}`);
    assert.equal(proc.json.GetProcedureResult.Status, 'Canceled');
    assert.equal((await getProcInst(pi)).Status, 'Canceled');
  });

  test('cancels child and grandchild instances (SuperProcInstID) with their work items', async () => {
    const parent = await newApproval();
    const child = await newApproval({ SuperProcInstID: parent.pi });
    const grandchild = await newApproval({ SuperProcInstID: child.pi });
    assert.equal((await getProcInst(child.pi)).SuperProcInstID, parent.pi);
    const r = await s.post(`/EngineServer/Workflow/CancelProcInst/${parent.pi}`, undefined, { headers: WAIT });
    assertProcessed(r);
    for (const x of [parent, child, grandchild]) {
      assert.equal((await getProcInst(x.pi)).Status, 'Canceled');
      assert.equal((await getWorkItem(x.wi)).Status, 'Canceled');
    }
  });

  test('events of the instance and of its children not yet applied become Canceled', async () => {
    const parent = await newApproval();
    const child = await newApproval({ SuperProcInstID: parent.pi });
    const sent = await withDispatcherPaused(async () => ({
      take: await s.post(`/EngineServer/Workflow/AssignWorkItem/${parent.wi}`, { clientData: null }, { as: alice }),
      childTake: await s.post(`/EngineServer/Workflow/AssignWorkItem/${child.wi}`, { clientData: null }, { as: bob }),
      newChild: await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: approvalDef, SuperProcInstID: parent.pi }),
      grandchild: await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: approvalDef, SuperProcInstID: child.pi }),
      cancel: await s.post(`/EngineServer/Workflow/CancelProcInst/${parent.pi}`),
    }));
    for (const r of Object.values(sent)) assert.equal(r.json?.Status, 'Sent', r.text);
    assert.equal(sent.childTake.json.ParentProcInstID, parent.pi, 'an event of a child instance names its parent');
    assert.equal(sent.grandchild.json.ParentProcInstID, child.pi);
    assert.equal(sent.newChild.json.EventName, 'CreateProcessInstance');
    assert.equal(sent.newChild.json.AutoStart, true, 'AutoStart is true for CreateProcessInstance');
    assert.equal(sent.cancel.json.AutoStart, false);
    await s.settle();
    assert.equal((await getEvent(sent.cancel.json.EventID)).Status, 'Processed');
    for (const name of ['take', 'childTake', 'newChild', 'grandchild'] as const) {
      const ev = await getEvent(sent[name].json.EventID);
      assert.equal(ev.Status, 'Canceled', `${name} (${ev.EventName}) was not yet applied and is Canceled`);
      assert.notEqual(ev.EndDate, MIN_DATE, 'a canceled event has its EndDate');
      assert.equal(ev.Error, null);
    }
    for (const pi of [parent.pi, child.pi, sent.newChild.json.ProcInstID, sent.grandchild.json.ProcInstID]) {
      assert.equal((await getProcInst(pi)).Status, 'Canceled');
    }
    for (const wi of [parent.wi, child.wi]) {
      const item = await getWorkItem(wi);
      assert.equal(item.Status, 'Canceled');
      assert.equal(item.UserID, '', 'the canceled take was never applied');
    }
  });

  test('409 on an already canceled or completed instance', async () => {
    const { pi } = await newApproval();
    const first = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { headers: WAIT });
    assertProcessed(first);
    const again = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`);
    assertProblem(again, 409, 'ProcessInstanceNotActive');

    const done = await startInstance(s, directDef);
    const wi = (await workList(s, bob, 'Assigned')).find((w) => w.ProcInstID === done)!.WorkItemID;
    const c = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: bob, headers: WAIT });
    assert.equal(c.json?.Status, 'Processed', c.text);
    assert.equal((await getProcInst(done)).Status, 'Completed');
    const late = await s.post(`/EngineServer/Workflow/CancelProcInst/${done}`);
    assertProblem(late, 409, 'ProcessInstanceNotActive');
    assert.equal((await getProcInst(done)).Status, 'Completed');
  });

  test('needs right 14 CancelProcessInstance: 403 naming it, and the instance keeps running', async () => {
    const { pi } = await newApproval();
    const r = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: alice });
    assertProblem(r, 403, 'AccessDenied');
    assert.match(r.json.detail, /Cancel a Process|CancelProcessInstance/);
    assert.equal((await getProcInst(pi)).Status, 'Running');
  });
});

describe('GetActivityInstsByPIID and GetActivityInst', () => {
  function assertActivityShape(a: any): void {
    assertSortedKeys(a, 'WFBaseActivityInstance');
    for (const f of ACTIVITY_FIELDS) assert.ok(f in a, `missing ${f}`);
    assert.match(a.ID, ID);
    for (const k of ['Name', 'DisplayName']) assert.equal(typeof a[k], 'string');
    for (const k of ['StartedDate', 'CompletedDate', 'DueDate']) assert.match(a[k], DATE);
    for (const k of ['InStack', 'Pending']) assert.equal(typeof a[k], 'boolean');
    assert.ok(Number.isInteger(a.Session));
    assert.ok(Number.isInteger(a.Tokens));
    assert.deepEqual(Object.keys(a.TokenPos), ['Value']);
    assert.ok(Number.isInteger(a.TokenPos.Value));
  }

  test('every field with its WIRE meaning: passed activities and a waiting user task', async () => {
    const { pi } = await newApproval();
    const r = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json), ['GetActivityInstsByPIIDResult']);
    const acts = r.json.GetActivityInstsByPIIDResult;
    assert.deepEqual(acts.map((a: any) => a.Name), ['Start', 'Review']);
    acts.forEach(assertActivityShape);
    const [start, review] = acts;
    assert.equal(start.DisplayName, 'Request received');
    assert.deepEqual(start.TokenPos, { Value: 2 });
    assert.equal(start.InStack, false);
    assert.equal(start.Pending, false);
    assert.equal(start.Session, 1);
    assert.equal(start.Tokens, 1);
    assert.notEqual(start.CompletedDate, MIN_DATE);
    assert.ok(ms(start.CompletedDate) >= ms(start.StartedDate));

    assert.equal(review.DisplayName, 'Review request');
    assert.deepEqual(review.TokenPos, { Value: 3 });
    assert.equal(review.InStack, true);
    assert.equal(review.Pending, true);
    assert.equal(review.Session, 1);
    assert.equal(review.Tokens, 1);
    assert.equal(review.CompletedDate, MIN_DATE);
    assert.equal(ms(review.DueDate), ms(review.StartedDate) + 2 * DAY, 'waymark:expectedTime="2 DAY"');
    assert.notEqual(start.ID, review.ID);

    const one = await s.get(`/EngineServer/Workflow/GetActivityInst/${review.ID}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(Object.keys(one.json), ['GetActivityInstResult']);
    assert.deepEqual(one.json.GetActivityInstResult, review);
  });

  test('a completed user task is passed (2) and a waiting service task is executing (3) and pending', async () => {
    const { pi, wi } = await assignedApproval(alice);
    const done = await s.post(`/EngineServer/Workflow/CompleteWorkItem/${wi}`, {}, { as: alice, headers: WAIT });
    assert.equal(done.json?.Status, 'Processed', done.text);
    const acts = (await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`)).json.GetActivityInstsByPIIDResult;
    assert.deepEqual(acts.map((a: any) => a.Name), ['Start', 'Review', 'Archive']);
    const [, review, archive] = acts;
    assert.deepEqual(review.TokenPos, { Value: 2 });
    assert.equal(review.InStack, false);
    assert.equal(review.Pending, false);
    assert.notEqual(review.CompletedDate, MIN_DATE);
    assert.equal(archive.DisplayName, 'Archive decision');
    assert.deepEqual(archive.TokenPos, { Value: 3 });
    assert.equal(archive.InStack, true);
    assert.equal(archive.Pending, true);
    assert.equal(archive.CompletedDate, MIN_DATE);
  });

  test('DisplayName is the element id when the element has no name', async () => {
    const pi = await startInstance(s, directDef);
    const acts = (await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`)).json.GetActivityInstsByPIIDResult;
    assert.equal(acts[0].Name, 'Start');
    assert.equal(acts[0].DisplayName, 'Start');
    assert.equal(acts[1].Name, 'Handle');
    assert.equal(acts[1].DisplayName, 'Handle it');
  });

  test('403 for a user without right 23 who takes no part; 200 for a participant and for a holder of right 23', async () => {
    const { pi } = await newApproval();
    const acts = (await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`)).json.GetActivityInstsByPIIDResult;
    const list = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`, { as: carol });
    assertProblem(list, 403, 'AccessDenied');
    assert.match(list.json.detail, /View Process Details|ViewProcessDetails/);
    const one = await s.get(`/EngineServer/Workflow/GetActivityInst/${acts[1].ID}`, { as: carol });
    assertProblem(one, 403, 'AccessDenied');
    for (const who of [alice, frank]) {
      const l = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${pi}`, { as: who });
      assert.equal(l.status, 200, l.text);
      assert.deepEqual(l.json.GetActivityInstsByPIIDResult, acts);
      const o = await s.get(`/EngineServer/Workflow/GetActivityInst/${acts[1].ID}`, { as: who });
      assert.equal(o.status, 200, o.text);
    }
  });

  test('unknown ids are 404, malformed ids 400', async () => {
    const unknown = '0123456789ABCDEF0123456789ABCDEF';
    assertProblem(await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${unknown}`), 404, 'ProcessInstanceNotFound');
    assertProblem(await s.get(`/EngineServer/Workflow/GetActivityInst/${unknown}`), 404, 'ActivityInstanceNotFound');
    assertProblem(await s.get('/EngineServer/Workflow/GetActivityInst/not-an-id'), 400, 'InvalidId');
    assertProblem(await s.get('/EngineServer/Workflow/GetActivityInstsByPIID/0123'), 400, 'InvalidId');
  });
});

describe('GetRegisterUsers', () => {
  test('every registered user with the documented fields, EmailAddress spelling and wire dates', async () => {
    const reg = await s.post('/EngineServer/Admin/RegisterUser', {
      UserName: 'LOCAL\\Henry.Hill', FullName: 'Henry Hill', EMailAddress: 'henry@example.com', Department: 'Sales', Title: 'Rep',
      Manager: 'LOCAL\\alice', Locale: 'en-US', TimeZone: 'UTC', OnlineContact: 'henry-chat', RefID: 'R-1',
    });
    assert.equal(reg.status, 200, reg.text);
    const r = await s.get('/EngineServer/Admin/GetRegisterUsers', { as: carol });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(r.json), ['GetRegisterUsersResult']);
    assert.ok(!r.text.includes('EMailAddress'), 'EmailAddress is never spelled EMailAddress');
    const users = r.json.GetRegisterUsersResult;
    const names = users.map((u: any) => u.UserName);
    for (const n of [ADMIN, alice[0], bob[0], carol[0], dana[0], erin[0], frank[0], gina[0], 'LOCAL\\Henry.Hill']) {
      assert.ok(names.includes(n), `${n} is listed`);
    }
    assert.equal(new Set(names).size, names.length, 'each user once');
    for (const u of users) {
      assertSortedKeys(u, 'registered user');
      for (const f of USER_FIELDS) assert.ok(f in u, `${u.UserName} lacks ${f}`);
      for (const f of USER_FIELDS.filter((x) => !['RegisteredDate', 'UALExpirationDate', 'UALNeverExpires'].includes(x))) {
        assert.ok(typeof u[f] === 'string' || u[f] === null, `${f} of ${u.UserName} is ${typeof u[f]}`);
      }
      assert.match(u.UserName, /^[^\\]+\\[^\\]+$/);
      assert.match(u.RegisteredDate, DATE);
      assert.match(u.UALExpirationDate, DATE);
      assert.equal(typeof u.UALNeverExpires, 'boolean');
    }
    const henry = users.find((u: any) => u.UserName === 'LOCAL\\Henry.Hill');
    assert.equal(henry.EmailAddress, 'henry@example.com');
    assert.equal(henry.FullName, 'Henry Hill');
    assert.equal(henry.Department, 'Sales');
    assert.equal(henry.Title, 'Rep');
    assert.equal(henry.Manager, 'LOCAL\\alice');
    assert.equal(henry.Locale, 'en-US');
    assert.equal(henry.TimeZone, 'UTC');
    assert.equal(henry.OnlineContact, 'henry-chat');
    assert.equal(henry.RefID, 'R-1');
    assert.equal(henry.UALExpirationDate, MIN_DATE, 'an unset UALExpirationDate is 0001-01-01');
    assert.ok(Math.abs(ms(henry.RegisteredDate) - Date.now()) < 60_000, 'RegisteredDate defaults to now');
  });

  test('any authenticated user may list users; without credentials it is 401', async () => {
    const r = await s.get('/EngineServer/Admin/GetRegisterUsers', { as: null });
    assertProblem(r, 401, 'Unauthenticated');
  });
});

describe('UpdateRole', () => {
  async function role(name: string): Promise<any> {
    const r = await s.get(`/EngineServer/Admin/GetRole/${encodeURIComponent(name)}`);
    assert.equal(r.status, 200, r.text);
    return r.json.GetRoleResult;
  }
  function flagsOf(rights: number[]): string {
    return Array.from({ length: 87 }, (_, i) => (rights.includes(i) ? 'Y' : 'N')).join('');
  }

  test('returns the bare updated WFRole; Rights as indexes, names in any case, or mixed', async () => {
    const add = await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Spec Role', Description: 'first', Rights: [11], Enabled: true });
    assert.equal(add.status, 200, add.text);
    const byIndex = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Spec Role', Rights: [11, 14] });
    assert.equal(byIndex.status, 200, byIndex.text);
    assert.equal(byIndex.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(byIndex.json), ROLE_KEYS);
    assert.equal(byIndex.json.Name, 'Spec Role');
    assert.equal(byIndex.json.RightFlags, flagsOf([11, 14]));
    assert.match(byIndex.json.RightFlags, /^[YN]{87}$/);
    assert.equal(byIndex.json.LastModifiedBy, ADMIN);
    assert.match(byIndex.json.LastModifiedDate, DATE);
    assert.notEqual(byIndex.json.LastModifiedDate, MIN_DATE);
    assert.match(byIndex.json.CreatedDate, DATE);
    assert.equal(byIndex.json.CreatedBy, ADMIN);

    const byName = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Spec Role', Rights: ['initiateprocessinstance', 'CANCELPROCESSINSTANCE', 'CreateWorkItem'] });
    assert.equal(byName.status, 200, byName.text);
    assert.equal(byName.json.RightFlags, flagsOf([11, 14, 18]));

    const mixed = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Spec Role', Rights: [23, 'ReassignWorkItem', 'viewprocessdetails'] });
    assert.equal(mixed.status, 200, mixed.text);
    assert.equal(mixed.json.RightFlags, flagsOf([16, 23]));
    assert.deepEqual(await role('Spec Role'), mixed.json, 'GetRole shows what UpdateRole answered');
  });

  test('properties left out are kept', async () => {
    await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Keep Role', Description: 'kept text', Rights: [11, 14], Enabled: true });
    const desc = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Keep Role', Description: 'new text: with spaces & <specials>' });
    assert.equal(desc.status, 200, desc.text);
    assert.equal(desc.json.Description, 'new text: with spaces & <specials>');
    assert.equal(desc.json.Enabled, true);
    assert.equal(desc.json.RightFlags, flagsOf([11, 14]));
    const off = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Keep Role', Enabled: false });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.json.Enabled, false);
    assert.equal(off.json.Description, 'new text: with spaces & <specials>');
    assert.equal(off.json.RightFlags, flagsOf([11, 14]));
    const rights = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Keep Role', Rights: [11] });
    assert.equal(rights.json.Enabled, false);
    assert.equal(rights.json.Description, 'new text: with spaces & <specials>');
    const stored = await role('Keep Role');
    assert.equal(stored.Enabled, false);
    assert.equal(stored.RightFlags, flagsOf([11]));
  });

  test('an unknown right is 400 and changes nothing', async () => {
    await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Bad Rights Role', Description: 'd', Rights: [11] });
    const before = await role('Bad Rights Role');
    for (const bad of [[87], [-1], ['NoSuchRight'], [11, 'Cancel a Process']]) {
      const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Bad Rights Role', Description: 'changed', Rights: bad });
      assertProblem(r, 400, 'InvalidRight');
    }
    assert.deepEqual(await role('Bad Rights Role'), before);
  });

  test('no escalation: a holder of right 2 without right 14 cannot grant 14 (403)', async () => {
    await s.post('/EngineServer/Admin/AddRole', { RoleName: 'Esc Role', Description: 'd', Rights: [11] });
    const before = await role('Esc Role');
    const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Esc Role', Rights: [11, 14] }, { as: erin });
    assertProblem(r, 403, 'AccessDenied');
    assert.match(r.json.detail, /Cancel a Process|CancelProcessInstance|14/);
    assert.deepEqual(await role('Esc Role'), before);
    const desc = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Esc Role', Description: 'by erin' }, { as: erin });
    assert.equal(desc.status, 200, desc.text);
    assert.equal(desc.json.LastModifiedBy, erin[0]);
    const noRight = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Esc Role', Description: 'by carol' }, { as: carol });
    assertProblem(noRight, 403, 'AccessDenied');
    assert.match(noRight.json.detail, /Add\/Modify Role|AddModifyRole/);
    assert.equal((await role('Esc Role')).Description, 'by erin');
  });

  test('the built-in Administrators cannot be disabled or lose rights (409)', async () => {
    const before = await role('Administrators');
    assert.equal(before.RightFlags, 'Y'.repeat(87));
    const off = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Administrators', Enabled: false });
    assertProblem(off, 409, 'BuiltInRoleProtected');
    const fewer = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'Administrators', Rights: [0, 1, 2] });
    assertProblem(fewer, 409, 'BuiltInRoleProtected');
    assert.deepEqual(await role('Administrators'), before);
  });

  test('404 for an unknown role', async () => {
    const r = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'No Such Role', Description: 'x' });
    assertProblem(r, 404, 'RoleNotFound');
  });

  test('a disabled role grants nothing, at once', async () => {
    const { pi } = await newApproval();
    const rights = await s.post('/EngineServer/Admin/GetAccessRights', { userName: gina[0] }, { as: gina });
    assert.deepEqual(rights.json, [14]);
    const off = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'role-of-gina', Enabled: false });
    assert.equal(off.status, 200, off.text);
    const denied = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: gina });
    assertProblem(denied, 403, 'AccessDenied');
    assert.deepEqual((await s.post('/EngineServer/Admin/GetAccessRights', {}, { as: gina })).json, []);
    const on = await s.post('/EngineServer/Admin/UpdateRole', { RoleName: 'role-of-gina', Enabled: true });
    assert.equal(on.status, 200, on.text);
    const allowed = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`, undefined, { as: gina, headers: WAIT });
    assertProcessed(allowed);
  });
});
