import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isWaymarkError } from '../../src/domain/errors.ts';
import { parseProcessModel } from '../../src/model/parseProcessModel.ts';
import type { ProcessModel } from '../../src/model/ProcessModel.ts';

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/model/${name}`, import.meta.url), 'utf8');

/** A definitions envelope like a Camunda Modeler export, around a process body. */
function bpmn(body: string, processAttributes = 'id="Process_1" isExecutable="true"'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:waymark="http://waymark.dev/schema/bpmn" id="Definitions_1" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process ${processAttributes}>
${body}
  </bpmn:process>
</bpmn:definitions>`;
}

/** start -> one element -> end. */
function around(element: string, id = 'Task_1'): string {
  return bpmn(`
    <bpmn:startEvent id="Start_1" />
    ${element}
    <bpmn:endEvent id="End_1" />
    <bpmn:sequenceFlow id="Flow_in" sourceRef="Start_1" targetRef="${id}" />
    <bpmn:sequenceFlow id="Flow_out" sourceRef="${id}" targetRef="End_1" />`);
}

/** A user task with the given attributes / children between start and end. */
const userTask = (attributes: string, children = ''): string =>
  around(`<bpmn:userTask id="Task_1" name="Do it" ${attributes}>${children}</bpmn:userTask>`);

const potentialOwner = (text: string): string =>
  `<bpmn:potentialOwner><bpmn:resourceAssignmentExpression><bpmn:formalExpression>${text}</bpmn:formalExpression></bpmn:resourceAssignmentExpression></bpmn:potentialOwner>`;

const humanPerformer = (text: string): string =>
  `<bpmn:humanPerformer><bpmn:resourceAssignmentExpression><bpmn:formalExpression>${text}</bpmn:formalExpression></bpmn:resourceAssignmentExpression></bpmn:humanPerformer>`;

/** Asserts the parse fails with InvalidProcessDefinition and the message contains every fragment. */
async function rejects(xml: string, ...fragments: string[]): Promise<string> {
  let error: unknown;
  try {
    await parseProcessModel(xml);
  } catch (e) {
    error = e;
  }
  assert.ok(error, `expected a rejection mentioning ${fragments.join(', ')}`);
  assert.ok(isWaymarkError(error), `expected a WaymarkError, got ${String(error)}`);
  assert.equal(error.code, 'InvalidProcessDefinition');
  assert.equal(error.status, 400);
  for (const fragment of fragments) {
    assert.ok(error.message.includes(fragment), `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(fragment)}`);
  }
  assert.ok(!/\n\s+at /.test(error.message), 'no stack trace in the message');
  return error.message;
}

const node = (model: ProcessModel, id: string) => {
  const found = model.nodes.get(id);
  assert.ok(found, `node ${id}`);
  return found;
};

