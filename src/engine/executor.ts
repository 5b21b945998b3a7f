/**
 * Moves tokens through a process model: the one generic activity lifecycle. A token arriving at an
 * element makes an activity instance (TokenPos 3 executing, InStack true) — or joins the waiting
 * activity of a joining gateway (TokenPos 1) — and the element's behaviour runs. It either waits
 * (Pending for people and other systems; boundary timers start), or is left (TokenPos 2) and its
 * chosen outgoing flows get tokens. Tokens wait in a queue until the current one is done, so that
 * an inclusive join only decides once no token is travelling any more. Scopes of embedded
 * sub-processes, joins and boundary events are rows in the database, never state in memory.
 */
import { WaymarkError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { FlowNode, ProcessModel } from '../model/ProcessModel.ts';
import { findActivity, insertActivity, listActiveActivities, updateActivity, type ActivityRow } from '../store/queries/activities.ts';
import { findOpenPartsIfIdle } from '../store/queries/openParts.ts';
import { cancelWaitingTimers } from '../store/queries/timers.ts';
import { BEHAVIOURS } from './behaviours/index.ts';
import type { Step } from './behaviours/Behaviour.ts';
import { cancelActivityTree, cancelScope, closedScopes } from './cancellation.ts';
import { clearIncidentOf, isIncident, raiseIncident } from './incidents.ts';
import { endInstance } from './instanceEnd.ts';
import { deferInstanceUpdate, markStartedHere, nextVisit, takeActivityOrdinal } from './instanceWrites.ts';
import { allArrived, inclusiveJoinEnabled, recordArrival, TokenPos } from './joins.ts';
import { AuditCategory, audit, type RunContext } from './RunContext.ts';
import { startEventTimer } from './timerSchedule.ts';

export { TokenPos } from './joins.ts';

/** Upper bound of elements one event may pass through: stops a runaway loop with a clear error. */
const MAX_STEPS_PER_EVENT = 10_000;

interface Token {
  nodeId: string;
  /** The sub-process activity the token runs in; '' at process level. */
  scopeId: string;
  /** The flow it came over; undefined when placed directly (start, rollback, boundary event). */
  flowId?: string;
}

interface Run {
  queue: Token[];
  steps: number;
}
const runs = new WeakMap<RunContext, Run>();

function runOf(rc: RunContext): Run {
  let run = runs.get(rc);
  if (!run) {
    run = { queue: [], steps: 0 };
    runs.set(rc, run);
  }
  return run;
}

/** Start a new instance: a token on its start event; the instance is Running. */
export async function startInstance(rc: RunContext): Promise<void> {
  // Written with the event's other changes to the row (instanceWrites.ts).
  deferInstanceUpdate(rc, rc.instance.proc_inst_id, { status: 'Running', last_modified_date: rc.now });
  markStartedHere(rc, rc.instance.proc_inst_id);
  rc.instance = { ...rc.instance, status: 'Running' };
  audit(rc, AuditCategory.ProcessInstance, rc.instance.proc_inst_id, 'Start process instance', `Started from ${rc.instance.def_name} version ${rc.instance.version}.`);
  await placeToken(rc, rc.model.startNodeIds[0], '');
}

/** Put a token on an element (no incoming flow: a start, a rollback target, a fired boundary event) and run. */
export async function placeToken(rc: RunContext, nodeId: string, scopeId: string): Promise<void> {
  runOf(rc).queue.push({ nodeId, scopeId });
  await run(rc);
}

/** A waiting activity finished (its task, system activity, child instance or timer): the token moves on. */
export async function completeActivity(rc: RunContext, activityId: string): Promise<void> {
  const activity = await findActivity(rc.trx, activityId);
  if (!activity || activity.status !== 'Active') return;
  const node = nodeOf(rc.model, activity.name);
  await leave(rc, node, activity, node.outgoing);
  await run(rc);
}

/** CancelActivityInst and canceled tasks: the activity is canceled and the token moves on along its flows. */
export async function cancelAndMoveOn(rc: RunContext, activity: ActivityRow, why: string): Promise<void> {
  await cancelActivityTree(rc, activity, why);
  const node = nodeOf(rc.model, activity.name);
  for (const flowId of node.outgoing) runOf(rc).queue.push(tokenOver(rc.model, flowId, activity.scope_id));
  await run(rc);
}

/** Moves every queued token as far as it goes, then lets joins and scopes settle. */
async function run(rc: RunContext): Promise<void> {
  const { queue } = runOf(rc);
  for (;;) {
    while (queue.length > 0 && rc.instance.status === 'Running') await arrive(rc, queue.shift()!);
    if (rc.instance.status !== 'Running') {
      queue.length = 0;
      return;
    }
    if (!(await settle(rc))) break;
  }
  // Ends when no activity is active: whether one is and what else is open, in one probe.
  const open = await findOpenPartsIfIdle(rc.trx, rc.instance.proc_inst_id);
  if (open) await endInstance(rc, 'Completed', 'Every path reached an end event.', open);
}

async function arrive(rc: RunContext, token: Token): Promise<void> {
  if (token.scopeId !== '' && closedScopes(rc).has(token.scopeId)) return;
  countStep(rc, token.nodeId);
  const node = nodeOf(rc.model, token.nodeId);
  const behaviour = BEHAVIOURS[node.kind];
  if (behaviour.join && node.incoming.length > 1 && token.flowId !== undefined) {
    const row = await recordArrival(rc, node, token.scopeId, token.flowId, () => newActivityRow(rc, node, token.scopeId));
    if (behaviour.join === 'all' && allArrived(node, row)) await execute(rc, node, row);
    return;
  }
  const row = await newActivityRow(rc, node, token.scopeId);
  if (behaviour.rowUnused) {
    // Written once, in the state the element leaves it in, instead of inserted Active and then
    // updated (bench statements: two statements per start and end event, one per gateway).
    await execute(rc, node, row, false);
    return;
  }
  await insertActivity(rc.trx, row);
  await execute(rc, node, row);
}

async function newActivityRow(rc: RunContext, node: FlowNode, scopeId: string): Promise<ActivityRow> {
  const id = rc.instance.proc_inst_id;
  return {
    id: newId(rc.now),
    proc_inst_id: id,
    ord: takeActivityOrdinal(rc, rc.instance),
    name: node.id,
    display_name: node.name,
    kind: node.kind,
    status: 'Active',
    started_date: rc.now,
    completed_date: null,
    due_date: null,
    in_stack: 1,
    pending: BEHAVIOURS[node.kind].pending(node) ? 1 : 0,
    session: await nextVisit(rc, id, node.id),
    token_pos: TokenPos.Executing,
    tokens: 1,
    scope_id: scopeId,
    arrived: '',
  };
}

/**
 * Runs the element's behaviour on its activity and does what the behaviour says. `stored` false:
 * the activity's row is not written yet (Behaviour.rowUnused); it is written once the behaviour
 * has said where the token goes.
 */
async function execute(rc: RunContext, node: FlowNode, activity: ActivityRow, stored = true): Promise<void> {
  if (stored && activity.token_pos !== TokenPos.Executing) {
    await updateActivity(rc.trx, activity.id, { token_pos: TokenPos.Executing });
  }
  let step: Step;
  try {
    step = await BEHAVIOURS[node.kind].enter(rc, node, activity);
  } catch (e) {
    if (!isIncident(e)) throw e;
    if (!stored) await insertActivity(rc.trx, activity);
    await raiseIncident(rc, activity, e.message);
    return;
  }
  if ('wait' in step) {
    if (!stored) await insertActivity(rc.trx, activity);
    await startBoundaryTimers(rc, node, activity);
    if (step.openScope) runOf(rc).queue.push({ nodeId: step.openScope, scopeId: activity.id });
  } else if ('terminate' in step) {
    await markLeft(rc, activity, stored);
    if (activity.scope_id === '') await endInstance(rc, 'Completed', `Terminated at ${node.id}.`);
    else await cancelScope(rc, activity.scope_id, `terminated at ${node.id}`);
  } else {
    await leave(rc, node, activity, step.leave, stored);
  }
}

async function startBoundaryTimers(rc: RunContext, node: FlowNode, activity: ActivityRow): Promise<void> {
  for (const boundaryId of node.boundaryEvents ?? []) {
    try {
      await startEventTimer(rc, 'boundary', activity, nodeOf(rc.model, boundaryId));
    } catch (e) {
      if (!isIncident(e)) throw e;
      await raiseIncident(rc, activity, e.message);
    }
  }
}

async function leave(rc: RunContext, node: FlowNode, activity: ActivityRow, flows: readonly string[], stored = true): Promise<void> {
  await markLeft(rc, activity, stored);
  if (node.boundaryEvents) rc.finalized.push(...(await cancelWaitingTimers(rc.trx, { activityInstId: activity.id, kind: 'boundary' }, rc.now)));
  for (const flowId of flows) runOf(rc).queue.push(tokenOver(rc.model, flowId, activity.scope_id));
}

async function markLeft(rc: RunContext, activity: ActivityRow, stored = true): Promise<void> {
  const left = { status: 'Passed', token_pos: TokenPos.Left, in_stack: 0, pending: 0, completed_date: rc.now } as const;
  if (stored) await updateActivity(rc.trx, activity.id, left);
  else await insertActivity(rc.trx, { ...activity, ...left });
  await clearIncidentOf(rc, activity.id);
}

/**
 * With no token travelling: run an inclusive join that nothing can reach any more, or complete a
 * sub-process that has no active activity left. True when something moved.
 */
async function settle(rc: RunContext): Promise<boolean> {
  const features = featuresOf(rc.model);
  if (!features.inclusiveJoins && !features.subProcesses) return false;
  const active = await listActiveActivities(rc.trx, rc.instance.proc_inst_id);
  for (const row of active) {
    if (row.kind === 'inclusiveGateway' && row.token_pos === TokenPos.Entered && inclusiveJoinEnabled(rc.model, row, active)) {
      await execute(rc, nodeOf(rc.model, row.name), row);
      return true;
    }
  }
  for (const row of active) {
    if (row.kind === 'subProcess' && !active.some((inner) => inner.scope_id === row.id)) {
      const node = nodeOf(rc.model, row.name);
      await leave(rc, node, row, node.outgoing);
      return true;
    }
  }
  return false;
}

function tokenOver(model: ProcessModel, flowId: string, scopeId: string): Token {
  const flow = model.flows.get(flowId);
  if (!flow) throw new Error(`Sequence flow ${flowId} is not in process ${model.processId}.`);
  return { nodeId: flow.targetRef, scopeId, flowId };
}

export function nodeOf(model: ProcessModel, nodeId: string): FlowNode {
  const node = model.nodes.get(nodeId);
  if (!node) throw new Error(`Element ${nodeId} is not in process ${model.processId}.`);
  return node;
}

const features = new WeakMap<ProcessModel, { inclusiveJoins: boolean; subProcesses: boolean }>();

function featuresOf(model: ProcessModel): { inclusiveJoins: boolean; subProcesses: boolean } {
  let f = features.get(model);
  if (!f) {
    const nodes = [...model.nodes.values()];
    f = {
      inclusiveJoins: nodes.some((n) => n.kind === 'inclusiveGateway' && n.incoming.length > 1),
      subProcesses: nodes.some((n) => n.kind === 'subProcess'),
    };
    features.set(model, f);
  }
  return f;
}

function countStep(rc: RunContext, nodeId: string): void {
  const run = runOf(rc);
  run.steps += 1;
  if (run.steps > MAX_STEPS_PER_EVENT) {
    throw new WaymarkError('InvalidRequest', `The instance passed ${MAX_STEPS_PER_EVENT} elements in one step (last ${nodeId}); it looks like an endless loop.`);
  }
}
