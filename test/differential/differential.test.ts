/**
 * Differential test: the same models run through Waymark and through bpmn-engine (an independent
 * reading of BPMN 2.0), with the same moves (tasks completed, timers due) in the same order; both
 * must reach the same elements after every move. Models: the examples of examples/ and 200
 * generated ones (generator.ts). Where bpmn-engine is wrong, the case is pinned below with what
 * BPMN prescribes and what bpmn-engine does instead, so that either changing shows up here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DIALECT, startServer, type TestServer } from '../helpers/harness.ts';
import { example, FakeClock } from '../helpers/processDriver.ts';
import { drive, randomPolicy, scriptedPolicy, type Move, type Trace } from './drive.ts';
import { envelope, generateModel, rng } from './generator.ts';
import { BpmnEngineRun, WaymarkRun, type Attributes } from './runners.ts';

const GENERATED = 200;
/**
 * The engines' semantics do not depend on the database, so the PostgreSQL pass of `npm test`
 * replays every fifth model only (it checks that the same runs work on that store, in a third of
 * the time).
 */
const STRIDE = DIALECT === 'postgres' ? 5 : 1;
const ADMIN = 'LOCAL\\admin';

let s: TestServer;
let clock: FakeClock;

before(async () => {
  clock = new FakeClock();
  s = await startServer({ now: clock.now });
  // The examples' pools name these groups; the administrator drives every task.
  for (const group of ['Approvers', 'Facilities', 'IT', 'Support', 'Supervisors', 'Warehouse']) {
    await s.post('/EngineServer/Admin/AddGroup', { GroupName: group });
    await s.post('/EngineServer/Admin/AddGroupMember', { GroupName: group, UserName: ADMIN });
  }
});
after(() => s.close());

async function runBoth(xml: string, attributes: Attributes, policyOf: () => Parameters<typeof drive>[2]): Promise<[Trace, Trace]> {
  const waymark = await WaymarkRun.start(s.waymark.engine, clock, xml, attributes);
  const other = await BpmnEngineRun.start(xml, attributes, clock.ms);
  const traces = await drive(waymark, other, policyOf());
  assert.deepEqual(other.errors, [], 'bpmn-engine raised an error');
  return traces;
}

function assertSame([waymark, other]: [Trace, Trace], what: string): void {
  assert.deepEqual(waymark.steps, other.steps, `${what}: the elements reached differ (Waymark first, bpmn-engine second)`);
  assert.equal(waymark.end, other.end, `${what}: the runs ended in different states`);
  assert.equal(waymark.end, 'tasks []', `${what}: the run did not finish`);
}

describe('the examples', () => {
  const cases: { file: string; attributes: Attributes; script: Move[] }[] = [
    { file: 'expense-approval.bpmn', attributes: { amount: 400 }, script: [] },
    { file: 'expense-approval.bpmn', attributes: { amount: 1500 }, script: [{ complete: 'Approve', set: { approved: true } }] },
    { file: 'expense-approval.bpmn', attributes: { amount: 1500 }, script: [{ complete: 'Approve', set: { approved: false } }] },
    { file: 'escalation.bpmn', attributes: {}, script: ['timer', 'timer', { complete: 'Escalate' }, 'timer'] },
    { file: 'escalation.bpmn', attributes: {}, script: ['timer', { complete: 'Solve' }, 'timer'] },
    { file: 'shipping.bpmn', attributes: {}, script: [] },
    {
      file: 'rework-loop.bpmn',
      attributes: { reviewer: ADMIN },
      script: [
        { complete: 'Review', set: { approved: false } },
        { complete: 'Rework' },
        { complete: 'Review', set: { approved: false } },
        { complete: 'Rework' },
        { complete: 'Review', set: { approved: true } },
      ],
    },
    { file: 'onboarding.bpmn', attributes: { manager: ADMIN }, script: [] },
  ];
  for (const c of cases) {
    test(`${c.file} ${JSON.stringify(c.attributes)}`, async () => {
      assertSame(await runBoth(example(c.file), c.attributes, () => scriptedPolicy(c.script)), c.file);
    });
  }
});

