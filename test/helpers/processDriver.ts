/**
 * Drives process instances through the HTTP interface as a client would: deploy, start, take and
 * complete tasks as the users they belong to, read activities, and move a fake clock so that
 * timers come due (the server under test reads time from `clock.now`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addUser, type TestServer } from './harness.ts';

export const EXAMPLES = path.join(import.meta.dirname, '..', '..', 'examples');

/** A clock the server reads; tests move it forward. Starts on a Monday 09:00 UTC. */
export class FakeClock {
  ms = Date.UTC(2026, 0, 5, 9, 0, 0);
  readonly now = (): number => this.ms;
}

export type Credentials = [string, string];

export const USERS: Record<string, Credentials> = {
  alice: ['LOCAL\\alice', 'alice-password-1'],
  bob: ['LOCAL\\bob', 'bob-password-1'],
  carol: ['LOCAL\\carol', 'carol-password-1'],
  dave: ['LOCAL\\dave', 'dave-password-1'],
};

/** Groups the examples' pools name, and who is in them. */
export const GROUPS: Record<string, (keyof typeof USERS)[]> = {
  Approvers: ['alice'],
  Facilities: ['bob'],
  IT: ['carol'],
  Support: ['alice', 'bob'],
  Supervisors: ['dave'],
  Sales: ['alice'],
  Warehouse: ['bob'],
};

export function example(name: string): string {
  return fs.readFileSync(path.join(EXAMPLES, name), 'utf8');
}

export class ProcessDriver {
  constructor(readonly s: TestServer, readonly clock?: FakeClock) {}

  /** Registers USERS and GROUPS. */
  async setUpPeople(): Promise<void> {
    for (const [name, password] of Object.values(USERS)) await addUser(this.s, name, password);
    for (const [group, members] of Object.entries(GROUPS)) {
      await this.ok('/EngineServer/Admin/AddGroup', { GroupName: group });
      for (const m of members) await this.ok('/EngineServer/Admin/AddGroupMember', { GroupName: group, UserName: USERS[m][0] });
    }
  }

  async ok(urlPath: string, body?: unknown, as?: Credentials): Promise<any> {
    const r = await this.s.post(urlPath, body, { as, headers: { prefer: 'wait=10' } });
    assert.equal(r.status, 200, `${urlPath}: ${r.text}`);
    if (r.json && typeof r.json === 'object' && 'EventID' in r.json) assert.equal(r.json.Status, 'Processed', `${urlPath}: ${r.text}`);
    return r.json;
  }

  /** Deploys and releases BPMN text; returns the DefID. */
  async deploy(xml: string): Promise<string> {
    const created = await this.ok('/EngineServer/Workflow/CreateProcDef', { Xml: xml });
    await this.ok(`/EngineServer/Workflow/ReleaseProcDef/${created.DefID}`);
    return created.DefID;
  }

  /** Starts an instance (by the admin, for `initiator`) with attributes; returns its ProcInstID once started. */
  async start(defId: string, attributes: Record<string, string | number | boolean> = {}, initiator?: Credentials): Promise<string> {
    const event = await this.ok('/EngineServer/Workflow/CreateProcInst', {
      ProcessID: defId,
      Initiator: initiator?.[0] ?? null,
      Attributes: Object.entries(attributes).map(([Name, Value]) => ({ Name, Value: String(Value) })),
    });
    await this.s.settle();
    return event.ProcInstID;
  }

  async instance(procInstId: string): Promise<any> {
    return (await this.s.get(`/EngineServer/Workflow/GetProcInst/${procInstId}`)).json.GetProcInstResult;
  }

  async activities(procInstId: string): Promise<any[]> {
    return (await this.s.get(`/EngineServer/Workflow/GetActivityInstsByPIID/${procInstId}`)).json.GetActivityInstsByPIIDResult;
  }

  /** Element ids of the instance's activities in the order they were reached. */
  async trail(procInstId: string): Promise<string[]> {
    return (await this.activities(procInstId)).map((a) => a.Name);
  }

  /** Element ids of the activities that are active now (InStack), sorted. */
  async active(procInstId: string): Promise<string[]> {
    return (await this.activities(procInstId)).filter((a) => a.InStack).map((a) => a.Name).sort();
  }

  /** The open work item of element `name` in the instance that `user` can see (assigned or pooled), or undefined. */
  async findTask(procInstId: string, name: string, user: keyof typeof USERS): Promise<any | undefined> {
    const r = await this.s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: USERS[user][0], Status: 'New;Assigned;Overdue' }, { as: USERS[user] });
    assert.equal(r.status, 200, r.text);
    return r.json.find((w: any) => w.ProcInstID === procInstId && w.Name === name);
  }

  /** `user` takes the task (if pooled) and completes it; attributes are set on the instance first. */
  async complete(procInstId: string, name: string, user: keyof typeof USERS, attributes: Record<string, string | number | boolean> = {}): Promise<void> {
    const task = await this.findTask(procInstId, name, user);
    assert.ok(task, `${user} has no open task ${name} in ${procInstId}`);
    if (Object.keys(attributes).length > 0) {
      const r = await this.s.post(`/EngineServer/Workflow/UpdateProcInst/${procInstId}`, {
        attributes: Object.entries(attributes).map(([Name, Value]) => ({ Name, Value: String(Value) })),
      });
      assert.equal(r.status, 200, r.text);
    }
    if (task.Status === 'New') await this.ok(`/EngineServer/Workflow/AssignWorkItem/${task.WorkItemID}`, {}, USERS[user]);
    await this.ok(`/EngineServer/Workflow/CompleteWorkItem/${task.WorkItemID}`, {}, USERS[user]);
    await this.s.settle();
  }

  /** Moves the fake clock forward and lets due timers fire and their events apply. */
  async advance(ms: number): Promise<void> {
    assert.ok(this.clock, 'advance needs a FakeClock');
    this.clock.ms += ms;
    await this.s.waymark.engine.timers.fireDue();
    await this.s.settle();
  }
}

export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

/** A definitions envelope around a process body (namespaces bpmn, camunda, waymark, xsi declared). */
export function bpmnProcess(id: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:waymark="http://waymark.dev/schema/bpmn" id="Defs_${id}" targetNamespace="http://waymark.dev/test">
  <bpmn:process id="${id}" name="${id}" isExecutable="true">
${body}
  </bpmn:process>
</bpmn:definitions>`;
}

/** `<bpmn:sequenceFlow>` elements for `a>b` pairs; `a>b:cond` adds a FEEL condition. */
export function flows(...pairs: string[]): string {
  return pairs
    .map((pair, i) => {
      const [ends, condition] = pair.split(':');
      const [from, to] = ends.split('>');
      const body = condition ? `<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${condition.replace(/>/g, '&gt;').replace(/</g, '&lt;')}</bpmn:conditionExpression>` : '';
      return `<bpmn:sequenceFlow id="F${i + 1}_${from}_${to}" sourceRef="${from}" targetRef="${to}">${body}</bpmn:sequenceFlow>`;
    })
    .join('\n');
}
