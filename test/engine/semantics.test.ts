/**
 * BPMN semantics the examples do not show: terminate inside a sub-process, interrupting timers on
 * a sub-process, joins in loops, inclusive joins waiting for tokens upstream, implicit merges,
 * call activities to missing processes, timeDate and FEEL timers, timers firing once when several
 * timer loops race.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Timers } from '../../src/engine/Timers.ts';
import { rawSql, startServer, type TestServer } from '../helpers/harness.ts';
import { bpmnProcess, DAY, FakeClock, flows, HOUR, ProcessDriver, USERS } from '../helpers/processDriver.ts';

let s: TestServer;
let d: ProcessDriver;
let clock: FakeClock;

before(async () => {
  clock = new FakeClock();
  s = await startServer({ now: clock.now });
  d = new ProcessDriver(s, clock);
  await d.setUpPeople();
});
after(() => s.close());

const task = (id: string, user = 'alice') => `<bpmn:userTask id="${id}" camunda:assignee="LOCAL\\${user}" />`;
const timer = (id: string, duration: string, attrs = '') =>
  `<bpmn:intermediateCatchEvent id="${id}" ${attrs}><bpmn:timerEventDefinition><bpmn:timeDuration>${duration}</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>`;

test('a terminate end event inside a sub-process ends that sub-process only; at process level it ends everything', async () => {
  const def = await d.deploy(
    bpmnProcess(
      'Terminate',
      `<bpmn:startEvent id="S" />
       <bpmn:subProcess id="Sub">
         <bpmn:startEvent id="SubStart" /><bpmn:parallelGateway id="SubFork" />
         ${task('Inner')}<bpmn:endEvent id="Stop"><bpmn:terminateEventDefinition /></bpmn:endEvent>
         ${flows('SubStart>SubFork', 'SubFork>Inner', 'SubFork>Stop', 'Inner>Stop')}
       </bpmn:subProcess>
       <bpmn:parallelGateway id="Fork" />${task('Other', 'bob')}${task('After')}
       <bpmn:endEvent id="Kill"><bpmn:terminateEventDefinition /></bpmn:endEvent>
       ${flows('S>Fork', 'Fork>Sub', 'Fork>Other', 'Sub>After', 'After>Kill', 'Other>Kill')}`,
    ),
  );
  const pi = await d.start(def);
  assert.deepEqual(await d.active(pi), ['After', 'Other'], 'the sub-process ended at once: its task was canceled');
  assert.equal((await d.activities(pi)).find((a) => a.Name === 'Inner').TokenPos.Value, 0);
  await d.complete(pi, 'After', 'alice');
  const inst = await d.instance(pi);
  assert.equal(inst.Status, 'Completed');
  assert.equal((await d.activities(pi)).find((a) => a.Name === 'Other').TokenPos.Value, 0, 'the other branch was canceled');
});

test('an interrupting timer on a sub-process cancels everything inside it', async () => {
  const def = await d.deploy(
    bpmnProcess(
      'SubTimeout',
      `<bpmn:startEvent id="S" />
       <bpmn:subProcess id="Sub"><bpmn:startEvent id="SS" />${task('A')}${task('B', 'bob')}<bpmn:endEvent id="SE" />${flows('SS>A', 'A>B', 'B>SE')}</bpmn:subProcess>
       <bpmn:boundaryEvent id="Timeout" attachedToRef="Sub"><bpmn:timerEventDefinition><bpmn:timeDuration>PT8H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
       ${task('Late', 'carol')}<bpmn:endEvent id="E" /><bpmn:endEvent id="E2" />
       ${flows('S>Sub', 'Sub>E', 'Timeout>Late', 'Late>E2')}`,
    ),
  );
  const pi = await d.start(def);
  await d.complete(pi, 'A', 'alice');
  const b = await d.findTask(pi, 'B', 'bob');
  await d.advance(8 * HOUR);
  assert.deepEqual(await d.active(pi), ['Late']);
  assert.equal((await s.get(`/EngineServer/Workflow/GetWorkItem/${b.WorkItemID}`)).json.GetWorkItemResult.Status, 'Canceled');
  const sub = (await d.activities(pi)).find((a) => a.Name === 'Sub');
  assert.equal(sub.TokenPos.Value, 0);
});

test('a parallel join in a loop waits for every branch again in each round', async () => {
  const def = await d.deploy(
    bpmnProcess(
      'LoopJoin',
      `<bpmn:startEvent id="S" /><bpmn:exclusiveGateway id="Merge" /><bpmn:parallelGateway id="Fork" />
       ${task('Left')}${task('Right', 'bob')}<bpmn:parallelGateway id="Join" />
       <bpmn:exclusiveGateway id="Again" default="F8_Again_E" /><bpmn:endEvent id="E" />
       ${flows('S>Merge', 'Merge>Fork', 'Fork>Left', 'Fork>Right', 'Left>Join', 'Right>Join', 'Join>Again', 'Again>E', 'Again>Merge:round < 2')}`,
    ),
  );
  const pi = await d.start(def, { round: 1 });
  await d.complete(pi, 'Left', 'alice');
  await d.complete(pi, 'Right', 'bob', { round: 1 });
  assert.deepEqual(await d.active(pi), ['Left', 'Right'], 'second round');
  await d.complete(pi, 'Right', 'bob', { round: 2 });
  assert.deepEqual(await d.active(pi), ['Join', 'Left'], 'the join of round two waits for Left');
  await d.complete(pi, 'Left', 'alice');
  assert.equal((await d.instance(pi)).Status, 'Completed');
  const joins = (await d.activities(pi)).filter((a) => a.Name === 'Join');
  assert.deepEqual(joins.map((j) => [j.Session, j.Tokens]), [[1, 2], [2, 2]]);
});

test('an inclusive join waits for a token that can still reach it, not for branches never taken', async () => {
  const def = await d.deploy(
    bpmnProcess(
      'Inclusive',
      `<bpmn:startEvent id="S" /><bpmn:inclusiveGateway id="Split" />
       ${task('A')}${task('B', 'bob')}${task('C', 'carol')}<bpmn:serviceTask id="Before" />
       <bpmn:inclusiveGateway id="Join" />${task('Done', 'dave')}<bpmn:endEvent id="E" />
       ${flows('S>Split', 'Split>A:a', 'Split>Before:b', 'Before>B', 'Split>C:c', 'A>Join', 'B>Join', 'C>Join', 'Join>Done', 'Done>E')}`,
    ),
  );
  const pi = await d.start(def, { a: true, b: true, c: false });
  assert.deepEqual(await d.active(pi), ['A', 'B']);
  await d.complete(pi, 'A', 'alice');
  assert.deepEqual(await d.active(pi), ['B', 'Join'], 'B can still reach the join');
  await d.complete(pi, 'B', 'bob');
  assert.deepEqual(await d.active(pi), ['Done']);
  const none = await d.start(def, { a: false, b: false, c: false });
  assert.match((await d.instance(none)).Incident, /Gateway Split has no outgoing flow to take/);
});

test('two tokens into one task (an implicit merge) run it twice', async () => {
  const def = await d.deploy(
    bpmnProcess('Twice', `<bpmn:startEvent id="S" /><bpmn:parallelGateway id="Fork" />${task('Once')}<bpmn:endEvent id="E" />${flows('S>Fork', 'Fork>Once', 'Fork>Once', 'Once>E')}`),
  );
  const pi = await d.start(def);
  const tasks = (await s.post('/EngineServer/Workflow/GetWorkListByUserID', { Status: 'Assigned' }, { as: USERS.alice })).json.filter((w: any) => w.ProcInstID === pi);
  assert.equal(tasks.length, 2);
  assert.deepEqual(tasks.map((t: any) => t.Session).sort(), [1, 2]);
});

test('activity rows as the elements leave them: ordinals in order, sessions counted across events, an incident at a gateway keeps its row', async () => {
  // Events and gateways are written once, in their final state; ordinals and the sessions of a
  // new instance are kept in memory for the event (engine/instanceWrites.ts). This pins the rows.
  const def = await d.deploy(
    bpmnProcess(
      'Rows',
      `<bpmn:startEvent id="S" /><bpmn:exclusiveGateway id="G" />${task('T')}
       <bpmn:exclusiveGateway id="Back" default="F5_Back_E" /><bpmn:endEvent id="E" />
       ${flows('S>G', 'G>T', 'T>Back', 'Back>G:round < 2', 'Back>E')}`,
    ),
  );
  const pi = await d.start(def, { round: 1 });
  await d.complete(pi, 'T', 'alice', { round: 1 });
  await d.complete(pi, 'T', 'alice', { round: 2 });
  assert.equal((await d.instance(pi)).Status, 'Completed');
  const rows = await d.activities(pi);
  assert.deepEqual(
    rows.map((a) => [a.Name, a.Session, a.TokenPos.Value, a.InStack, a.Pending, a.CompletedDate !== NO_DATE]),
    [
      ['S', 1, 2, false, false, true],
      ['G', 1, 2, false, false, true],
      ['T', 1, 2, false, false, true],
      ['Back', 1, 2, false, false, true],
      ['G', 2, 2, false, false, true],
      ['T', 2, 2, false, false, true],
      ['Back', 2, 2, false, false, true],
      ['E', 1, 2, false, false, true],
    ],
  );
  // pi is a generated hex id: safe to put in the text.
  const stored = await rawSql(s, `select ord, status from activity_instances where proc_inst_id = '${pi}' order by ord`);
  assert.deepEqual(stored.map((r) => Number(r.ord)), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.ok(stored.every((r) => r.status === 'Passed'));
  const [row] = await rawSql(s, `select next_activity_ord from process_instances where proc_inst_id = '${pi}'`);
  assert.equal(Number(row.next_activity_ord), 9);

  // A gateway with no flow to take: its row is written, active and pending, and the incident names it.
  const stuck = await deployAndStartStuck();
  const gate = (await d.activities(stuck)).find((a) => a.Name === 'Gate');
  assert.ok(gate, 'the gateway that raised the incident has its row');
  assert.deepEqual([gate.InStack, gate.Pending, gate.TokenPos.Value, gate.CompletedDate], [true, true, 3, NO_DATE]);
  const instance = await d.instance(stuck);
  assert.equal(instance.Status, 'Running');
  assert.match(instance.Incident, /Gateway Gate has no outgoing flow to take/);
});

/** How the wire writes a date that is not set (WIRE.md). */
const NO_DATE = '/Date(-62135596800000+0000)/';

