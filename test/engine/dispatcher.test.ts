import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dispatcher } from '../../src/engine/Dispatcher.ts';
import { EventWaiters } from '../../src/engine/EventWaiters.ts';
import { listAuditOfEvent } from '../../src/store/queries/audit.ts';
import { addUser, deploy, startServer, workList } from '../helpers/harness.ts';

const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];

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
