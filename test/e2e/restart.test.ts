/**
 * Restart tests: one instance of every example runs in a real server process; after every move
 * (so at every wait state of every example) the server is killed with SIGKILL and started again
 * on the same data, and each instance must be exactly where it was: the same activities, tasks,
 * events and waiting timers, no token lost or doubled. Timers that come due while the server is
 * down fire once after the restart. A move sent just before the kill is applied exactly once.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADMIN_PASSWORD, basic, databaseEnv, type Reply, type RequestOptions, type TestServer } from '../helpers/harness.ts';
import { DAY, example, HOUR, ProcessDriver, USERS } from '../helpers/processDriver.ts';

const LAUNCHER = path.join(import.meta.dirname, '..', 'helpers', 'clockedServer.ts');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-restart-'));
let child: ChildProcess | null = null;
let url = '';
let offset = 0;
const instances = new Set<string>();

async function startChild(): Promise<void> {
  const database = await databaseEnv(dataDir);
  // On PostgreSQL a batch claimed by the killed server stays claimed until its lease runs out (the
  // new process cannot tell a dead node from a live one): with the default 30 s the move sent just
  // before the kill waited longer than settle() does whenever the kill fell between a claim and
  // its commit. A short lease, as a deployment that wants quick take-over would set.
  const lease = { WAYMARK_CLAIM_LEASE_MS: '1500' };
  const proc = spawn(process.execPath, ['--import', 'tsx', LAUNCHER], {
    env: { ...process.env, WAYMARK_DATA_DIR: dataDir, WAYMARK_PORT: '0', WAYMARK_ADMIN_PASSWORD: ADMIN_PASSWORD, WAYMARK_LOG_LEVEL: 'warn', WAYMARK_MAX_EVENT_LOOP_DELAY_MS: '0', ...lease, ...database },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let log = '';
  url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      log += d;
      const m = /listening (\S+)/.exec(log);
      if (m) resolve(m[1]);
    });
    proc.stderr!.on('data', (d) => (log += d));
    proc.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${log}`)));
  });
}

async function killChild(): Promise<void> {
  const proc = child!;
  child = null;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
}

async function request(method: string, urlPath: string, o: RequestOptions = {}): Promise<Reply> {
  const as = o.as === undefined ? (['LOCAL\\admin', ADMIN_PASSWORD] as [string, string]) : o.as;
  const headers: Record<string, string> = { ...o.headers, ...(as ? { authorization: basic(as[0], as[1]) } : {}) };
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url + urlPath, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text === '' ? undefined : JSON.parse(text) };
}

/** Waits until no event of the instances under test is Sent any more. */
async function settle(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    let busy = false;
    for (const id of instances) {
      const events = (await request('GET', `/EngineServer/Workflow/GetEventsByProcInstID/${id}`)).json.GetEventsByProcInstIDResult;
      if (events.some((e: any) => e.Status === 'Sent')) busy = true;
    }
    if (!busy) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('events stayed Sent');
}

const remote = { request, get: (p: string, o?: RequestOptions) => request('GET', p, o), post: (p: string, b?: unknown, o?: RequestOptions) => request('POST', p, { ...o, body: b }), settle };
const d = new ProcessDriver(remote as unknown as TestServer);