async function deployAndStartStuck(): Promise<string> {
  const def = await d.deploy(
    bpmnProcess('Stuck', `<bpmn:startEvent id="S" /><bpmn:exclusiveGateway id="Gate" />${task('T')}<bpmn:endEvent id="E" />${flows('S>Gate', 'Gate>T:go = true', 'T>E')}`),
  );
  return d.start(def, { go: false });
}

test('an exclusive gateway takes the first flow whose condition holds, in document order', async () => {
  const def = await d.deploy(
    bpmnProcess(
      'First',
      `<bpmn:startEvent id="S" /><bpmn:exclusiveGateway id="G" />${task('One')}${task('Two')}<bpmn:endEvent id="E" />
       ${flows('S>G', 'G>One:level >= 1', 'G>Two:level >= 2', 'One>E', 'Two>E')}`,
    ),
  );
  const pi = await d.start(def, { level: 5 });
  assert.deepEqual(await d.active(pi), ['One']);
});

test('a call to a process that is not released stops with an incident; a child incident shows on the parent', async () => {
  const def = await d.deploy(bpmnProcess('Caller', `<bpmn:startEvent id="S" /><bpmn:callActivity id="Call" calledElement="Callee" /><bpmn:endEvent id="E" />${flows('S>Call', 'Call>E')}`));
  const pi = await d.start(def);
  assert.equal((await d.instance(pi)).Incident, 'Call activity Call calls the process Callee, which has no released version.');
  await d.deploy(bpmnProcess('Callee', `<bpmn:startEvent id="S" /><bpmn:userTask id="Nobody" camunda:assignee="=who" /><bpmn:endEvent id="E" />${flows('S>Nobody', 'Nobody>E')}`));
  const call = (await d.activities(pi)).find((a) => a.Name === 'Call');
  await d.ok(`/EngineServer/Workflow/RollbackProcInst/${call.ID}`);
  await s.settle();
  const parent = await d.instance(pi);
  assert.match(parent.Incident, /^Call activity Call: Child process [0-9A-F]{32} stopped: Task Nobody cannot be given to anyone/);
});

