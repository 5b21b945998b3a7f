/**
 * The Query... operations as a client sees them: the conditions of docs/queries.md, who sees
 * which rows, the audit trail, the result cap, and the 400 answers naming what is wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertAudit } from '../../src/store/queries/audit.ts';
import { addUser, deploy, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

let s: TestServer;
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
const mallory: [string, string] = ['LOCAL\\mallory', 'mallory-password-1'];
const viewer: [string, string] = ['LOCAL\\viewer', 'viewer-password-1'];
const WAIT = { prefer: 'wait=5' };
let defId: string;
let pis: string[];
/** Work item of pis[0], taken by bob. */
let bobsItem: string;

const post = (p: string, body: unknown, as?: [string, string]) => s.post(`/EngineServer/${p}`, body, as ? { as } : {});
const ids = (items: { WorkItemID?: string; ProcInstID?: string }[], key: 'WorkItemID' | 'ProcInstID' = 'WorkItemID') => items.map((i) => i[key]).sort();

before(async () => {
  s = await startServer();
  await addUser(s, alice[0], alice[1]);
  await addUser(s, bob[0], bob[1]);
  await addUser(s, mallory[0], mallory[1]);
  await addUser(s, viewer[0], viewer[1], [81, 23]);
  defId = await deploy(s, 'approval.bpmn');
  pis = [];
  for (let i = 0; i < 3; i++) pis.push(await startInstance(s, defId, { WorkObjID: `order-${i}` }));
  bobsItem = (await workList(s, bob, 'New')).find((w) => w.ProcInstID === pis[0])!.WorkItemID;
  const take = await s.post(`/EngineServer/Workflow/AssignWorkItem/${bobsItem}`, {}, { as: bob, headers: WAIT });
  assert.equal(take.json?.Status, 'Processed', take.text);
  await s.settle();
});
after(() => s.close());

describe('QueryWorkList and QueryWorkListUsingSQL', () => {
  const MIN_DATE = '/Date(-62135596800000+0000)/';
  const ms = (d: string) => Number(/-?\d+/.exec(d)![0]);
  /** Every task, as the administrator sees them: what the server's filtering is compared with. */
  let all: any[];
  before(async () => {
    all = (await post('Workflow/QueryWorkListUsingSQL', { sqlWhereClause: '' })).json;
    assert.ok(all.length >= 3, 'one task per instance at least');
  });
  const expect = (pred: (w: any) => boolean) => ids(all.filter(pred));

  test('the helper body: one condition, operator names or codes, user names in any case', async () => {
    const assigned = await post('Workflow/QueryWorkList', { ColumnName: 'STATUS', Operator: 'EQ', WhereClause: 'assigned' });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual(ids(assigned.json), [bobsItem]);
    assert.equal(assigned.json[0].UserID, 'LOCAL\\bob');
    assert.equal(assigned.json[0].DefName, 'Approval');
    const byUser = await post('Workflow/QueryWorkList', { ColumnName: 'user_id', Operator: 2, WhereClause: 'local\\BOB' });
    assert.deepEqual(ids(byUser.json), [bobsItem]);
    const fresh = await post('Workflow/QueryWorkList', { ColumnName: 'STATUS', Operator: 'IN', WhereClause: 'New, Cancelled' });
    assert.deepEqual(ids(fresh.json), expect((w) => w.Status === 'New' || w.Status === 'Canceled'));
    assert.ok(fresh.json.length >= 2);
    const cols = await post('Workflow/QueryWorkList', { ColumnName: 'DUE_DATE', Operator: 'GT', WhereClause: 'CREATED_DATE', IsValue: false });
    assert.deepEqual(ids(cols.json), expect((w) => w.DueDate !== MIN_DATE && ms(w.DueDate) > ms(w.CreatedDate)));
    assert.ok(cols.json.length >= 3);
  });

  test('the WHERE grammar: AND/OR/NOT, LIKE, IN, dates, IS NULL, instance columns', async () => {
    const q = async (where: string) => {
      const r = await post('Workflow/QueryWorkListUsingSQL', { sqlWhereClause: where });
      assert.equal(r.status, 200, `${where}: ${r.text}`);
      return r.json as { WorkItemID: string; ProcInstID: string }[];
    };
    assert.deepEqual(ids(await q(`STATUS = 'Assigned' AND USER_ID LIKE 'local\\B%'`)), [bobsItem]);
    assert.deepEqual(ids(await q(`NOT (STATUS = 'New') OR 1 = 0`)), expect((w) => w.Status !== 'New'));
    assert.deepEqual(ids(await q(`ASSIGNED_DATE IS NULL AND DEF_NAME = 'Approval' AND APPL_NAME = ''`)), expect((w) => w.AssignedDate === MIN_DATE));
    assert.equal((await q(`CREATED_DATE BETWEEN '2000-01-01T00:00:00Z' AND '/Date(4102444800000)/'`)).length, all.length);
    assert.equal((await q(`CREATED_DATE < '2000-01-01'`)).length, 0);
    assert.deepEqual([...new Set(ids(await q(`WORK_OBJECT_ID IN ('order-1', 'order-2')`), 'ProcInstID'))], [pis[1], pis[2]].sort());
    assert.deepEqual([...new Set(ids(await q(`PROC_INST_ID = '${pis[2].toLowerCase()}'`), 'ProcInstID'))], [pis[2]]);
    assert.equal((await q(`NAME LIKE 'review%' AND WAIT_WORK_PERFORMED = FALSE AND SESSION >= 1`)).length, all.length);
  });

  test('without right 81 a user sees only their own tasks and the New tasks of their pools', async () => {
    const mine = await post('Workflow/QueryWorkListUsingSQL', { sqlWhereClause: '1=1' }, alice);
    assert.equal(mine.status, 200, mine.text);
    assert.ok(!ids(mine.json).includes(bobsItem), 'not the task bob took');
    assert.deepEqual(ids(mine.json), expect((w) => w.UserID === 'LOCAL\\alice' || w.Status === 'New'));
    assert.deepEqual(ids((await post('Workflow/QueryWorkList', { ColumnName: 'STATUS', Operator: 'EQ', WhereClause: 'Assigned' }, alice)).json), []);
    assert.deepEqual(ids((await post('Workflow/QueryWorkListUsingSQL', { sqlWhereClause: '' }, bob)).json), expect((w) => w.UserID === 'LOCAL\\bob' || w.Status === 'New'));
    assert.deepEqual((await post('Workflow/QueryWorkListUsingSQL', { sqlWhereClause: '' }, mallory)).json, []);
    const viewerSees = await post('Workflow/QueryWorkListUsingSQL', { sqlWhereClause: "USER_ID = 'LOCAL\\bob'" }, viewer);
    assert.deepEqual(ids(viewerSees.json), [bobsItem], 'right 81 sees everyone\'s tasks');
  });
});