/** Moves the server's clock; the timer loop sees it within a second. */
function advanceClock(ms: number): void {
  offset += ms;
  fs.writeFileSync(path.join(dataDir, 'clock-offset-ms'), String(offset));
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** What a client can see of an instance. */
async function snapshot(id: string): Promise<unknown> {
  const inst = await d.instance(id);
  const activities = (await d.activities(id)).map((a) => [a.Name, a.TokenPos.Value, a.InStack, a.Pending, a.Session, a.Tokens]);
  const events = (await request('GET', `/EngineServer/Workflow/GetEventsByProcInstID/${id}`)).json.GetEventsByProcInstIDResult.map(
    (e: any) => `${e.EventName}:${e.Status}:${e.Entries}`,
  );
  const items = [];
  for (const [name] of Object.values(USERS).concat([['LOCAL\\admin', '']])) {
    const list = (await request('POST', '/EngineServer/Workflow/GetWorkListByUserID', { body: { UserName: name } })).json;
    for (const w of list.filter((x: any) => x.ProcInstID === id)) items.push(`${w.WorkItemID}:${w.Status}:${w.UserID}`);
  }
  return { status: inst.Status, incident: inst.Incident, activities, events, items: items.sort() };
}

async function snapshotAll(): Promise<Record<string, unknown>> {
  const all: Record<string, unknown> = {};
  for (const id of instances) all[id] = await snapshot(id);
  return all;
}

before(async () => {
  await startChild();
  await d.setUpPeople();
});
after(async () => {
  if (child) await killChild();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

type Step = { move: () => Promise<void>; whileDown?: boolean };

test('killed at every wait state of every example, each instance resumes exactly where it was', async () => {
  const defs: Record<string, string> = {};
  for (const name of ['expense-approval', 'onboarding', 'escalation', 'shipping', 'order', 'rework-loop']) defs[name] = await d.deploy(example(`${name}.bpmn`));
  const start = async (name: string, attrs: Record<string, string | number | boolean>, initiator?: [string, string]) => {
    const id = await d.start(defs[name], attrs, initiator);
    instances.add(id);
    return id;
  };
  const expense = await start('expense-approval', { amount: 1500 }, USERS.bob);
  const onboarding = await start('onboarding', { needsLaptop: true, manager: USERS.dave[0] });
  const escalation = await start('escalation', {});
  const order = await start('order', {});
  const review = await start('rework-loop', { reviewer: USERS.bob[0] }, USERS.alice);
  let shipping = '';
  // The child starts with its own event, after the parent's: wait for its first task.
  const findChild = async () => {
    await until('the shipping child to start', async () => {
      const items = (await request('POST', '/EngineServer/Workflow/GetWorkListByUserID', { as: USERS.bob, body: { Status: 'New' } })).json;
      shipping = items.find((w: any) => w.Name === 'Pick')?.ProcInstID ?? '';
      return shipping !== '';
    });
    instances.add(shipping);
  };
  const plans: Step[][] = [
    [{ move: () => d.complete(expense, 'Approve', 'alice', { approved: false }) }, { move: () => d.complete(expense, 'Explain', 'bob') }],
    [
      { move: () => d.complete(onboarding, 'PrepareDesk', 'bob') },
      { move: () => d.complete(onboarding, 'CreateAccount', 'carol') },
      { move: () => d.complete(onboarding, 'OrderLaptop', 'carol') },
      { move: () => d.complete(onboarding, 'Welcome', 'dave') },
    ],
    [
      { whileDown: true, move: async () => advanceClock(4 * HOUR) },
      { move: () => moveClockAndWait(escalation, 2 * DAY, ['Escalate']) },
      { move: () => d.complete(escalation, 'Escalate', 'dave') },
      { move: () => moveClockAndWait(escalation, DAY, []) },
    ],
    [
      { move: async () => (await d.complete(order, 'TakeOrder', 'alice'), await findChild()) },
      { move: () => d.complete(shipping, 'Pick', 'bob') },
      { move: () => d.complete(shipping, 'Pack', 'bob') },
      { move: () => d.complete(shipping, 'HandOver', 'bob') },
      { move: () => d.complete(order, 'Invoice', 'alice') },
    ],
    [
      { move: () => d.complete(review, 'Review', 'bob', { approved: false }) },
      { move: () => d.complete(review, 'Rework', 'alice') },
      { move: () => d.complete(review, 'Review', 'bob', { approved: true }) },
    ],
  ];
  for (let round = 0; round <= Math.max(...plans.map((p) => p.length)); round++) {
    const steps = plans.map((p) => p[round - 1]).filter((s): s is Step => s !== undefined);
    for (const s of steps.filter((s) => !s.whileDown)) await s.move();
    await settle();
    const before = await snapshotAll();
    await killChild();
    for (const s of steps.filter((s) => s.whileDown)) await s.move();
    await startChild();
    if (steps.some((s) => s.whileDown)) await until('the reminder to fire after the restart', async () => (await d.trail(escalation)).includes('Reminded'));
    await settle();
    const after = await snapshotAll();
    for (const id of instances) {
      if (steps.some((s) => s.whileDown) && id === escalation) continue;
      assert.deepEqual(after[id], before[id], `round ${round}: instance ${id} changed across the restart`);
    }
  }
  for (const id of [expense, onboarding, escalation, order, shipping, review]) assert.equal((await d.instance(id)).Status, 'Completed', id);
  const fired = (await request('GET', `/EngineServer/Workflow/GetEventsByProcInstID/${escalation}`)).json.GetEventsByProcInstIDResult.filter(
    (e: any) => e.EventName === 'FireTimer',
  );
  assert.deepEqual(fired.map((e: any) => `${e.Status}:${e.Entries}`), ['Processed:1', 'Processed:1', 'Processed:1'], 'each timer fired once');
  assert.deepEqual((await d.trail(escalation)).filter((n) => n === 'Reminder' || n === 'TooLate'), ['Reminder', 'TooLate']);
});

async function moveClockAndWait(id: string, ms: number, active: string[]): Promise<void> {
  advanceClock(ms);
  await until(`${active.join(', ') || 'the end'} in ${id}`, async () => JSON.stringify(await d.active(id)) === JSON.stringify(active));
}

test('a move sent just before the kill is applied exactly once after the restart', async () => {
  const def = await d.deploy(example('rework-loop.bpmn').replace('id="DocumentReview" name="Document review"', 'id="Review2" name="Review2"'));
  const id = await d.start(def, { reviewer: USERS.bob[0] }, USERS.alice);
  instances.add(id);
  await remote.post(`/EngineServer/Workflow/UpdateProcInst/${id}`, { attributes: [{ Name: 'approved', Value: 'false' }] });
  const task = await d.findTask(id, 'Review', 'bob');
  const sent = await remote.post(`/EngineServer/Workflow/CompleteWorkItem/${task.WorkItemID}`, {}, { as: USERS.bob });
  assert.equal(sent.status, 200);
  await killChild();
  await startChild();
  await settle();
  const event = (await remote.get(`/EngineServer/Workflow/GetEvent/${sent.json.EventID}`)).json.GetEventResult;
  assert.equal(event.Status, 'Processed');
  assert.deepEqual(await d.trail(id), ['Drafted', 'Review', 'Verdict', 'Rework'], 'no token lost or doubled');
});