test('timeDate timers and timers computed by FEEL', async () => {
  const at = new Date(clock.ms + 3 * DAY).toISOString();
  const def = await d.deploy(
    bpmnProcess(
      'Dated',
      `<bpmn:startEvent id="S" />
       <bpmn:intermediateCatchEvent id="At"><bpmn:timerEventDefinition><bpmn:timeDate>${at}</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
       ${timer('Computed', '=delay')}<bpmn:endEvent id="E" />${flows('S>At', 'At>Computed', 'Computed>E')}`,
    ),
  );
  const pi = await d.start(def, { delay: 'PT30M' });
  await d.advance(3 * DAY - 1000);
  assert.deepEqual(await d.active(pi), ['At']);
  await d.advance(1000);
  assert.deepEqual(await d.active(pi), ['Computed']);
  await d.advance(30 * 60_000);
  assert.equal((await d.instance(pi)).Status, 'Completed');
  const broken = await d.start(def, { delay: 'soon' });
  await d.advance(3 * DAY);
  assert.match((await d.instance(broken)).Incident, /Timer Computed cannot be set: its timeDuration "soon" is not an ISO 8601 duration/);
});

test('a due timer fires once however many timer loops race for it', async () => {
  const def = await d.deploy(bpmnProcess('Race', `<bpmn:startEvent id="S" />${timer('T', 'PT1M')}${task('After')}<bpmn:endEvent id="E" />${flows('S>T', 'T>After', 'After>E')}`));
  const started = await Promise.all(Array.from({ length: 10 }, () => d.start(def)));
  clock.ms += 60_000;
  const loops = [s.waymark.engine.timers, new Timers(s.waymark.engine.deps, () => {}), new Timers(s.waymark.engine.deps, () => {})];
  const sent = await Promise.all(loops.map((l) => l.fireDue()));
  assert.equal(sent.reduce((a, b) => a + b, 0), 10, 'ten timers, ten events');
  await s.settle();
  for (const pi of started) {
    assert.deepEqual(await d.trail(pi), ['S', 'T', 'After']);
  }
});