/**
 * Seeds whose runs differ only because bpmn-engine runs a parallel join early (the known defect
 * pinned below: a path not taken leaks through an exclusive merge). Pinned so that a change in
 * either engine, or in the generator, shows up.
 */
const EARLY_JOIN_SEEDS = [47, 57, 66, 83, 92, 98, 137, 142, 145, 150, 174, 177, 200];

test(`${GENERATED} generated models reach the same elements in both engines`, async () => {
  const unexplained: string[] = [];
  const earlyJoin: number[] = [];
  for (let seed = 1; seed <= GENERATED; seed += STRIDE) {
    const model = generateModel(seed);
    const traces = await runBoth(model.xml, model.attributes, () => randomPolicy(rng(seed * 7919)));
    try {
      assertSame(traces, `seed ${seed}`);
    } catch (e) {
      if (isEarlyParallelJoin(traces, model.xml)) earlyJoin.push(seed);
      else unexplained.push(`${(e as Error).message}\n${model.xml}`);
    }
  }
  if (process.env.DIFF_OUT) (await import('node:fs')).writeFileSync(process.env.DIFF_OUT, unexplained.join('\n\n========\n\n'));
  assert.deepEqual(unexplained.slice(0, 3), [], `${unexplained.length} of ${GENERATED} generated models diverged for an unknown reason`);
  const expected = EARLY_JOIN_SEEDS.filter((seed) => (seed - 1) % STRIDE === 0);
  assert.deepEqual(earlyJoin, expected, 'the models where bpmn-engine runs a parallel join early');
});

/**
 * The known bpmn-engine defect: at the first move where the runs differ, bpmn-engine ran a
 * parallel join that Waymark has not run yet, while Waymark still has a task or timer open
 * (a branch of that join is still on its way).
 */
function isEarlyParallelJoin([waymark, other]: [Trace, Trace], xml: string): boolean {
  const i = waymark.steps.findIndex((step, n) => JSON.stringify(step) !== JSON.stringify(other.steps[n]));
  if (i < 0) return false;
  const joins = new Set([...xml.matchAll(/<bpmn:parallelGateway id="(\w+j)"/g)].map((m) => m[1]));
  const reachedByWaymark = new Set(waymark.steps.slice(0, i + 1).flat());
  const early = (other.steps[i] ?? []).filter((id) => joins.has(id) && !reachedByWaymark.has(id));
  return early.length > 0 && (waymark.states[i] ?? waymark.end) !== 'tasks []';
}

/**
 * Known divergences, where bpmn-engine (25.0.1, bpmn-elements 17) is wrong. Each pins both
 * traces: Waymark's is what BPMN 2.0 prescribes; bpmn-engine's is its current answer.
 */