describe('QueryProcInsts, QueryProcInstsUsingSQL, QueryActivityInsts', () => {
  test('conditions on instances, and participants only without right 23', async () => {
    const running = await post('Workflow/QueryProcInsts', { ColumnName: 'STATUS', Operator: 'EQ', WhereClause: 'Running' });
    assert.deepEqual(ids(running.json, 'ProcInstID'), [...pis].sort());
    const sqlForm = await post('Workflow/QueryProcInstsUsingSQL', { sqlWhereClause: "PROC_INITIATOR = 'LOCAL\\ADMIN' AND WORK_OBJECT_ID LIKE 'order-_' AND VERSION = 1" });
    assert.equal(sqlForm.json.length, 3, sqlForm.text);
    assert.equal((await post('Workflow/QueryProcInstsUsingSQL', { sqlWhereClause: '' }, alice)).json.length, 3, 'alice is in every pool');
    assert.deepEqual((await post('Workflow/QueryProcInstsUsingSQL', { sqlWhereClause: '' }, mallory)).json, []);
    assert.equal((await post('Workflow/QueryProcInstsUsingSQL', { sqlWhereClause: '' }, viewer)).json.length, 3);
  });

  test('activity instances of one instance', async () => {
    const r = await post('Workflow/QueryActivityInsts', { ColumnName: 'PROC_INST_ID', Operator: 'EQ', WhereClause: pis[0] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.map((a: { Name: string }) => a.Name), ['Start', 'Review']);
    const active = await post('Workflow/QueryActivityInsts', { ColumnName: 'IN_STACK', Operator: 'EQ', WhereClause: 'true' });
    assert.equal(active.json.length, 3);
    assert.deepEqual((await post('Workflow/QueryActivityInsts', { ColumnName: 'PROC_INST_ID', Operator: 'EQ', WhereClause: pis[0] }, mallory)).json, []);
  });
});

describe('QueryRegisterUsersUsingSQL and QueryAuditTrail', () => {
  test('registered users by any profile column; never a password', async () => {
    const r = await post('Admin/QueryRegisterUsersUsingSQL', { sqlWhereClause: "USER_NAME LIKE 'local\\%' AND FULL_NAME IN ('alice', 'bob') AND NOT DISABLED" }, mallory);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.map((u: { UserName: string }) => u.UserName), ['LOCAL\\alice', 'LOCAL\\bob']);
    assert.doesNotMatch(r.text, /scrypt|password/i);
    const bad = await post('Admin/QueryRegisterUsersUsingSQL', { sqlWhereClause: 'PASSWORD_HASH IS NOT NULL' });
    assert.equal(bad.status, 400);
    assert.match(bad.json.detail, /unknown column "PASSWORD_HASH" at position 1; the columns are DEPARTMENT, DISABLED, /);
  });

  test('the audit trail: who, when, what; right 23 needed', async () => {
    const r = await post('Workflow/QueryAuditTrail', { where: "CATEGORY = 7 AND PURPOSE = 'Register user' AND OBJECT_ID = 'LOCAL\\alice'" });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.length, 1);
    const [item] = r.json;
    assert.deepEqual(Object.keys(item), ['Category', 'DateOccurred', 'Description', 'ObjectID', 'ObjectInfo', 'Performer', 'Purpose', 'Status']);
    assert.equal(item.Performer, 'LOCAL\\admin');
    assert.match(item.DateOccurred, /^\/Date\(\d+\+0000\)\/$/);
    assert.equal(item.Status, 0);
    const released = await post('Workflow/QueryAuditTrail', { sql: "CATEGORY = 0 AND PURPOSE = 'Release process definition'" });
    assert.deepEqual(released.json.map((a: { ObjectID: string }) => a.ObjectID), [defId]);
    const taken = await post('Workflow/QueryAuditTrail', { where: `OBJECT_ID = '${bobsItem}' AND PERFORMER = 'local\\bob'` }, viewer);
    assert.deepEqual(taken.json.map((a: { Purpose: string }) => a.Purpose), ['Assign work item']);
    const denied = await post('Workflow/QueryAuditTrail', { where: '' }, alice);
    assert.equal(denied.status, 403);
    assert.match(denied.json.detail, /ViewProcessDetails/);
  });

  test('at most 10,000 records; Waymark-Result-Truncated says when more matched', async () => {
    const rows = Array.from({ length: 10_050 }, (_, i) => ({
      category: 11, date_occurred: 1_700_000_000_000 + i, description: `bulk ${i}`, object_id: `bulk-${i}`,
      object_info: '', performer: 'LOCAL\\admin', purpose: 'Bulk', status: 0, event_id: null,
    }));
    for (let i = 0; i < rows.length; i += 500) await insertAudit(s.waymark.store.db, rows.slice(i, i + 500));
    const r = await post('Workflow/QueryAuditTrail', { where: 'CATEGORY = 11' });
    assert.equal(r.status, 200);
    assert.equal(r.json.length, 10_000);
    assert.equal(r.headers.get('waymark-result-truncated'), '10000');
    assert.equal(r.json[0].ObjectID, 'bulk-0', 'oldest first');
    const fewer = await post('Workflow/QueryAuditTrail', { where: "CATEGORY = 11 AND DATE_OCCURRED >= 1700000010000" });
    assert.equal(fewer.json.length, 50);
    assert.equal(fewer.headers.get('waymark-result-truncated'), null);
  });
});

