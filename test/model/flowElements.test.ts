/** parseProcessModel: gateways, conditions, sub-processes, call activities and timers. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWaymarkError } from '../../src/domain/errors.ts';
import { parseProcessModel } from '../../src/model/parseProcessModel.ts';
import { bpmnProcess, example, flows } from '../helpers/processDriver.ts';

async function rejects(xml: string, ...fragments: string[]): Promise<void> {
  let error: unknown;
  try {
    await parseProcessModel(xml);
  } catch (e) {
    error = e;
  }
  assert.ok(isWaymarkError(error) && error.code === 'InvalidProcessDefinition', `expected a rejection, got ${String(error)}`);
  for (const f of fragments) assert.ok(error.message.includes(f), `${JSON.stringify(error.message)} lacks ${JSON.stringify(f)}`);
}

const p = (body: string) => bpmnProcess('P', body);
const task = (id: string) => `<bpmn:userTask id="${id}" camunda:assignee="LOCAL\\a" />`;
const timerDef = (inner: string) => `<bpmn:timerEventDefinition>${inner}</bpmn:timerEventDefinition>`;

describe('parseProcessModel: what the engine runs', () => {
  it('reads every example of examples/', async () => {
    for (const name of ['expense-approval', 'onboarding', 'escalation', 'order', 'shipping', 'rework-loop']) {
      await parseProcessModel(example(`${name}.bpmn`));
    }
  });

  it('reads gateways with conditions (a leading = is accepted) and a default flow', async () => {
    const m = await parseProcessModel(example('expense-approval.bpmn'));
    assert.deepEqual(m.nodes.get('CheckAmount'), {
      id: 'CheckAmount', name: 'Amount above 1000?', kind: 'exclusiveGateway', incoming: ['Flow_1'], outgoing: ['Flow_Large', 'Flow_Small'], defaultFlow: 'Flow_Small',
    });
    assert.equal(m.flows.get('Flow_Large')!.condition, 'amount > 1000');
    assert.equal(m.nodes.get('Book')!.incoming.length, 2, 'a task may be reached by several flows');
    const eq = await parseProcessModel(p(`<bpmn:startEvent id="S" /><bpmn:exclusiveGateway id="G" />${task('A')}<bpmn:endEvent id="E" />${flows('S>G', 'G>A:=x = 1', 'A>E')}`));
    assert.equal([...eq.flows.values()][1].condition, 'x = 1');
  });

  it('reads an embedded sub-process, its scope and start', async () => {
    const m = await parseProcessModel(example('shipping.bpmn'));
    assert.equal(m.nodes.get('Prepare')!.startNodeId, 'PrepareStart');
    assert.equal(m.nodes.get('Pick')!.scope, 'Prepare');
    assert.equal(m.nodes.get('HandOver')!.scope, undefined);
    assert.deepEqual(m.startNodeIds, ['ShipStart']);
  });

  it('reads timers, boundary events and call activities', async () => {
    const m = await parseProcessModel(example('escalation.bpmn'));
    assert.deepEqual(m.nodes.get('Solve')!.boundaryEvents, ['Reminder', 'TooLate']);
    assert.deepEqual(
      [m.nodes.get('Reminder')!.attachedTo, m.nodes.get('Reminder')!.cancelActivity, m.nodes.get('TooLate')!.cancelActivity],
      ['Solve', false, true],
    );
    assert.deepEqual(m.nodes.get('GracePeriod')!.timer, { type: 'timeDuration', value: 'P1D' });
    assert.equal((await parseProcessModel(example('order.bpmn'))).nodes.get('Ship')!.calledElement, 'Shipping');
  });
});

describe('parseProcessModel: what it refuses, and why', () => {
  it('refuses a gateway with no outgoing flow', async () => {
    await rejects(p(`<bpmn:startEvent id="S" /><bpmn:parallelGateway id="Dead" />${flows('S>Dead')}`), 'Element Dead (parallelGateway) has no outgoing sequence flow');
  });

  it('refuses conditions that are not FEEL, empty, or not on a deciding gateway', async () => {
    const base = (cond: string, attrs = '') =>
      p(`<bpmn:startEvent id="S" /><bpmn:exclusiveGateway id="G" />${task('A')}${task('B')}<bpmn:endEvent id="E" />
        <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="G" /><bpmn:sequenceFlow id="F2" sourceRef="G" targetRef="A"><bpmn:conditionExpression ${attrs}>${cond}</bpmn:conditionExpression></bpmn:sequenceFlow>
        ${flows('G>B', 'A>E', 'B>E')}`);
    await rejects(base('${amount > 5}'), 'Sequence flow F2', 'Waymark evaluates FEEL');
    await rejects(base('amount >'), 'Sequence flow F2', 'not valid FEEL');
    await rejects(base('amount > 5', 'language="javascript"'), 'Sequence flow F2', 'language "javascript"');
    await rejects(base(' '), 'Sequence flow F2', 'empty condition');
    await rejects(
      p(`<bpmn:startEvent id="S" /><bpmn:parallelGateway id="G" />${task('A')}${task('B')}<bpmn:parallelGateway id="J" /><bpmn:endEvent id="E" />${flows('S>G', 'G>A:x', 'G>B', 'A>J', 'B>J', 'J>E')}`),
      'leaves G (parallelGateway)',
      'only where they leave an exclusive or inclusive gateway',
    );
  });

  it('refuses a default flow that is not an outgoing flow of its gateway, or has a condition', async () => {
    const body = (dflt: string, cond = '') =>
      p(`<bpmn:startEvent id="S" /><bpmn:exclusiveGateway id="G" default="${dflt}" />${task('A')}${task('B')}<bpmn:endEvent id="E" />
        <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="G" /><bpmn:sequenceFlow id="FA" sourceRef="G" targetRef="A">${cond}</bpmn:sequenceFlow>
        <bpmn:sequenceFlow id="FB" sourceRef="G" targetRef="B" />${flows('A>E', 'B>E')}`);
    await rejects(body('F1'), 'names F1 as its default flow, but that is not one of its outgoing sequence flows');
    await rejects(body('FA', '<bpmn:conditionExpression>x</bpmn:conditionExpression>'), 'FA is the default flow of G and has a condition');
  });

  it('refuses timers it cannot run', async () => {
    const withTimer = (inner: string) =>
      p(`<bpmn:startEvent id="S" /><bpmn:intermediateCatchEvent id="T">${timerDef(inner)}</bpmn:intermediateCatchEvent><bpmn:endEvent id="E" />${flows('S>T', 'T>E')}`);
    await rejects(withTimer('<bpmn:timeCycle>R3/PT1H</bpmn:timeCycle>'), 'Element T (intermediateCatchEvent) has a timeCycle');
    await rejects(withTimer(''), 'timerEventDefinition without a time');
    await rejects(withTimer('<bpmn:timeDuration>PT1H</bpmn:timeDuration><bpmn:timeDate>2026-01-01T00:00:00Z</bpmn:timeDate>'), 'both a timeDuration and a timeDate');
    await rejects(withTimer('<bpmn:timeDuration>2 hours</bpmn:timeDuration>'), 'timeDuration "2 hours"', 'not an ISO 8601 duration');
    await rejects(withTimer('<bpmn:timeDate>next monday</bpmn:timeDate>'), 'timeDate "next monday"', 'not an ISO 8601 date-time');
    await rejects(withTimer('<bpmn:timeDuration>${delay}</bpmn:timeDuration>'), 'FEEL');
    await rejects(withTimer('<bpmn:timeDuration>=delay +</bpmn:timeDuration>'), 'not valid FEEL');
  });

  it('refuses boundary events that are not on an activity of their scope', async () => {
    const boundary = (attached: string) =>
      `<bpmn:boundaryEvent id="B" attachedToRef="${attached}">${timerDef('<bpmn:timeDuration>PT1H</bpmn:timeDuration>')}</bpmn:boundaryEvent>`;
    await rejects(p(`<bpmn:startEvent id="S" />${task('A')}${boundary('S')}<bpmn:endEvent id="E" />${flows('S>A', 'A>E', 'B>E')}`), 'Element B (boundaryEvent) is attached to S');
    await rejects(
      p(`<bpmn:startEvent id="S" />${task('A')}<bpmn:boundaryEvent id="B" attachedToRef="A" />${flows('S>A', 'A>E', 'B>E')}<bpmn:endEvent id="E" />`),
      'Element B (boundaryEvent) has no event definition',
    );
  });

  it('refuses flows that cross a sub-process border, and a sub-process without its own start', async () => {
    await rejects(
      p(`<bpmn:startEvent id="S" /><bpmn:subProcess id="Sub"><bpmn:startEvent id="SS" />${task('In')}<bpmn:endEvent id="SE" />${flows('SS>In', 'In>SE')}</bpmn:subProcess>
        <bpmn:endEvent id="E" />${flows('S>Sub', 'Sub>E')}<bpmn:sequenceFlow id="Across" sourceRef="S" targetRef="In" />`),
      'Sequence flow Across',
      'cannot cross the border of a sub-process',
    );
    await rejects(
      p(`<bpmn:startEvent id="S" /><bpmn:subProcess id="Sub">${task('In')}<bpmn:endEvent id="SE" />${flows('In>SE')}</bpmn:subProcess><bpmn:endEvent id="E" />${flows('S>Sub', 'Sub>E')}`),
      'Sub-process Sub has no start event',
    );
  });

  it('refuses a call activity without calledElement, and multiple outgoing flows without a gateway', async () => {
    await rejects(p(`<bpmn:startEvent id="S" /><bpmn:callActivity id="C" /><bpmn:endEvent id="E" />${flows('S>C', 'C>E')}`), 'Element C (callActivity) has no calledElement');
    await rejects(p(`<bpmn:startEvent id="S" />${task('A')}<bpmn:endEvent id="E" /><bpmn:endEvent id="E2" />${flows('S>A', 'A>E', 'A>E2')}`), 'which needs a gateway to split paths');
  });
});
