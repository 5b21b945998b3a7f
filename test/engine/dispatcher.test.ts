import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WaymarkError } from '../../src/domain/errors.ts';
import { Dispatcher } from '../../src/engine/Dispatcher.ts';
import { EventWaiters } from '../../src/engine/EventWaiters.ts';
import type { EventHandler } from '../../src/engine/handlers/EventHandler.ts';
import { HANDLERS } from '../../src/engine/handlers/index.ts';
import { listAuditOfEvent } from '../../src/store/queries/audit.ts';
import { DIALECT, addUser, deploy, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];

test('events accepted while the dispatcher is stopped are applied after a restart, exactly once', async () => {
  const s = await startServer();
  await addUser(s, alice[0], alice[1]);
  const defId = await deploy(s, 'approval.bpmn');
  await s.waymark.engine.dispatcher.stop();
  const created = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId });
  assert.equal(created.json.Status, 'Sent');
  const dataDir = s.dataDir;
  await s.close();

  const again = await startServer({ dataDir });
  await again.settle();
  const event = await again.get(`/EngineServer/Workflow/GetEvent/${created.json.EventID}`);
  assert.equal(event.json.GetEventResult.Status, 'Processed');
  assert.equal(event.json.GetEventResult.Entries, 1);
  const audit = await listAuditOfEvent(again.waymark.store.db, created.json.EventID);
  assert.equal(audit.filter((a) => a.purpose === 'Start process instance').length, 1);
  assert.equal((await workList(again, alice, 'New')).length, 1);
  await again.close();
});

test('two dispatchers racing over the same events apply each one once', async () => {
  const s = await startServer();
  await addUser(s, alice[0], alice[1]);
  const defId = await deploy(s, 'approval.bpmn');
  const engine = s.waymark.engine;
  await engine.dispatcher.stop();
  const events = [];
  for (let i = 0; i < 30; i++) {
    events.push((await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId })).json.EventID);
  }
  const a = new Dispatcher(engine.deps, new EventWaiters());
  const b = new Dispatcher(engine.deps, new EventWaiters());
  await a.start();
  await b.start();
  a.wake();
  await Promise.all([a.idle(), b.idle()]);
  for (const id of events) {
    const audit = await listAuditOfEvent(engine.deps.store.db, id);
    assert.equal(audit.filter((r) => r.purpose === 'Start process instance').length, 1, `event ${id}`);
    const e = await s.get(`/EngineServer/Workflow/GetEvent/${id}`);
    assert.equal(e.json.GetEventResult.Status, 'Processed');
  }
  assert.equal((await workList(s, alice, 'New')).length, 30);
  await a.stop();
  await b.stop();
  await s.close();
});

test('restarting keeps users, definitions, instances and work items', async () => {
  const s = await startServer();
  await addUser(s, alice[0], alice[1]);
  const defId = await deploy(s, 'approval.bpmn');
  const started = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ProcInstName: 'kept' }, { headers: { prefer: 'wait=5' } });
  const dataDir = s.dataDir;
  await s.close();
  const again = await startServer({ dataDir });
  const inst = await again.get(`/EngineServer/Workflow/GetProcInst/${started.json.ProcInstID}`);
  assert.equal(inst.json.GetProcInstResult.ProcInstName, 'kept');
  assert.equal(inst.json.GetProcInstResult.Status, 'Running');
  const items = await workList(again, alice, 'New');
  assert.equal(items.length, 1);
  assert.equal(items[0].ProcInstID, started.json.ProcInstID);
  await again.close();
});


/**
 * `count` approval instances whose Review item (pool: alice, bob) waits; then, with the dispatcher
 * stopped, alice and then bob ask for every item, so that each instance has two events in the
 * backlog and the events of one instance are not next to each other.
 */
