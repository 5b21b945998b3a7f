/**
 * Gateway joins, kept as data: a joining gateway's activity row stays active with TokenPos 1
 * (entered) while it waits; `arrived` lists the incoming flows whose tokens it holds and `Tokens`
 * counts them. A second token over the same flow starts the next row (the next round of a loop).
 */
import type { FlowNode, ProcessModel } from '../model/ProcessModel.ts';
import { insertActivity, listActiveOfNode, updateActivity, type ActivityRow } from '../store/queries/activities.ts';
import type { RunContext } from './RunContext.ts';

export const TokenPos = { Inactive: 0, Entered: 1, Left: 2, Executing: 3 } as const;

export function arrivedFlows(row: ActivityRow): string[] {
  return row.arrived === '' ? [] : row.arrived.split(',');
}

/**
 * A token reaches a joining gateway over `flowId`: it joins the oldest waiting row of that gateway
 * in its scope that has no token from that flow yet, or starts a new one (made by `newRow`).
 */
export async function recordArrival(
  rc: RunContext,
  node: FlowNode,
  scopeId: string,
  flowId: string,
  newRow: () => Promise<ActivityRow>,
): Promise<ActivityRow> {
  const waiting = await listActiveOfNode(rc.trx, rc.instance.proc_inst_id, node.id, scopeId);
  let row = waiting.find((r) => r.token_pos === TokenPos.Entered && !arrivedFlows(r).includes(flowId));
  if (!row) {
    row = { ...(await newRow()), token_pos: TokenPos.Entered, pending: 0, tokens: 0, arrived: '' };
    await insertActivity(rc.trx, row);
  }
  const arrived = [...arrivedFlows(row), flowId];
  const patch = { arrived: arrived.join(','), tokens: arrived.length };
  await updateActivity(rc.trx, row.id, patch);
  return { ...row, ...patch };
}

/** A parallel join runs once a token came over every incoming flow. */
export function allArrived(node: FlowNode, row: ActivityRow): boolean {
  const arrived = arrivedFlows(row);
  return node.incoming.every((flowId) => arrived.includes(flowId));
}

/**
 * The inclusive join of `row` may run when no other active activity of its scope can still send
 * a token to it: none sits on an element from which a path leads to the join without passing it.
 * `active` are the instance's active activities (an activity inside a sub-process is represented
 * by the sub-process's own activity in the join's scope).
 */
export function inclusiveJoinEnabled(model: ProcessModel, row: ActivityRow, active: readonly ActivityRow[]): boolean {
  const upstream = upstreamOf(model, row.name);
  return !active.some((other) => other.id !== row.id && other.scope_id === row.scope_id && upstream.has(other.name));
}

const upstreamCache = new WeakMap<ProcessModel, Map<string, ReadonlySet<string>>>();

/** Elements from which some path (sequence flows, boundary events) reaches `joinId` without passing through it. */
export function upstreamOf(model: ProcessModel, joinId: string): ReadonlySet<string> {
  let byJoin = upstreamCache.get(model);
  if (!byJoin) {
    byJoin = new Map();
    upstreamCache.set(model, byJoin);
  }
  const cached = byJoin.get(joinId);
  if (cached) return cached;
  const predecessors = new Map<string, string[]>();
  const addEdge = (from: string, to: string) => predecessors.set(to, [...(predecessors.get(to) ?? []), from]);
  for (const flow of model.flows.values()) addEdge(flow.sourceRef, flow.targetRef);
  for (const node of model.nodes.values()) if (node.attachedTo) addEdge(node.attachedTo, node.id);
  const found = new Set<string>();
  const queue = [joinId];
  while (queue.length) {
    for (const from of predecessors.get(queue.shift()!) ?? []) {
      if (from === joinId || found.has(from)) continue;
      found.add(from);
      queue.push(from);
    }
  }
  byJoin.set(joinId, found);
  return found;
}
