/**
 * GetActivityInst, GetWorkItem and GetActivityInstsByPIID answer without a promise when nothing
 * needs one (Engine's `…Now` reads, routes.ts handleNow): on SQLite, outside a transaction, for a
 * caller who holds the operation's right. Everyone else goes through the awaited read. Both paths
 * give the same answers and the same errors, and rights are still decided in the engine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { JsonText } from '../../src/domain/jsonText.ts';
import { findActivityJsonNow } from '../../src/store/queries/activities.ts';
import { findWorkItemJsonNow } from '../../src/store/queries/workItemRecords.ts';
import { deploy, DIALECT, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

const W = '/EngineServer/Workflow';
const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const UNKNOWN = '0123456789ABCDEF0123456789ABCDEF';
let s: TestServer;
let pi: string;
let wi: string;
let activityId: string;

before(async () => {
  s = await startServer({ users: [alice] });
  pi = await startInstance(s, await deploy(s, 'approval.bpmn'));
  // alice holds no right: she reads the instance as a member of the Review item's pool.
  wi = (await workList(s, alice, 'New')).find((w) => w.ProcInstID === pi).WorkItemID;
  activityId = (await s.get(`${W}/GetActivityInstsByPIID/${pi}`)).json.GetActivityInstsByPIIDResult[1].ID;
});
after(() => s.close());

/** Counts the calls of the engine's awaited reads while `fn` runs. */
async function countAwaitedReads(fn: () => Promise<void>): Promise<Record<string, number>> {
  const engine = s.waymark.engine as unknown as Record<string, (...args: unknown[]) => unknown>;
  const names = ['getActivityInst', 'getWorkItem', 'getActivityInstsByPIID'];
  const calls: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  const originals = names.map((n) => engine[n]);
  names.forEach((n, i) => {
    engine[n] = (...args: unknown[]) => {
      calls[n]++;
      return originals[i](...args);
    };
  });
  try {
    await fn();
  } finally {
    names.forEach((n, i) => (engine[n] = originals[i]));
  }
  return calls;
}

const paths = () => ({
  getActivityInst: `${W}/GetActivityInst/${activityId}`,
  getWorkItem: `${W}/GetWorkItem/${wi}`,
  getActivityInstsByPIID: `${W}/GetActivityInstsByPIID/${pi}`,
});

test('a holder of the right is answered at once on SQLite, a participant through the awaited read, with the same answers', async () => {
  const asAdmin: Record<string, unknown> = {};
  const adminCalls = await countAwaitedReads(async () => {
    for (const [name, path] of Object.entries(paths())) {
      const r = await s.get(path);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
      asAdmin[name] = r.json;
    }
  });
  // On PostgreSQL every read is awaited (its driver has no synchronous reads).
  const expected = DIALECT === 'sqlite' ? 0 : 1;
  assert.deepEqual(adminCalls, { getActivityInst: expected, getWorkItem: expected, getActivityInstsByPIID: expected });

  const aliceCalls = await countAwaitedReads(async () => {
    for (const [name, path] of Object.entries(paths())) {
      const r = await s.get(path, { as: alice });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json, asAdmin[name], `${name}: the same answer on both paths`);
    }
  });
  assert.deepEqual(aliceCalls, { getActivityInst: 1, getWorkItem: 1, getActivityInstsByPIID: 1 });
});

test('errors are the same on both paths: 400 for a malformed id, 404 for an unknown one', async () => {
  const cases: [string, number, string][] = [
    [`${W}/GetActivityInst/not-an-id`, 400, 'InvalidId'],
    [`${W}/GetActivityInst/${UNKNOWN}`, 404, 'ActivityInstanceNotFound'],
    [`${W}/GetWorkItem/not-an-id`, 400, 'InvalidId'],
    [`${W}/GetWorkItem/${UNKNOWN}`, 404, 'WorkItemNotFound'],
    [`${W}/GetActivityInstsByPIID/0123`, 400, 'InvalidId'],
    // An empty list is left to the awaited read, which tells "no such instance" apart.
    [`${W}/GetActivityInstsByPIID/${UNKNOWN}`, 404, 'ProcessInstanceNotFound'],
  ];
  for (const [path, status, code] of cases) {
    for (const as of [undefined, alice]) {
      const r = await s.get(path, as ? { as } : {});
      assert.equal(r.status, status, `${path} as ${as?.[0] ?? 'admin'}: ${r.text}`);
      assert.equal(r.json.code, code);
      assert.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    }
  }
});

test('the engine answers at once only for a holder of the right; the store only outside a transaction', async () => {
  const engine = s.waymark.engine;
  const admin = await engine.auth.authenticate('LOCAL\\admin', 'admin-password-1', '127.0.0.1');
  const participant = await engine.auth.authenticate(alice[0], alice[1], '127.0.0.1');
  const now = engine.getActivityInstNow(admin, activityId);
  if (DIALECT === 'sqlite') {
    // The record as JSON text written by SQLite: the same text JSON.stringify makes of the awaited read's record.
    assert.ok(now instanceof JsonText);
    assert.equal(now.text, JSON.stringify(await engine.getActivityInst(admin, activityId)));
    assert.equal((engine.getWorkItemNow(admin, wi) as JsonText).text, JSON.stringify(await engine.getWorkItem(admin, wi)));
    assert.equal((engine.getActivityInstsByPIIDNow(admin, pi) as JsonText).text, JSON.stringify(await engine.getActivityInstsByPIID(admin, pi)));
  } else assert.equal(now, undefined);
  assert.equal(engine.getActivityInstNow(participant, activityId), undefined, 'a participant is decided by a query: awaited');
  assert.equal(engine.getWorkItemNow(participant, wi), undefined);
  assert.equal(engine.getActivityInstsByPIIDNow(participant, pi), undefined);

  const store = s.waymark.store;
  assert.equal(JSON.parse(findActivityJsonNow(store.db, activityId)?.json ?? '{}').ID, DIALECT === 'sqlite' ? activityId : undefined);
  assert.equal(JSON.parse(findWorkItemJsonNow(store.db, wi)?.json ?? '{}').WorkItemID, DIALECT === 'sqlite' ? wi : undefined);
  if (DIALECT === 'sqlite') assert.deepEqual(findActivityJsonNow(store.db, UNKNOWN), { json: undefined }, 'no such row: known at once');
  await store.transaction(async (trx) => {
    assert.equal(findActivityJsonNow(trx, activityId), undefined, 'inside a transaction: awaited on its connection');
    assert.equal(findWorkItemJsonNow(trx, wi), undefined);
  });
});