describe('parseProcessModel: what runs', () => {
  it('reads a straight line start -> userTask -> serviceTask -> end (Camunda Modeler export with lanes, data, DI)', async () => {
    const model = await parseProcessModel(fixture('straight-line.bpmn'));
    assert.equal(model.processId, 'Expense_Approval');
    assert.equal(model.name, 'Expense approval');
    assert.equal(model.description, 'Approve an expense claim, then book it.');
    assert.deepEqual([...model.nodes.keys()], ['StartEvent_1', 'Activity_Approve', 'Activity_Book', 'Event_Done']);
    assert.deepEqual(model.startNodeIds, ['StartEvent_1']);

    assert.deepEqual(node(model, 'StartEvent_1'), {
      id: 'StartEvent_1',
      name: 'Claim submitted',
      kind: 'startEvent',
      incoming: [],
      outgoing: ['Flow_0k1x2mp'],
    });
    assert.deepEqual(node(model, 'Activity_Approve'), {
      id: 'Activity_Approve',
      name: 'Approve\nclaim',
      kind: 'userTask',
      incoming: ['Flow_0k1x2mp'],
      outgoing: ['Flow_1r5dlt2'],
      performers: { assignee: 'LOCAL\\alice', candidateUsers: [], candidateGroups: [], candidateRoles: [] },
    });
    assert.deepEqual(node(model, 'Activity_Book'), {
      id: 'Activity_Book',
      name: 'Activity_Book',
      kind: 'serviceTask',
      incoming: ['Flow_1r5dlt2'],
      outgoing: ['Flow_0xw9c1e'],
      wait: false,
    });
    assert.deepEqual(node(model, 'Event_Done'), {
      id: 'Event_Done',
      name: 'Claim booked',
      kind: 'endEvent',
      incoming: ['Flow_0xw9c1e'],
      outgoing: [],
      terminate: false,
    });
    assert.deepEqual(
      [...model.flows.values()],
      [
        { id: 'Flow_0k1x2mp', sourceRef: 'StartEvent_1', targetRef: 'Activity_Approve' },
        { id: 'Flow_1r5dlt2', sourceRef: 'Activity_Approve', targetRef: 'Activity_Book' },
        { id: 'Flow_0xw9c1e', sourceRef: 'Activity_Book', targetRef: 'Event_Done' },
      ],
    );
  });

  it('returns a frozen model whose maps cannot be changed', async () => {
    const model = await parseProcessModel(fixture('straight-line.bpmn'));
    assert.ok(Object.isFrozen(model));
    assert.ok(Object.isFrozen(model.startNodeIds));
    const task = node(model, 'Activity_Approve');
    assert.ok(Object.isFrozen(task));
    assert.ok(Object.isFrozen(task.incoming));
    assert.ok(Object.isFrozen(task.performers));
    assert.ok(Object.isFrozen(task.performers!.candidateUsers));
    assert.ok(Object.isFrozen(model.flows.get('Flow_0k1x2mp')));
    assert.ok(model.nodes instanceof Map);
    assert.throws(() => (model.nodes as Map<string, unknown>).set('x', {}), TypeError);
    assert.throws(() => (model.flows as Map<string, unknown>).delete('Flow_0k1x2mp'), TypeError);
    assert.throws(() => (model.nodes as Map<string, unknown>).clear(), TypeError);
    assert.throws(() => {
      (task as { name: string }).name = 'changed';
    }, TypeError);
    assert.equal(model.nodes.size, 4);
  });

  it('reads a pool from potentialOwner and an assignee from humanPerformer, picking the executable pool of a collaboration', async () => {
    const model = await parseProcessModel(fixture('pool-potential-owner.bpmn'));
    assert.equal(model.processId, 'Purchase_Request');
    assert.equal(model.name, 'Purchase_Request');
    assert.equal(model.description, '');
    assert.deepEqual(node(model, 'Activity_Review').performers, {
      candidateUsers: ['LOCAL\\bob', 'LOCAL\\carol', '=requester.manager'],
      candidateGroups: ['Approvers'],
      candidateRoles: ['Managers'],
    });
    assert.equal(node(model, 'Activity_Review').performers!.assignee, undefined);
    // Both: the assignee wins, the pool is kept.
    const order = node(model, 'Activity_Order');
    assert.equal(order.kind, 'manualTask');
    assert.equal(order.name, 'Phone the supplier');
    assert.deepEqual(order.performers, {
      assignee: 'LOCAL\\dave',
      candidateUsers: [],
      candidateGroups: ['Purchasing'],
      candidateRoles: [],
    });
    assert.equal(order.expectedTime, undefined);
    assert.deepEqual([...model.nodes.keys()], ['StartEvent_1', 'Activity_Review', 'Activity_Order', 'Event_End']);
  });

  it('reads camunda:assignee, candidateUsers and candidateGroups, whatever the prefix', async () => {
    const model = await parseProcessModel(fixture('camunda-attributes.bpmn'));
    assert.equal(model.name, 'Leave request');
    assert.deepEqual(node(model, 'Task_Approve').performers, {
      candidateUsers: ['LOCAL\\erin', 'LOCAL\\frank', '=initiator.manager'],
      candidateGroups: ['HR', 'Team Leads'],
      candidateRoles: [],
    });
    assert.deepEqual(node(model, 'Task_Confirm').performers, {
      assignee: '=initiator',
      candidateUsers: [],
      candidateGroups: ['HR'],
      candidateRoles: [],
    });
    assert.deepEqual(node(model, 'Task_Archive').performers, {
      assignee: 'ARCHIVE\\clerk',
      candidateUsers: [],
      candidateGroups: [],
      candidateRoles: [],
    });
  });

  it('reads waymark:expectedTime, businessTime and wait under any prefix', async () => {
    const model = await parseProcessModel(fixture('waymark-attributes.bpmn'));
    assert.equal(model.processId, 'Onboarding');
    assert.equal(model.name, 'Employee onboarding');
    assert.deepEqual(node(model, 'Prepare_Desk').expectedTime, { length: 2, unit: 'DAY', businessTime: true });
    assert.deepEqual(node(model, 'Prepare_Desk').performers, {
      candidateUsers: [],
      candidateGroups: ['Facilities'],
      candidateRoles: [],
    });
    assert.deepEqual(node(model, 'Hand_Over_Badge').expectedTime, { length: 36, unit: 'HOUR', businessTime: false });
    assert.equal(node(model, 'Hand_Over_Badge').performers!.assignee, '=manager');
    assert.equal(node(model, 'Create_Account').kind, 'scriptTask');
    assert.equal(node(model, 'Create_Account').wait, true);
    assert.equal(node(model, 'Send_Welcome').kind, 'sendTask');
    assert.equal(node(model, 'Send_Welcome').wait, false);
    assert.equal(node(model, 'Notify_Payroll').kind, 'serviceTask');
    assert.equal(node(model, 'Notify_Payroll').wait, false);
    assert.deepEqual(node(model, 'Notify_Payroll').outgoing, ['f6']);
  });

  it('reads a terminate end event', async () => {
    const model = await parseProcessModel(fixture('terminate-end.bpmn'));
    const end = node(model, 'Event_Terminate');
    assert.equal(end.kind, 'endEvent');
    assert.equal(end.terminate, true);
    assert.equal(end.name, 'Order canceled');
    assert.deepEqual(end.incoming, ['Flow_2']);
  });

  it('takes the only process even when bpmn.io marked it isExecutable="false"', async () => {
    const model = await parseProcessModel(
      bpmn(
        `<bpmn:startEvent id="S" /><bpmn:endEvent id="E" /><bpmn:sequenceFlow id="F" sourceRef="S" targetRef="E" />`,
        'id="Process_Draft" name="" isExecutable="false"',
      ),
    );
    assert.equal(model.processId, 'Process_Draft');
    assert.equal(model.name, 'Process_Draft');
    assert.deepEqual([...model.nodes.keys()], ['S', 'E']);
  });

  it('picks the executable process among several', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="S" /><bpmn:endEvent id="E" /><bpmn:sequenceFlow id="F" sourceRef="S" targetRef="E" />`,
      'id="Main" isExecutable="true"',
    ).replace('</bpmn:definitions>', '<bpmn:process id="Other" isExecutable="false"><bpmn:task id="T" /></bpmn:process></bpmn:definitions>');
    assert.equal((await parseProcessModel(xml)).processId, 'Main');
  });

  it('keeps commas inside FEEL expressions and drops duplicate candidates', async () => {
    const model = await parseProcessModel(
      userTask('', potentialOwner('group(=get value(teams, "a,b")), user(LOCAL\\x), role(=roles[1]), user(LOCAL\\x)')),
    );
    assert.deepEqual(node(model, 'Task_1').performers, {
      candidateUsers: ['LOCAL\\x'],
      candidateGroups: ['=get value(teams, "a,b")'],
      candidateRoles: ['=roles[1]'],
    });
  });

  it('ignores camunda: attributes whose prefix is bound to another namespace', async () => {
    const xml = userTask('xmlns:camunda="http://camunda.org/schema/zeebe/1.0" camunda:assignee="LOCAL\\ann"');
    await rejects(xml, 'Task_1', 'names nobody');
  });

  it('accepts a human performer and camunda:assignee naming the same user', async () => {
    const model = await parseProcessModel(userTask('camunda:assignee="LOCAL\\ann"', humanPerformer('user(LOCAL\\ann)')));
    assert.equal(node(model, 'Task_1').performers!.assignee, 'LOCAL\\ann');
  });
});

describe('parseProcessModel: unsupported elements', () => {
  for (const [element, typeName] of [
    ['<bpmn:intermediateThrowEvent id="Task_1" />', 'intermediateThrowEvent'],
    ['<bpmn:businessRuleTask id="Task_1" />', 'businessRuleTask'],
    ['<bpmn:receiveTask id="Task_1" />', 'receiveTask'],
    ['<bpmn:task id="Task_1" />', 'task'],
    ['<bpmn:eventBasedGateway id="Task_1" />', 'eventBasedGateway'],
    ['<bpmn:complexGateway id="Task_1" />', 'complexGateway'],
    ['<bpmn:transaction id="Task_1" />', 'transaction'],
  ] as const) {
    it(`rejects a ${typeName}`, async () => {
      await rejects(around(element), `Element Task_1 (${typeName}) is not supported in this release`, 'exclusive, parallel and inclusive gateways');
    });
  }

  it('rejects a boundary event that is not a timer', async () => {
    const xml = around(
      '<bpmn:serviceTask id="Task_1" /><bpmn:boundaryEvent id="Boundary_1" attachedToRef="Task_1"><bpmn:messageEventDefinition /></bpmn:boundaryEvent>',
    );
    await rejects(xml, 'Boundary_1', 'messageEventDefinition', 'a timerEventDefinition');
  });

  it('rejects an intermediate catch event without a timer', async () => {
    await rejects(around('<bpmn:intermediateCatchEvent id="Task_1" />'), 'Element Task_1 (intermediateCatchEvent) has no event definition', 'timerEventDefinition');
    await rejects(
      around('<bpmn:intermediateCatchEvent id="Task_1"><bpmn:signalEventDefinition /></bpmn:intermediateCatchEvent>'),
      'Task_1',
      'signalEventDefinition',
    );
  });

  it('rejects camunda: attributes that would call services, and data-mapping extension elements', async () => {
    await rejects(
      around('<bpmn:serviceTask id="Task_1" camunda:type="external" camunda:topic="booking" />'),
      'Element Task_1 (serviceTask) has camunda:type="external"',
      'Waymark does not call services',
    );
    await rejects(around('<bpmn:serviceTask id="Task_1" camunda:class="com.example.Book" />'), 'camunda:class', 'waymark:wait');
    await rejects(userTask('camunda:assignee="LOCAL\\a" camunda:dueDate="${due}"'), 'camunda:dueDate', 'waymark:expectedTime');
    await rejects(
      userTask('camunda:assignee="LOCAL\\a"', '<bpmn:extensionElements><camunda:inputOutput><camunda:inputParameter name="x">1</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements>'),
      'Task_1',
      'camunda:inputOutput',
      'does not map input or output variables',
    );
    await rejects(userTask('camunda:assignee="LOCAL\\a" camunda:colour="red"'), 'camunda:colour', 'Waymark reads camunda:assignee');
  });

  it('rejects BPMN attributes this release does not run', async () => {
    await rejects(around('<bpmn:serviceTask id="Task_1" isForCompensation="true" />'), 'Task_1', 'isForCompensation');
    await rejects(around('<bpmn:serviceTask id="Task_1" startQuantity="2" />'), 'Task_1', 'startQuantity="2"');
    await rejects(around('<bpmn:serviceTask id="Task_1" completionQuantity="3" />'), 'Task_1', 'completionQuantity="3"');
    const eventSub = around(
      '<bpmn:subProcess id="Task_1" triggeredByEvent="true"><bpmn:startEvent id="S2" /><bpmn:endEvent id="E2" /><bpmn:sequenceFlow id="f" sourceRef="S2" targetRef="E2" /></bpmn:subProcess>',
    );
    await rejects(eventSub, 'Task_1', 'event sub-process');
  });

  it('rejects a start event with a timer', async () => {
    await rejects(fixture('reject-timer-start.bpmn'), 'StartEvent_Nightly', 'timerEventDefinition', 'does not run');
  });

  it('rejects a message start event', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="Start_Msg"><bpmn:messageEventDefinition /></bpmn:startEvent>
      <bpmn:endEvent id="E" /><bpmn:sequenceFlow id="F" sourceRef="Start_Msg" targetRef="E" />`);
    await rejects(xml, 'Start_Msg', 'messageEventDefinition');
  });

  it('rejects a message end event', async () => {
    await rejects(fixture('reject-message-end.bpmn'), 'Event_SendQuote', 'messageEventDefinition', 'terminateEventDefinition');
  });

  for (const definition of ['signalEventDefinition', 'errorEventDefinition', 'escalationEventDefinition']) {
    it(`rejects an end event with a ${definition}`, async () => {
      const xml = bpmn(`
        <bpmn:startEvent id="S" />
        <bpmn:endEvent id="End_Special"><bpmn:${definition} /></bpmn:endEvent>
        <bpmn:sequenceFlow id="F" sourceRef="S" targetRef="End_Special" />`);
      await rejects(xml, 'End_Special', definition);
    });
  }

  it('rejects a terminate end event that also carries another definition', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:endEvent id="End_Two"><bpmn:terminateEventDefinition /><bpmn:messageEventDefinition /></bpmn:endEvent>
      <bpmn:sequenceFlow id="F" sourceRef="S" targetRef="End_Two" />`);
    await rejects(xml, 'End_Two', '2 event definitions');
  });

  it('rejects multi-instance and standard loops on a task', async () => {
    await rejects(fixture('reject-multi-instance.bpmn'), 'Activity_SignEach', 'multiInstanceLoopCharacteristics');
    await rejects(
      around('<bpmn:serviceTask id="Task_1"><bpmn:standardLoopCharacteristics /></bpmn:serviceTask>'),
      'Task_1',
      'standardLoopCharacteristics',
    );
  });
});

describe('parseProcessModel: shape of the graph', () => {
  it('rejects a node with two outgoing flows', async () => {
    await rejects(fixture('reject-split-without-gateway.bpmn'), 'Activity_Draft', 'Flow_a, Flow_b', 'gateway to split paths');
  });

  it('rejects a process without an end event, and a loop that never reaches one', async () => {
    await rejects(fixture('reject-loop-without-end.bpmn'), 'The process has no end event');
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:exclusiveGateway id="G" />
      <bpmn:endEvent id="E" />
      <bpmn:userTask id="Spin" camunda:assignee="LOCAL\\a" />
      <bpmn:serviceTask id="Again" />
      <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="G" />
      <bpmn:sequenceFlow id="F2" sourceRef="G" targetRef="E"><bpmn:conditionExpression>done</bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="F3" sourceRef="G" targetRef="Spin" />
      <bpmn:sequenceFlow id="F4" sourceRef="Spin" targetRef="Again" />
      <bpmn:sequenceFlow id="F5" sourceRef="Again" targetRef="Spin" />`);
    await rejects(xml, 'Element Spin (userTask) cannot reach an end event');
  });

  it('rejects an end event reached by two flows', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:serviceTask id="A" />
      <bpmn:endEvent id="End_Join" />
      <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="A" />
      <bpmn:sequenceFlow id="F2" sourceRef="A" targetRef="End_Join" />
      <bpmn:sequenceFlow id="F3" sourceRef="A" targetRef="End_Join" />`);
    await rejects(xml, 'Element A (serviceTask) has 2 outgoing sequence flows (F2, F3)');
  });

  it('rejects a condition on a sequence flow', async () => {
    await rejects(fixture('reject-conditional-flow.bpmn'), 'Flow_Conditional', 'amount > 1000', 'condition');
  });

  it('rejects a start event with an incoming flow', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="Start_1" />
      <bpmn:serviceTask id="A" />
      <bpmn:endEvent id="E" />
      <bpmn:sequenceFlow id="F1" sourceRef="Start_1" targetRef="A" />
      <bpmn:sequenceFlow id="F_back" sourceRef="A" targetRef="Start_1" />`);
    await rejects(xml, 'Element Start_1 (startEvent) has an incoming sequence flow (F_back)');
  });

  it('rejects an end event with an outgoing flow', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:endEvent id="End_1" />
      <bpmn:serviceTask id="After" />
      <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="End_1" />
      <bpmn:sequenceFlow id="F_after" sourceRef="End_1" targetRef="After" />`);
    await rejects(xml, 'Element End_1 (endEvent) has an outgoing sequence flow (F_after)', 'nothing may follow an endEvent');
  });

  it('rejects a task with no outgoing flow', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:serviceTask id="Dead_End" />
      <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="Dead_End" />`);
    await rejects(xml, 'Dead_End', 'no outgoing sequence flow');
  });

  it('rejects a start event with no outgoing flow', async () => {
    await rejects(bpmn('<bpmn:startEvent id="Lonely_Start" />'), 'Lonely_Start', 'no outgoing sequence flow');
  });

  it('rejects a sequence flow whose target does not exist', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:endEvent id="E" />
      <bpmn:sequenceFlow id="Flow_Broken" sourceRef="S" targetRef="Nowhere" />`);
    await rejects(xml, 'Flow_Broken', 'Nowhere');
  });

  it('rejects a sequence flow whose source does not exist', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:endEvent id="E" />
      <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="E" />
      <bpmn:sequenceFlow id="Flow_Orphan" sourceRef="Ghost" targetRef="E" />`);
    await rejects(xml, 'Flow_Orphan', 'sourceRef="Ghost"');
  });

  it('rejects a sequence flow with no source attribute at all', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:endEvent id="E" />
      <bpmn:sequenceFlow id="Flow_Half" targetRef="E" />`);
    await rejects(xml, 'Flow_Half', 'no sourceRef');
  });

  it('rejects a sequence flow into a data object', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:dataObjectReference id="Data_1" dataObjectRef="DO_1" />
      <bpmn:dataObject id="DO_1" />
      <bpmn:sequenceFlow id="Flow_Data" sourceRef="S" targetRef="Data_1" />`);
    await rejects(xml, 'Flow_Data', 'Data_1 (dataObjectReference)');
  });

  it('rejects a node not reachable from the start event', async () => {
    await rejects(fixture('reject-unreachable.bpmn'), 'Activity_Forgotten', 'cannot be reached from the start event StartEvent_1');
  });

  it('rejects a process without a start event', async () => {
    const xml = bpmn(`<bpmn:endEvent id="E" />`, 'id="Process_NoStart" isExecutable="true"');
    await rejects(xml, 'Process_NoStart', 'no start event');
  });

  it('rejects a process with two start events', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="Start_A" />
      <bpmn:startEvent id="Start_B" />
      <bpmn:endEvent id="E1" />
      <bpmn:endEvent id="E2" />
      <bpmn:sequenceFlow id="F1" sourceRef="Start_A" targetRef="E1" />
      <bpmn:sequenceFlow id="F2" sourceRef="Start_B" targetRef="E2" />`);
    await rejects(xml, '2 start events', 'Start_A, Start_B');
  });
});

describe('parseProcessModel: choosing the process', () => {
  it('rejects two executable processes', async () => {
    await rejects(fixture('reject-two-executable-processes.bpmn'), 'Process_Sales', 'Process_Billing', '2 executable processes');
  });

  it('rejects several processes none of which is executable', async () => {
    const xml = bpmn('<bpmn:startEvent id="S" />', 'id="P_One"').replace(
      '</bpmn:definitions>',
      '<bpmn:process id="P_Two" /></bpmn:definitions>',
    );
    await rejects(xml, 'P_One, P_Two', 'none is marked isExecutable="true"');
  });

  it('rejects a file without a process', async () => {
    const xml = bpmn('').replace(/<bpmn:process[\s\S]*<\/bpmn:process>/, '<bpmn:collaboration id="C" />');
    await rejects(xml, 'no <process>');
  });
});

describe('parseProcessModel: people on a task', () => {
  it('rejects a human task that names nobody', async () => {
    await rejects(userTask(''), 'Task Task_1 names nobody to do it');
    await rejects(around('<bpmn:manualTask id="Task_1" />'), 'Task Task_1 names nobody to do it', 'manualTask');
  });

  it('rejects a literal user that is not DOMAIN\\user', async () => {
    await rejects(userTask('camunda:assignee="bob"'), 'Task_1', '"bob"', 'DOMAIN\\user');
    await rejects(userTask('', potentialOwner('user(A\\B\\c)')), 'Task_1', '"A\\B\\c"');
    await rejects(userTask('', potentialOwner('LOCAL\\')), 'Task_1', '"LOCAL\\"');
    await rejects(userTask('camunda:candidateUsers="LOCAL\\ann, \\bob"'), 'Task_1', '"\\bob"');
    await rejects(userTask('', humanPerformer('carol')), 'Task_1', '"carol"');
  });

  it('rejects an invalid FEEL expression naming the task', async () => {
    await rejects(userTask('camunda:assignee="=a +"'), 'Task_1', '"=a +"', 'not valid FEEL');
    await rejects(userTask('', potentialOwner('group(=(x)')), 'Task_1', '"=(x"');
    await rejects(userTask('camunda:candidateGroups="="'), 'Task_1', 'empty');
  });

  it('rejects Camunda JUEL expressions with a hint', async () => {
    await rejects(userTask('camunda:assignee="${initiator}"'), 'Task_1', '${initiator}', 'FEEL');
  });

  it('rejects an unknown kind of entry in potentialOwner', async () => {
    await rejects(userTask('', potentialOwner('team(Blue)')), 'Task_1', 'team(Blue)', 'user(...), group(...) or role(...)');
  });

  it('rejects a humanPerformer that names a group', async () => {
    await rejects(userTask('', humanPerformer('group(Approvers)')), 'Task_1', 'humanPerformer', 'exactly one user');
  });

  it('rejects a resource role without an expression', async () => {
    await rejects(userTask('', '<bpmn:potentialOwner />'), 'Task_1', 'potentialOwner', 'no resourceAssignmentExpression');
  });

  it('rejects two different assignees', async () => {
    await rejects(
      userTask('camunda:assignee="LOCAL\\ann"', humanPerformer('LOCAL\\ben')),
      'Task_1',
      'more than one assignee',
      'LOCAL\\ben from humanPerformer',
      'LOCAL\\ann from camunda:assignee',
    );
  });

  it('rejects a generic bpmn:performer', async () => {
    const performer =
      '<bpmn:performer><bpmn:resourceAssignmentExpression><bpmn:formalExpression>LOCAL\\a</bpmn:formalExpression></bpmn:resourceAssignmentExpression></bpmn:performer>';
    await rejects(userTask('', performer), 'Task_1', 'performer', 'humanPerformer or potentialOwner');
  });
});

describe('parseProcessModel: waymark attributes', () => {
  for (const value of ['0 DAY', '2 FORTNIGHT', 'two DAY', '-1 DAY', '1.5 HOUR', 'DAY', '']) {
    it(`rejects waymark:expectedTime="${value}"`, async () => {
      await rejects(
        userTask(`camunda:assignee="LOCAL\\a" waymark:expectedTime="${value}"`),
        'Element Task_1 (userTask)',
        `waymark:expectedTime="${value}"`,
        'SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR',
      );
    });
  }

  it('stores the unit upper-case, whatever the case written', async () => {
    const model = await parseProcessModel(userTask('camunda:assignee="LOCAL\\a" waymark:expectedTime=" 10 minute "'));
    assert.deepEqual(node(model, 'Task_1').expectedTime, { length: 10, unit: 'MINUTE', businessTime: false });
  });

  it('rejects a businessTime that is not true or false', async () => {
    await rejects(
      userTask('camunda:assignee="LOCAL\\a" waymark:expectedTime="1 DAY" waymark:businessTime="yes"'),
      'Task_1',
      'waymark:businessTime="yes"',
      '"true" or "false"',
    );
  });

  it('rejects businessTime without expectedTime', async () => {
    await rejects(userTask('camunda:assignee="LOCAL\\a" waymark:businessTime="true"'), 'Task_1', 'no expectedTime');
  });

  it('rejects a wait that is not true or false', async () => {
    await rejects(around('<bpmn:sendTask id="Task_1" waymark:wait="maybe" />'), 'Element Task_1 (sendTask)', 'waymark:wait="maybe"');
  });

  it('rejects unknown waymark attributes', async () => {
    await rejects(
      userTask('camunda:assignee="LOCAL\\a" waymark:colour="red"'),
      'Task_1',
      'unknown attribute waymark:colour',
      'waymark:expectedTime and waymark:businessTime',
    );
    await rejects(userTask('camunda:assignee="LOCAL\\a" waymark:wait="true"'), 'Task_1', 'unknown attribute waymark:wait');
    await rejects(around('<bpmn:serviceTask id="Task_1" waymark:expectedTime="1 DAY" />'), 'Task_1', 'unknown attribute waymark:expectedTime');
    await rejects(
      bpmn(`<bpmn:startEvent id="Start_W" waymark:wait="true" /><bpmn:endEvent id="E" /><bpmn:sequenceFlow id="F" sourceRef="Start_W" targetRef="E" />`),
      'Start_W',
      'unknown attribute waymark:wait',
    );
    await rejects(
      bpmn(`<bpmn:startEvent id="S" /><bpmn:endEvent id="E" /><bpmn:sequenceFlow id="Flow_W" waymark:wait="true" sourceRef="S" targetRef="E" />`),
      'Flow_W',
      'unknown attribute waymark:wait',
    );
  });

  it('names the attribute by its namespace, whatever prefix the file uses', async () => {
    const xml = userTask('xmlns:wm="http://waymark.dev/schema/bpmn" camunda:assignee="LOCAL\\a" wm:expectedTime="soon"').replace(
      ' xmlns:waymark="http://waymark.dev/schema/bpmn"',
      '',
    );
    await rejects(xml, 'Task_1', 'waymark:expectedTime="soon"');
  });

  it('reads prefixes declared on sibling elements and ignores a borrowed prefix', async () => {
    const xml = bpmn(`
      <bpmn:startEvent id="S" />
      <bpmn:userTask id="A" xmlns:w1="http://waymark.dev/schema/bpmn" xmlns:c1="http://camunda.org/schema/1.0/bpmn" c1:assignee="LOCAL\\a" w1:expectedTime="1 WEEK" />
      <bpmn:userTask id="B" xmlns:w2="http://waymark.dev/schema/bpmn" xmlns:c2="http://camunda.org/schema/1.0/bpmn" c2:candidateGroups="G" w2:expectedTime="3 MONTH" w2:businessTime="false" />
      <bpmn:serviceTask id="C" xmlns:waymark="urn:somebody-else" waymark:wait="perhaps" />
      <bpmn:endEvent id="E" />
      <bpmn:sequenceFlow id="F1" sourceRef="S" targetRef="A" />
      <bpmn:sequenceFlow id="F2" sourceRef="A" targetRef="B" />
      <bpmn:sequenceFlow id="F3" sourceRef="B" targetRef="C" />
      <bpmn:sequenceFlow id="F4" sourceRef="C" targetRef="E" />`)
      .replace(' xmlns:camunda="http://camunda.org/schema/1.0/bpmn"', '')
      .replace(' xmlns:waymark="http://waymark.dev/schema/bpmn"', '');
    assert.ok(!xml.includes('xmlns:waymark="http://waymark.dev/schema/bpmn"'));
    const model = await parseProcessModel(xml);
    assert.deepEqual(node(model, 'A').expectedTime, { length: 1, unit: 'WEEK', businessTime: false });
    assert.equal(node(model, 'A').performers!.assignee, 'LOCAL\\a');
    assert.deepEqual(node(model, 'B').expectedTime, { length: 3, unit: 'MONTH', businessTime: false });
    assert.deepEqual(node(model, 'B').performers!.candidateGroups, ['G']);
    assert.equal(node(model, 'C').wait, false);
  });
});

describe('parseProcessModel: not BPMN at all', () => {
  it('rejects an empty string', async () => {
    await rejects('', 'empty');
    await rejects('   \n', 'empty');
  });

  it('rejects malformed XML with the parser message and a 1-based position', async () => {
    const message = await rejects(
      '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL">\n  <bpmn:process id="P"></bpmn:proc>',
      'not valid BPMN 2.0 XML',
      'closing tag mismatch',
      'line 2, column 24',
    );
    assert.ok(!message.includes('\t'));
  });

  it('rejects text that is not XML', async () => {
    await rejects('hello world', 'not valid BPMN 2.0 XML', 'unparsable content');
  });

  it('rejects XML that is not BPMN', async () => {
    await rejects('<?xml version="1.0"?><invoice xmlns="urn:example"><total>3</total></invoice>', 'not valid BPMN 2.0 XML', 'invoice');
  });

  it('rejects unknown elements in the BPMN namespace instead of dropping them', async () => {
    await rejects(around('<bpmn:serviceTask id="Task_1" /><bpmn:fancyTask id="X" />'), 'fancyTask', 'not valid BPMN 2.0');
  });

  it('rejects duplicate ids', async () => {
    await rejects(around('<bpmn:serviceTask id="Task_1" /><bpmn:serviceTask id="Task_1" />'), 'Task_1', 'more than one element');
  });

  it('rejects a DOCTYPE', async () => {
    const xml = around('<bpmn:serviceTask id="Task_1" />').replace('<bpmn:definitions', '<!DOCTYPE x [ <!ENTITY a "aaaa"> ]>\n<bpmn:definitions');
    await rejects(xml, 'DOCTYPE');
  });

  it('refuses input over 1 MiB before parsing', async () => {
    const xml = around('<bpmn:serviceTask id="Task_1" />').replace('</bpmn:definitions>', `<!-- ${'x'.repeat(1024 * 1024)} --></bpmn:definitions>`);
    await rejects(xml, 'at most 1048576 bytes');
  });

  it('accepts a definition of exactly the size limit', async () => {
    const base = around('<bpmn:serviceTask id="Task_1" />');
    const padding = 1024 * 1024 - Buffer.byteLength(base) - '<!--  -->'.length;
    const xml = base.replace('</bpmn:definitions>', `<!-- ${'x'.repeat(padding)} --></bpmn:definitions>`);
    assert.equal(Buffer.byteLength(xml), 1024 * 1024);
    assert.equal((await parseProcessModel(xml)).nodes.size, 3);
  });
});