describe('known divergences, pinned', () => {
  test('a converging inclusive gateway: bpmn-engine does not wait, it runs once per arriving token', async () => {
    // BPMN 2.0 §13.3.5: the inclusive join waits until no token can still arrive, then runs once.
    const xml = envelope(
      'InclusiveJoin',
      `<bpmn:startEvent id="Start" /><bpmn:inclusiveGateway id="Split" />
       <bpmn:userTask id="A" camunda:assignee="LOCAL\\admin" /><bpmn:userTask id="B" camunda:assignee="LOCAL\\admin" />
       <bpmn:inclusiveGateway id="Join" /><bpmn:endEvent id="End" />
       <bpmn:sequenceFlow id="F1" sourceRef="Start" targetRef="Split" />
       <bpmn:sequenceFlow id="F2" sourceRef="Split" targetRef="A"><bpmn:conditionExpression>a</bpmn:conditionExpression></bpmn:sequenceFlow>
       <bpmn:sequenceFlow id="F3" sourceRef="Split" targetRef="B"><bpmn:conditionExpression>b</bpmn:conditionExpression></bpmn:sequenceFlow>
       <bpmn:sequenceFlow id="F4" sourceRef="A" targetRef="Join" /><bpmn:sequenceFlow id="F5" sourceRef="B" targetRef="Join" />
       <bpmn:sequenceFlow id="F6" sourceRef="Join" targetRef="End" />`,
    );
    const [waymark, other] = await runBoth(xml, { a: true, b: true }, () => scriptedPolicy([{ complete: 'A' }, { complete: 'B' }]));
    assert.deepEqual(waymark.steps, [['A', 'B', 'Split', 'Start'], [], ['End', 'Join']]);
    assert.deepEqual(other.steps, [['A', 'B', 'Split', 'Start'], ['End', 'Join'], ['End', 'Join']]);
  });

  test('a path not taken leaks through an exclusive merge: bpmn-engine runs the parallel join early', async () => {
    // BPMN 2.0 §13.3.2/§13.3.4: an exclusive merge passes on the tokens that arrive; the parallel
    // join waits for a token on each incoming flow. bpmn-engine's dead-path elimination sends the
    // branch not taken (Skip) through the merge, and its parallel join counts that as an arrival.
    const xml = envelope(
      'EarlyJoin',
      `<bpmn:startEvent id="Start" /><bpmn:parallelGateway id="Fork" /><bpmn:parallelGateway id="Join" /><bpmn:endEvent id="End" />
       <bpmn:userTask id="Left" camunda:assignee="LOCAL\\admin" />
       <bpmn:exclusiveGateway id="Choose" default="F6" /><bpmn:exclusiveGateway id="Merge" />
       <bpmn:userTask id="Skip" camunda:assignee="LOCAL\\admin" /><bpmn:userTask id="Right" camunda:assignee="LOCAL\\admin" />
       <bpmn:sequenceFlow id="F1" sourceRef="Start" targetRef="Fork" /><bpmn:sequenceFlow id="F2" sourceRef="Fork" targetRef="Left" />
       <bpmn:sequenceFlow id="F3" sourceRef="Fork" targetRef="Choose" />
       <bpmn:sequenceFlow id="F4" sourceRef="Choose" targetRef="Skip"><bpmn:conditionExpression>skip</bpmn:conditionExpression></bpmn:sequenceFlow>
       <bpmn:sequenceFlow id="F6" sourceRef="Choose" targetRef="Right" />
       <bpmn:sequenceFlow id="F7" sourceRef="Skip" targetRef="Merge" /><bpmn:sequenceFlow id="F8" sourceRef="Right" targetRef="Merge" />
       <bpmn:sequenceFlow id="F9" sourceRef="Merge" targetRef="Join" /><bpmn:sequenceFlow id="F10" sourceRef="Left" targetRef="Join" />
       <bpmn:sequenceFlow id="F11" sourceRef="Join" targetRef="End" />`,
    );
    const [waymark, other] = await runBoth(xml, { skip: false }, () => scriptedPolicy([{ complete: 'Left' }, { complete: 'Right' }]));
    assert.deepEqual(waymark.steps, [['Choose', 'Fork', 'Left', 'Right', 'Start'], [], ['End', 'Join', 'Merge']]);
    assert.deepEqual(other.steps, [['Choose', 'Fork', 'Left', 'Right', 'Start'], ['End', 'Join'], ['Merge']]);
  });

  test('onboarding: bpmn-engine lets a discarded inclusive join count as an arrival at the parallel join', async () => {
    // With a laptop ordered, the equipment branch is still running when desk and account are done:
    // BPMN's parallel join waits for it. bpmn-engine discards the inclusive join EquipmentReady
    // (its phone and default branches were not taken), passes the discard on to Join, and runs
    // Join and Welcome early; the laptop's token later reaches a join that never runs again.
    const script: Move[] = [{ complete: 'PrepareDesk' }, { complete: 'CreateAccount' }, { complete: 'OrderLaptop' }];
    const [waymark, other] = await runBoth(example('onboarding.bpmn'), { manager: ADMIN, needsLaptop: true }, () => scriptedPolicy(script));
    assert.deepEqual(waymark.steps[2], [], 'Waymark: the join waits for the laptop');
    assert.deepEqual(other.steps[2], ['Join', 'Welcome'], 'bpmn-engine: the join runs early');
    assert.equal(waymark.end, 'tasks [OrderLaptop]');
    assert.equal(other.end, 'tasks [OrderLaptop, Welcome]');
  });
});