async function contestedItems(count: number): Promise<{ s: TestServer; items: string[]; byAlice: string[]; byBob: string[] }> {
  const s = await startServer();
  await addUser(s, alice[0], alice[1]);
  await addUser(s, bob[0], bob[1]);
  const defId = await deploy(s, 'approval.bpmn');
  for (let i = 0; i < count; i++) await startInstance(s, defId);
  const items = (await workList(s, alice, 'New')).map((w) => w.WorkItemID as string);
  assert.equal(items.length, count);
  await s.waymark.engine.dispatcher.stop();
  const assign = async (id: string, as: [string, string]) => {
    const r = await s.post(`/EngineServer/Workflow/AssignWorkItem/${id}`, {}, { as });
    assert.equal(r.json.Status, 'Sent', r.text);
    return r.json.EventID as string;
  };
  const byAlice = [];
  for (const id of items) byAlice.push(await assign(id, alice));
  const byBob = [];
  for (const id of items) byBob.push(await assign(id, bob));
  return { s, items, byAlice, byBob };
}

async function eventOf(s: TestServer, id: string): Promise<any> {
  return (await s.get(`/EngineServer/Workflow/GetEvent/${id}`)).json.GetEventResult;
}

/** Run a dispatcher of its own over the backlog until it is idle. */
async function drain(s: TestServer): Promise<void> {
  const d = new Dispatcher(s.waymark.engine.deps, new EventWaiters());
  await d.start();
  await d.idle();
  await d.stop();
}

/**
 * drain(), with the real AssignWorkItem handler wrapped: each run counted in `calls`, and the
 * `doomed` event failing after the handler wrote (its item updated, its audit row added).
 */
async function drainWithAssign(s: TestServer, opts: { doomed?: string; calls?: Map<string, number> }): Promise<void> {
  const handlers = HANDLERS as Map<string, EventHandler>;
  const assign = handlers.get('AssignWorkItem')!;
  handlers.set('AssignWorkItem', {
    eventName: 'AssignWorkItem',
    async apply(rc) {
      opts.calls?.set(rc.event.event_id, (opts.calls.get(rc.event.event_id) ?? 0) + 1);
      await assign.apply(rc);
      if (rc.event.event_id === opts.doomed) throw new WaymarkError('InvalidRequest', 'refused after writing, on purpose');
    },
  });
  try {
    await drain(s);
  } finally {
    handlers.set('AssignWorkItem', assign);
  }
}

test('one batch applies the events of each instance in the order they were accepted, in one transaction on SQLite', async () => {
  const { s, items, byAlice, byBob } = await contestedItems(6);
  const store = s.waymark.store;
  // Transactions of the dispatcher that changed rows: one per batch where no other node shares the
  // database (no claim committed on its own); the 12 events fit one batch.
  const raw = store.sqlite;
  let writing = 0;
  const transaction = store.transaction.bind(store);
  store.transaction = (fn) =>
    transaction(async (trx) => {
      const before = raw ? Number((raw.prepare('select total_changes() as n').get() as { n: number }).n) : 0;
      const result = await fn(trx);
      if (raw && Number((raw.prepare('select total_changes() as n').get() as { n: number }).n) > before) writing++;
      return result;
    });
  try {
    await drain(s);
  } finally {
    store.transaction = transaction;
  }
  if (DIALECT === 'sqlite') assert.equal(writing, 1);
  for (let i = 0; i < items.length; i++) {
    assert.equal((await eventOf(s, byAlice[i])).Status, 'Processed');
    const lost = await eventOf(s, byBob[i]);
    assert.equal(lost.Status, 'Failed');
    assert.equal(lost.Error.Code, 'WorkItemNotAvailable');
    const item = (await s.get(`/EngineServer/Workflow/GetWorkItem/${items[i]}`)).json.GetWorkItemResult;
    assert.equal(item.UserID, alice[0]);
    assert.equal((await listAuditOfEvent(store.db, byAlice[i])).filter((a) => a.purpose === 'Assign work item').length, 1);
  }
  await s.close();
});

