/**
 * One process instance run by each engine behind the same small interface, so that a driver can
 * make the same moves in both: complete the oldest open user task of an element, or let virtual
 * time run to the next timer. `drain()` answers the elements reached since the last call, sorted
 * (the order between parallel branches reached in the same move is not defined by BPMN).
 */
import { EventEmitter } from 'node:events';
import { Engine as BpmnEngine } from 'bpmn-engine';
import { Timers as BpmnTimers } from 'bpmn-elements';
import { evaluate } from 'feelin';
import type { Caller } from '../../src/engine/accessPolicy.ts';
import type { Engine } from '../../src/engine/Engine.ts';
import { listActivitiesOfInstance } from '../../src/store/queries/activities.ts';
import { listTimersOfInstance } from '../../src/store/queries/timers.ts';
import type { FakeClock } from '../helpers/processDriver.ts';

export type Attributes = Record<string, boolean | number | string>;

export interface Run {
  /** Element ids of the open user tasks, sorted (an element twice when it has two). */
  openTasks(): Promise<string[]>;
  /** Virtual time of the next timer, or undefined. */
  nextTimer(): Promise<number | undefined>;
  complete(element: string, set?: Attributes): Promise<void>;
  fireTimersUntil(time: number): Promise<void>;
  drain(): Promise<string[]>;
}

export const ADMIN_CALLER: Caller = { userName: 'LOCAL\\admin', userKey: 'local\\admin', rights: new Set(Array.from({ length: 87 }, (_, i) => i)) };

const JOIN_KINDS = new Set(['parallelGateway', 'inclusiveGateway']);

/** Waymark, in this process: the engine's own operations, a fake clock for the timers. */
export class WaymarkRun implements Run {
  private readonly reported = new Set<string>();

  private constructor(private readonly engine: Engine, private readonly clock: FakeClock, readonly procInstId: string, private readonly joins: Set<string>) {}

  static async start(engine: Engine, clock: FakeClock, xml: string, attributes: Attributes): Promise<WaymarkRun> {
    const def = await engine.createProcDef(ADMIN_CALLER, xml);
    await engine.releaseProcDef(ADMIN_CALLER, def.DefID);
    const event = await engine.createProcInst(ADMIN_CALLER, {
      ProcessID: def.DefID,
      Attributes: Object.entries(attributes).map(([Name, Value]) => ({ Name, Value: String(Value) })),
    });
    const model = await engine.deps.models.get(engine.deps.store.db, String(def.DefID));
    const joins = new Set([...model.nodes.values()].filter((n) => JOIN_KINDS.has(n.kind) && n.incoming.length > 1).map((n) => n.id));
    const run = new WaymarkRun(engine, clock, event.proc_inst_id, joins);
    await run.settle();
    return run;
  }

  private async settle(): Promise<void> {
    this.engine.dispatcher.wake();
    await this.engine.dispatcher.idle();
  }

  private async openItems(): Promise<any[]> {
    const list = await this.engine.getWorkListByUserID(ADMIN_CALLER, { UserName: ADMIN_CALLER.userName, Status: 'New;Assigned;Overdue' });
    return list.filter((w) => w.ProcInstID === this.procInstId);
  }

  async openTasks(): Promise<string[]> {
    return (await this.openItems()).map((w) => String(w.Name)).sort();
  }

  async nextTimer(): Promise<number | undefined> {
    const timers = await listTimersOfInstance(this.engine.deps.store.db, this.procInstId);
    const due = timers.filter((t) => t.status === 'Waiting' && t.kind !== 'overdue').map((t) => Number(t.due_date));
    return due.length ? Math.min(...due) : undefined;
  }

  async complete(element: string, set: Attributes = {}): Promise<void> {
    if (Object.keys(set).length) {
      await this.engine.updateProcInst(ADMIN_CALLER, this.procInstId, Object.entries(set).map(([Name, Value]) => ({ Name, Value: String(Value) })));
    }
    const item = (await this.openItems()).filter((w) => w.Name === element).sort((a, b) => (a.WorkItemID < b.WorkItemID ? -1 : 1))[0];
    if (!item) throw new Error(`Waymark has no open task ${element}`);
    if (item.Status === 'New') {
      await this.engine.assignWorkItem(ADMIN_CALLER, item.WorkItemID, null);
      await this.settle();
    }
    await this.engine.completeWorkItem(ADMIN_CALLER, item.WorkItemID, null);
    await this.settle();
  }

  async fireTimersUntil(time: number): Promise<void> {
    this.clock.ms = Math.max(this.clock.ms, time);
    await this.engine.timers.fireDue();
    await this.settle();
  }

