/**
 * On an SQLite file, the commands that admit events and the dispatcher run on the writer thread
 * (src/engine/writerThread.ts). Every other SQLite test runs through it too; these check what is
 * particular to it: that it is there, how errors cross, a thread that dies, and turning it off.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { Dispatcher } from '../../src/engine/Dispatcher.ts';
import type { EventWaiters } from '../../src/engine/EventWaiters.ts';
import { createLogger, createWaymark } from '../../src/server.ts';
import { DIALECT, addUser, basic, deploy, startInstance, startServer, workList, type TestServer } from '../helpers/harness.ts';

const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const sqliteOnly = { skip: DIALECT !== 'sqlite' && 'the writer thread is for SQLite files' };

function writerWorker(s: TestServer): Worker | null {
  return (s.waymark.engine as unknown as { writer: { worker: Worker | null } | null }).writer?.worker ?? null;
}

test('commands run on the writer thread; a business error crosses with its code, status and headers', sqliteOnly, async () => {
  const s = await startServer({ users: [alice] });
  try {
    assert.ok(writerWorker(s), 'a writer thread runs');
    assert.ok(!(s.waymark.engine.dispatcher instanceof Dispatcher), 'no dispatcher on the request thread');
    const defId = await deploy(s, 'approval.bpmn');
    const procInstId = await startInstance(s, defId, { Initiator: alice[0] });
    assert.match(procInstId, /^[0-9A-F]{32}$/);
    const missing = await s.post('/EngineServer/Workflow/AssignWorkItem/' + '0'.repeat(31) + '1', undefined, { as: alice });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'WorkItemNotFound');
    assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
    const [item] = await workList(s, alice, 'New');
    const assigned = await s.post(`/EngineServer/Workflow/AssignWorkItem/${item.WorkItemID}`, undefined, { as: alice, headers: { prefer: 'wait=10' } });
    assert.equal(assigned.json.Status, 'Processed');
  } finally {
    await s.close();
  }
});

test("the request thread's reads start a new snapshot whenever the writer thread reports a commit", sqliteOnly, async () => {
  const s = await startServer({ users: [alice] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    // Reads of one turn share a snapshot (src/store/turnSnapshot.ts); the writer thread's answers
    // and final events end it, so that a read made after them sees what they report.
    const store = s.waymark.store;
    let refreshed = 0;
    const original = store.refreshReads.bind(store);
    store.refreshReads = () => {
      refreshed++;
      original();
    };
    const procInstId = await startInstance(s, defId, { Initiator: alice[0] });
    assert.ok(refreshed > 0, 'the answer from the writer thread refreshed the reads');
    const acts = await s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${procInstId}`, { as: alice });
    assert.equal(acts.status, 200);
    assert.ok(acts.json.GetActivityInstsByPIIDResult.length > 0);
  } finally {
    await s.close();
  }
});

test('a writer thread that dies is started again; what it had admitted is applied', sqliteOnly, async () => {
  const s = await startServer({ users: [alice] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    await s.waymark.engine.dispatcher.stop();
    const sent = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId });
    assert.equal(sent.json.Status, 'Sent');
    const dead = writerWorker(s)!;
    await dead.terminate();
    // Meanwhile commands are refused as a retryable 503, not lost.
    const refused = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId });
    assert.equal(refused.status, 503);
    assert.ok(refused.headers.get('retry-after'));
    let again: Worker | null = null;
    for (let i = 0; i < 100 && !again; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = writerWorker(s);
    }
    assert.ok(again && again !== dead, 'a new writer thread');
    await s.settle();
    const applied = await s.get(`/EngineServer/Workflow/GetEvent/${sent.json.EventID}`);
    assert.equal(applied.json.GetEventResult.Status, 'Processed');
    assert.equal(applied.json.GetEventResult.Entries, 1);
    await startInstance(s, defId);
  } finally {
    await s.close();
  }
});

test('WAYMARK_WRITER_THREAD=off runs commands and the dispatcher on the request thread', sqliteOnly, async () => {
  const s = await startServer({ env: { WAYMARK_WRITER_THREAD: 'off' }, users: [alice] });
  try {
    assert.equal(writerWorker(s), null);
    assert.ok(s.waymark.engine.dispatcher instanceof Dispatcher);
    const defId = await deploy(s, 'approval.bpmn');
    await startInstance(s, defId, { Initiator: alice[0] });
    await addUser(s, 'LOCAL\\bob', 'bob-password-1');
    assert.equal((await workList(s, alice, 'New')).length, 1);
  } finally {
    await s.close();
  }
});

test('events admitted by a group commit are applied in its transaction: Processed by the time the admission answers', sqliteOnly, async () => {
  const s = await startServer({ users: [alice] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    // Ten calls at once share group commits; none asks to wait, yet each event is applied in the
    // commit that admitted it, before the answer (Dispatcher.inlineTail).
    const sent = await Promise.all(Array.from({ length: 10 }, () => s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, Initiator: alice[0] })));
    for (const r of sent) {
      assert.equal(r.status, 200);
      assert.equal(r.json.Status, 'Sent', 'the answer is the event as admitted');
      const now = await s.get(`/EngineServer/Workflow/GetEvent/${r.json.EventID}`);
      assert.equal(now.json.GetEventResult.Status, 'Processed');
      assert.equal(now.json.GetEventResult.Entries, 1);
    }
    assert.equal((await workList(s, alice, 'New')).length, 10);
  } finally {
    await s.close();
  }
});

test('only a caller that waits gets a final row across the threads: as its answer, or with the final message when applied later', sqliteOnly, async () => {
  const s = await startServer({ users: [alice] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    const waiters = (s.waymark.engine as unknown as { waiters: EventWaiters }).waiters;
    const crossed: string[] = [];
    const notify = waiters.notify.bind(waiters);
    waiters.notify = (ids, rows) => {
      for (const id of rows?.keys() ?? []) crossed.push(id);
      notify(ids, rows);
    };
    const create = (headers?: Record<string, string>) => s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId }, { headers });
    const plain = await Promise.all(Array.from({ length: 10 }, () => create()));
    for (const r of plain) assert.equal(r.json.Status, 'Sent');
    const waited = await Promise.all(Array.from({ length: 10 }, () => create({ prefer: 'wait=10' })));
    for (const r of waited) assert.equal(r.json.Status, 'Processed', 'applied in the commit that admitted it: the answer is the final row');
    assert.deepEqual(crossed, [], 'no final row crossed with a final message');
    // Applied after its answer (the dispatcher is stopped, so the group commit applies nothing).
    await s.waymark.engine.dispatcher.stop();
    const pending = create({ prefer: 'wait=10' });
    for (let i = 0; i < 500 && waiters.size === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(waiters.size, 1, 'the call waits');
    await s.waymark.engine.dispatcher.start();
    const later = await pending;
    assert.equal(later.json.Status, 'Processed');
    assert.deepEqual(crossed, [later.json.EventID], 'its final row, and only its, came with the final message');
  } finally {
    await s.close();
  }
});

test('WAYMARK_APPLY_IN_GROUP_COMMIT=off leaves events to the dispatcher passes, with the same result', sqliteOnly, async () => {
  const s = await startServer({ env: { WAYMARK_APPLY_IN_GROUP_COMMIT: 'off' }, users: [alice] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    await s.waymark.engine.dispatcher.stop();
    const sent = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, Initiator: alice[0] });
    assert.equal(sent.json.Status, 'Sent');
    const still = await s.get(`/EngineServer/Workflow/GetEvent/${sent.json.EventID}`);
    assert.equal(still.json.GetEventResult.Status, 'Sent', 'nothing applies it while the dispatcher is stopped');
    await s.waymark.engine.dispatcher.start();
    await s.settle();
    const applied = await s.get(`/EngineServer/Workflow/GetEvent/${sent.json.EventID}`);
    assert.equal(applied.json.GetEventResult.Status, 'Processed');
    assert.equal((await workList(s, alice, 'New')).length, 1);
  } finally {
    await s.close();
  }
});

test("lines the writer thread logs for background work (events applied in a group commit) carry no request's id", sqliteOnly, async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l !== '') lines.push(JSON.parse(l));
      done();
    },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-test-writer-log-'));
  const password = 'Admin-Secret-4711x';
  const w = await createWaymark(loadConfig({ WAYMARK_DATA_DIR: dataDir, WAYMARK_PORT: '0', WAYMARK_ADMIN_PASSWORD: password }), { logger: createLogger('info', sink) });
  try {
    const url = await w.listen();
    const call = (p: string, body: unknown) =>
      fetch(url + p, { method: 'POST', headers: { authorization: basic('LOCAL\\admin', password), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const xml = fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'approval.bpmn'), 'utf8');
    const def = (await (await call('/EngineServer/Workflow/CreateProcDef', { Xml: xml })).json()).DefID;
    await call(`/EngineServer/Workflow/ReleaseProcDef/${def}`, {});
    // Applying the event (in the group commit that admits it, on the writer thread) fails: the
    // table its audit row goes to is gone. The admission itself succeeds and answers with its id.
    await sql`alter table audit_trail rename to audit_trail_gone`.execute(w.store.db);
    const r = await call('/EngineServer/Workflow/CreateProcInst', { ProcessID: def });
    assert.equal(r.status, 200);
    const reqId = r.headers.get('x-request-id');
    const failed = () => lines.find((l) => typeof l.msg === 'string' && /applying events in the group commit failed/.test(l.msg));
    for (let i = 0; i < 100 && !failed(); i++) await new Promise((done) => setTimeout(done, 20));
    await sql`alter table audit_trail_gone rename to audit_trail`.execute(w.store.db);
    const line = failed();
    assert.ok(line, `the writer thread logged the failed application: ${JSON.stringify(lines.slice(-5))}`);
    assert.equal(line.reqId, undefined, `a background line carries the request id ${reqId}`);
    assert.ok(lines.filter((l) => l.reqId !== undefined).every((l) => l.reqId === reqId || (l.level as number) < 40), 'no line carries another id');
  } finally {
    await w.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("the writer thread forgets what it keeps when the request thread's connection writes: a member dropped from a pool cannot take its task", sqliteOnly, async () => {
  const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
  const s = await startServer({ users: [alice, bob] });
  try {
    const defId = await deploy(s, 'approval.bpmn');
    // The task's pool is alice and bob; the writer thread inserted the item and keeps it, its pool
    // known (src/store/transactionRows.ts, twenty-sixth round in docs/performance-log.md).
    await startInstance(s, defId, { Initiator: alice[0] });
    const [item] = await workList(s, alice, 'New');
    // On the request thread's own connection: bob unregistered (his pool rows go with him), then
    // registered again under the same name, with no pool.
    const gone = await s.post('/EngineServer/Admin/UnregisterUser', { userName: bob[0] });
    assert.equal(gone.status, 200);
    await addUser(s, bob[0], bob[1]);
    const taken = await s.post(`/EngineServer/Workflow/AssignWorkItem/${item.WorkItemID}`, undefined, { as: bob });
    assert.equal(taken.status, 403, `bob is no longer in the pool: ${taken.text}`);
    const byAlice = await s.post(`/EngineServer/Workflow/AssignWorkItem/${item.WorkItemID}`, undefined, { as: alice, headers: { prefer: 'wait=10' } });
    assert.equal(byAlice.json.Status, 'Processed');
  } finally {
    await s.close();
  }
});