test('an event that fails after writing leaves no audit rows of its own, and the rest of its batch keeps theirs', async () => {
  const { s, items, byAlice, byBob } = await contestedItems(4);
  const doomed = byAlice[1];
  // The real handler runs (it updates the item and adds its audit row), then the event fails.
  await drainWithAssign(s, { doomed });
  const db = s.waymark.store.db;
  const failed = await eventOf(s, doomed);
  assert.equal(failed.Status, 'Failed');
  assert.equal(failed.Error.Message, 'refused after writing, on purpose');
  const own = await listAuditOfEvent(db, doomed);
  assert.deepEqual(own.map((a) => [a.purpose, a.status]), [['AssignWorkItem', 1]]);
  for (let i = 0; i < items.length; i++) {
    const winner = i === 1 ? byBob[i] : byAlice[i];
    const loser = i === 1 ? null : byBob[i];
    assert.equal((await eventOf(s, winner)).Status, 'Processed');
    assert.deepEqual((await listAuditOfEvent(db, winner)).map((a) => a.purpose), ['Assign work item']);
    if (loser) assert.deepEqual((await listAuditOfEvent(db, loser)).map((a) => [a.purpose, a.status]), [['AssignWorkItem', 1]]);
    const item = (await s.get(`/EngineServer/Workflow/GetWorkItem/${items[i]}`)).json.GetWorkItemResult;
    assert.equal(item.UserID, i === 1 ? bob[0] : alice[0]);
  }
  await s.close();
});

test('a batch is applied as a whole first; when one of its events fails, the batch is applied again with a savepoint per event, each effect once', async (t) => {
  const { s, items, byAlice, byBob } = await contestedItems(4);
  // A failed assertion must not leave the server running (the test process would not end).
  t.after(() => s.close());
  const doomed = byAlice[2];
  const calls = new Map<string, number>();
  await drainWithAssign(s, { doomed, calls });
  // The whole batch ran up to the doomed event, was undone, and ran again event by event. On
  // PostgreSQL a claimed batch is split into parts by instance, applied side by side: only the
  // doomed event's part runs twice, and which events share it is the split's to say.
  if (DIALECT === 'sqlite') {
    const twice = [byAlice[0], byAlice[1], doomed];
    for (const id of [...byAlice, ...byBob]) assert.equal(calls.get(id), twice.includes(id) ? 2 : 1, `handler runs of ${id}`);
  } else {
    assert.equal(calls.get(doomed), 2, 'the doomed event ran in the whole batch, then alone');
    for (const id of [...byAlice, ...byBob]) assert.ok([1, 2].includes(calls.get(id) ?? 0), `handler runs of ${id}: ${calls.get(id)}`);
  }
  const db = s.waymark.store.db;
  assert.equal((await eventOf(s, doomed)).Status, 'Failed');
  assert.deepEqual((await listAuditOfEvent(db, doomed)).map((a) => [a.purpose, a.status]), [['AssignWorkItem', 1]]);
  for (let i = 0; i < items.length; i++) {
    const winner = i === 2 ? byBob[i] : byAlice[i];
    const event = await eventOf(s, winner);
    assert.equal(event.Status, 'Processed');
    assert.equal(event.Entries, 1);
    assert.deepEqual((await listAuditOfEvent(db, winner)).map((a) => a.purpose), ['Assign work item']);
    const item = (await s.get(`/EngineServer/Workflow/GetWorkItem/${items[i]}`)).json.GetWorkItemResult;
    assert.equal(item.UserID, i === 2 ? bob[0] : alice[0]);
  }
});

test('a batch in which nothing fails runs each handler once', async (t) => {
  const s = await startServer();
  t.after(() => s.close());
  await addUser(s, alice[0], alice[1]);
  const defId = await deploy(s, 'approval.bpmn');
  for (let i = 0; i < 5; i++) await startInstance(s, defId);
  const items = (await workList(s, alice, 'New')).map((w) => w.WorkItemID as string);
  await s.waymark.engine.dispatcher.stop();
  const ids: string[] = [];
  for (const id of items) ids.push((await s.post(`/EngineServer/Workflow/AssignWorkItem/${id}`, {}, { as: alice })).json.EventID);
  const calls = new Map<string, number>();
  await drainWithAssign(s, { calls });
  for (const id of ids) {
    assert.equal(calls.get(id), 1);
    assert.equal((await eventOf(s, id)).Status, 'Processed');
  }
});
