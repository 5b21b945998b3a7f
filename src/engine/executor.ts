/**
 * Moves tokens through a process model: the one generic activity lifecycle. An activity is entered
 * (TokenPos 3 executing, InStack true), runs its element's behaviour, and either waits (Pending)
 * or is left (TokenPos 2) and its outgoing flows are followed.
 */
import { WaymarkError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { FlowNode } from '../model/ProcessModel.ts';
import {
  cancelActiveActivities,
  countVisits,
  findActivity,
  insertActivity,
  listActiveActivities,
  updateActivity,
  type ActivityRow,
} from '../store/queries/activities.ts';
import { takeActivityOrdinal, updateInstance } from '../store/queries/instances.ts';
import { cancelOpenWorkItemsOfInstance, cancelWaitingProceduresOfInstance } from '../store/queries/workItems.ts';
import { BEHAVIOURS } from './behaviours/index.ts';
import { AuditCategory, audit, type RunContext } from './RunContext.ts';

export const TokenPos = { Inactive: 0, Entered: 1, Left: 2, Executing: 3 } as const;

/** Upper bound of elements one event may pass through: stops a runaway loop with a clear error. */
const MAX_STEPS_PER_EVENT = 10_000;
const steps = new WeakMap<RunContext, number>();

/** Start a new instance: a token on each start event; the instance is Running. */
export async function startInstance(rc: RunContext): Promise<void> {
  await updateInstance(rc.trx, rc.instance.proc_inst_id, { status: 'Running', last_modified_date: rc.now });
  rc.instance = { ...rc.instance, status: 'Running' };
  audit(rc, AuditCategory.ProcessInstance, rc.instance.proc_inst_id, 'Start process instance', `Started from ${rc.instance.def_name} version ${rc.instance.version}.`);
  for (const startId of rc.model.startNodeIds) await enterNode(rc, startId);
  await completeInstanceIfDone(rc);
}

async function enterNode(rc: RunContext, nodeId: string): Promise<void> {
  countStep(rc, nodeId);
  const node = nodeOf(rc, nodeId);
  const behaviour = BEHAVIOURS[node.kind];
  const waits = behaviour.waits(node);
  const activity: ActivityRow = {
    id: newId(rc.now),
    proc_inst_id: rc.instance.proc_inst_id,
    ord: await takeActivityOrdinal(rc.trx, rc.instance.proc_inst_id),
    name: node.id,
    display_name: node.name,
    kind: node.kind,
    status: 'Active',
    started_date: rc.now,
    completed_date: null,
    due_date: null,
    in_stack: 1,
    pending: waits ? 1 : 0,
    session: (await countVisits(rc.trx, rc.instance.proc_inst_id, node.id)) + 1,
    token_pos: TokenPos.Executing,
    tokens: 1,
  };
  await insertActivity(rc.trx, activity);
  await behaviour.enter(rc, node, activity);
  if (!waits) await leaveNode(rc, node, activity);
}

/** A waiting activity finished (its work item or automatic work item completed): move on. */
export async function completeActivity(rc: RunContext, activityId: string): Promise<void> {
  const activity = await findActivity(rc.trx, activityId);
  if (!activity || activity.status !== 'Active') return;
  await leaveNode(rc, nodeOf(rc, activity.name), activity);
  await completeInstanceIfDone(rc);
}

async function leaveNode(rc: RunContext, node: FlowNode, activity: ActivityRow): Promise<void> {
  await updateActivity(rc.trx, activity.id, {
    status: 'Passed',
    token_pos: TokenPos.Left,
    in_stack: 0,
    pending: 0,
    completed_date: rc.now,
  });
  if (node.kind === 'endEvent' && node.terminate) {
    await endInstance(rc, 'Completed', `Terminated at ${node.id}.`);
    return;
  }
  for (const flowId of node.outgoing) {
    if (rc.instance.status !== 'Running') return;
    const flow = rc.model.flows.get(flowId);
    if (flow) await enterNode(rc, flow.targetRef);
  }
}

async function completeInstanceIfDone(rc: RunContext): Promise<void> {
  if (rc.instance.status !== 'Running') return;
  const active = await listActiveActivities(rc.trx, rc.instance.proc_inst_id);
  if (active.length === 0) await endInstance(rc, 'Completed', 'Every path reached an end event.');
}

/** Finish the instance: whatever is still open is canceled. */
export async function endInstance(rc: RunContext, status: 'Completed' | 'Canceled', why: string): Promise<void> {
  const id = rc.instance.proc_inst_id;
  await cancelActiveActivities(rc.trx, id, rc.now);
  await cancelOpenWorkItemsOfInstance(rc.trx, id, rc.now, rc.event.sender);
  await cancelWaitingProceduresOfInstance(rc.trx, id, rc.now);
  await updateInstance(rc.trx, id, {
    status,
    completed_date: rc.now,
    last_modified_by: rc.event.sender,
    last_modified_date: rc.now,
  });
  rc.instance = { ...rc.instance, status };
  audit(rc, AuditCategory.ProcessInstance, id, status === 'Completed' ? 'Complete process instance' : 'Cancel process instance', why);
}

function nodeOf(rc: RunContext, nodeId: string): FlowNode {
  const node = rc.model.nodes.get(nodeId);
  if (!node) throw new Error(`Element ${nodeId} is not in process ${rc.model.processId}.`);
  return node;
}

function countStep(rc: RunContext, nodeId: string): void {
  const n = (steps.get(rc) ?? 0) + 1;
  steps.set(rc, n);
  if (n > MAX_STEPS_PER_EVENT) {
    throw new WaymarkError('InvalidRequest', `The instance passed ${MAX_STEPS_PER_EVENT} elements in one step (last ${nodeId}); it looks like an endless loop.`);
  }
}