describe('400 answers say what is wrong', () => {
  for (const [op, body, detail] of [
    ['Workflow/QueryWorkListUsingSQL', { sqlWhereClause: "STATUS = 'New';" }, /sqlWhereClause: unexpected character ";" at position 15/],
    ['Workflow/QueryWorkListUsingSQL', { sqlWhereClause: 42 }, /sqlWhereClause must be a string|sqlWhereClause must be string/],
    ['Workflow/QueryWorkList', { ColumnName: 'STATUS', Operator: 'SOUNDS', WhereClause: 'x' }, /Operator must be one of EQ, NE/],
    ['Workflow/QueryWorkList', { ColumnName: 'SESSION', Operator: 'EQ', WhereClause: 'one' }, /SESSION is a whole number; 'one' is not one/],
    ['Workflow/QueryWorkList', { Operator: 'EQ', WhereClause: 'x' }, /ColumnName is required/],
    ['Workflow/QueryProcInstsUsingSQL', { sqlWhereClause: "STARTED_DATE > 'yesterday'" }, /STARTED_DATE is a date/],
    ['Workflow/QueryAuditTrail', { where: 'CATEGORY = 1 OR' }, /where: expected a column name or a value, found the end of the condition at position 16/],
  ] as const) {
    test(`${op} ${JSON.stringify(body)}`, async () => {
      const r = await post(op, body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'InvalidRequest');
      assert.match(r.json.detail, detail);
    });
  }
});