  /** New activities, except joins, which count once they run (a waiting join has only been entered). */
  async drain(): Promise<string[]> {
    const reached: string[] = [];
    for (const a of await listActivitiesOfInstance(this.engine.deps.store.db, this.procInstId)) {
      if (this.reported.has(a.id)) continue;
      if (this.joins.has(a.name) && a.token_pos !== 2 && a.token_pos !== 3) continue;
      this.reported.add(a.id);
      reached.push(a.name);
    }
    return reached.sort();
  }
}

interface FakeTimer {
  callback: (...args: unknown[]) => void;
  args: unknown[];
  due: number;
}

/**
 * bpmn-engine with fake timers (virtual time) and FEEL conditions: a condition written `=expr`
 * is evaluated by feelin over the run's own attribute object, other expressions are returned as
 * written (durations such as PT2H). Service tasks pass straight through (its dummy service).
 */
export class BpmnEngineRun implements Run {
  private readonly reached: string[] = [];
  private readonly waiting: { id: string; executionId: string; api: any }[] = [];
  private readonly fake: FakeTimer[] = [];
  private now: number;
  errors: unknown[] = [];

  private constructor(private readonly attributes: Attributes, start: number) {
    this.now = start;
  }

  static async start(xml: string, attributes: Attributes, start: number): Promise<BpmnEngineRun> {
    const run = new BpmnEngineRun({ ...attributes }, start);
    const fakeTimeouts = {
      setTimeout: (callback: (...a: unknown[]) => void, delay: number, ...args: unknown[]) => {
        const t = { callback, args, due: run.now + roundToSecond(delay) };
        run.fake.push(t);
        return t;
      },
      clearTimeout: (t: FakeTimer) => {
        const i = run.fake.indexOf(t);
        if (i >= 0) run.fake.splice(i, 1);
      },
    };
    // Virtual time: bpmn-elements asks these for every timer instead of Node's setTimeout.
    const timers = new BpmnTimers(fakeTimeouts as unknown as ConstructorParameters<typeof BpmnTimers>[0]);
    const expressions = {
      resolveExpression: (expression: unknown) =>
        typeof expression === 'string' && expression.trim().startsWith('=') ? evaluate(expression.trim().slice(1), run.attributes).value : expression,
      isExpression: () => false,
      hasExpression: () => false,
    };
    const engine = new BpmnEngine({ name: 'differential', source: withFeelMarkers(xml), expressions, timers, settings: { enableDummyService: true } });
    const listener = run.listen();
    engine.on('error', (e: unknown) => run.errors.push(e));
    await engine.execute({ listener });
    await flush();
    return run;
  }

  private listen(): EventEmitter {
    const listener = new EventEmitter();
    // A boundary event starts with its activity; it is reached when its timer fires (the end of
    // its timer event definition).
    const boundaryEvents = new Set<string>();
    listener.on('activity.start', (api: any) => {
      if (api.type === 'bpmn:BoundaryEvent') boundaryEvents.add(api.id);
      else this.reached.push(api.id);
    });
    listener.on('activity.end', (api: any) => {
      if (api.type === 'bpmn:TimerEventDefinition' && boundaryEvents.has(api.id)) this.reached.push(api.id);
    });
    listener.on('activity.wait', (api: any) => {
      if (api.type === 'bpmn:UserTask') this.waiting.push({ id: api.id, executionId: api.executionId, api });
    });
    listener.on('activity.leave', (api: any) => {
      const i = this.waiting.findIndex((w) => w.executionId === api.executionId);
      if (i >= 0) this.waiting.splice(i, 1);
    });
    return listener;
  }

  async openTasks(): Promise<string[]> {
    return this.waiting.map((w) => w.id).sort();
  }

  async nextTimer(): Promise<number | undefined> {
    return this.fake.length ? Math.min(...this.fake.map((t) => t.due)) : undefined;
  }

  async complete(element: string, set: Attributes = {}): Promise<void> {
    Object.assign(this.attributes, set);
    const task = this.waiting.find((w) => w.id === element);
    if (!task) throw new Error(`bpmn-engine has no open task ${element}`);
    task.api.signal();
    await flush();
  }

  async fireTimersUntil(time: number): Promise<void> {
    this.now = Math.max(this.now, time);
    for (;;) {
      const due = this.fake.filter((t) => t.due <= this.now).sort((a, b) => a.due - b.due)[0];
      if (!due) break;
      this.fake.splice(this.fake.indexOf(due), 1);
      due.callback(...due.args);
      await flush();
    }
  }

  async drain(): Promise<string[]> {
    return this.reached.splice(0).sort();
  }
}

/** bpmn-engine evaluates a condition through the expressions hook only when marked: add `=`. */
function withFeelMarkers(xml: string): string {
  return xml.replace(/(<bpmn:conditionExpression[^>]*>)(?!=)/g, '$1=');
}

function roundToSecond(ms: number): number {
  return Math.round(ms / 1000) * 1000;
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}
