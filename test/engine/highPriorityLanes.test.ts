/**
 * Where claims are leased (PostgreSQL), a batch of high-priority events (CancelProcInst,
 * SuspendProcInst, ResumeProcInst) is split by instance over the write lanes like any other batch,
 * unless one of those instances has child instances, which canceling or suspending reaches
 * directly: then the batch is applied in one transaction, in claim order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dispatcher } from '../../src/engine/Dispatcher.ts';
import { EventWaiters } from '../../src/engine/EventWaiters.ts';
import { DIALECT, addUser, deploy, startInstance, startServer, type TestServer } from '../helpers/harness.ts';
import { bpmnProcess, flows, ProcessDriver } from '../helpers/processDriver.ts';

const skip = DIALECT !== 'postgres' && 'lanes exist where claims are leased (PostgreSQL)';

/**
 * Apply every Sent event with a fresh dispatcher; the most of its apply transactions (batch parts)
 * open at once. Counted on the dispatcher's own applyPart, not on the store's transactions: other
 * work of the server (timers, group commit) may hold a transaction meanwhile.
 */
async function drainCountingLanes(s: TestServer): Promise<number> {
  const dispatcher = new Dispatcher(s.waymark.engine.deps, new EventWaiters());
  const spied = dispatcher as unknown as { applyPart: (part: unknown) => Promise<unknown> };
  const applyPart = spied.applyPart.bind(dispatcher);
  let open = 0;
  let most = 0;
  spied.applyPart = async (part) => {
    open++;
    most = Math.max(most, open);
    try {
      return await applyPart(part);
    } finally {
      open--;
    }
  };
  try {
    await dispatcher.start();
    await dispatcher.idle();
  } finally {
    await dispatcher.stop();
  }
  return most;
}

async function status(s: TestServer, pi: string): Promise<string> {
  return (await s.get(`/EngineServer/Workflow/GetProcInst/${pi}`)).json.GetProcInstResult.Status;
}

async function cancel(s: TestServer, pi: string): Promise<void> {
  const r = await s.post(`/EngineServer/Workflow/CancelProcInst/${pi}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.Status, 'Sent');
}

test('cancels of instances without children are applied side by side in lanes', { skip }, async (t) => {
  const s = await startServer();
  t.after(() => s.close());
  await addUser(s, 'LOCAL\\alice', 'alice-password-1');
  const defId = await deploy(s, 'approval.bpmn');
  const instances: string[] = [];
  for (let i = 0; i < 8; i++) instances.push(await startInstance(s, defId));
  await s.waymark.engine.dispatcher.stop();
  for (const pi of instances) await cancel(s, pi);
  assert.ok(s.waymark.store.writeLanes > 1);
  const lanes = await drainCountingLanes(s);
  assert.ok(lanes > 1, `${lanes} transaction(s) at once`);
  for (const pi of instances) assert.equal(await status(s, pi), 'Canceled');
});

test('a batch that cancels an instance with a child instance is applied in one transaction, the child canceled with it', { skip }, async (t) => {
  const s = await startServer();
  t.after(() => s.close());
  const d = new ProcessDriver(s);
  await d.setUpPeople();
  const childDef = await d.deploy(bpmnProcess('Child', `<bpmn:startEvent id="S" /><bpmn:userTask id="T" camunda:assignee="LOCAL\\bob" /><bpmn:endEvent id="E" />${flows('S>T', 'T>E')}`));
  const parentDef = await d.deploy(bpmnProcess('Parent', `<bpmn:startEvent id="S" /><bpmn:callActivity id="Call" calledElement="Child" /><bpmn:endEvent id="E" />${flows('S>Call', 'Call>E')}`));
  const parent = await d.start(parentDef);
  const children = (await s.post('/EngineServer/Workflow/QueryProcInstsUsingSQL', { sqlWhereClause: `SUPER_PROC_INST_ID = '${parent}'` })).json;
  assert.equal(children.length, 1);
  const others: string[] = [];
  for (let i = 0; i < 4; i++) others.push(await d.start(childDef));
  await s.waymark.engine.dispatcher.stop();
  await cancel(s, parent);
  for (const pi of others) await cancel(s, pi);
  assert.equal(await drainCountingLanes(s), 1);
  assert.equal(await status(s, parent), 'Canceled');
  assert.equal(await status(s, children[0].ProcInstID), 'Canceled');
  for (const pi of others) assert.equal(await status(s, pi), 'Canceled');
});
