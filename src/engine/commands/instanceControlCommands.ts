/** Admission of CancelProcInst, SuspendProcInst, ResumeProcInst, CancelActivityInst and RollbackProcInst. */
import { WaymarkError } from '../../domain/errors.ts';
import { findActivity, type ActivityRow } from '../../store/queries/activities.ts';
import type { EventRow } from '../../store/queries/events.ts';
import type { InstanceRow } from '../../store/queries/instances.ts';
import type { Executor } from '../../store/Store.ts';
import { authorize, type Caller, type OperationName } from '../accessPolicy.ts';
import { admitEvent } from '../admission.ts';
import type { EngineDeps } from '../context.ts';
import { requireId } from '../validate.ts';
import { activeInstance } from './workItemCommands.ts';

/** Elements whose activity CancelActivityInst may cancel: those that wait for something. */
const CANCELABLE_KINDS: ReadonlySet<string> = new Set([
  'userTask', 'manualTask', 'serviceTask', 'sendTask', 'scriptTask', 'callActivity', 'subProcess', 'intermediateCatchEvent',
]);

/**
 * Each of these admissions reads, then writes one row (the event): on SQLite it needs no savepoint
 * of its own (GroupCommitter), two of its four statements (CancelProcInst: savepoint, instance,
 * insert, release).
 */
const SINGLE_WRITE = { singleWrite: true } as const;

/** CancelProcInst: any instance that has not finished (activeInstance refuses the others with 409). */
export function cancelProcInst(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<EventRow> {
  return instanceEvent(deps, caller, 'CancelProcInst', 'CancelProcessInstance', idIn, () => {});
}

export function suspendProcInst(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<EventRow> {
  return instanceEvent(deps, caller, 'SuspendProcInst', 'SuspendProcessInstance', idIn, (instance) => {
    if (instance.status !== 'Running') {
      throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${instance.proc_inst_id} is ${instance.status}; only a Running instance can be suspended.`);
    }
  });
}

export function resumeProcInst(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<EventRow> {
  return instanceEvent(deps, caller, 'ResumeProcInst', 'ResumeProcessInstance', idIn, (instance) => {
    if (instance.status !== 'Suspended') {
      throw new WaymarkError('ProcessInstanceNotSuspended', `Process instance ${instance.proc_inst_id} is ${instance.status}; only a Suspended instance can be resumed.`);
    }
  });
}

/** A high-priority event about a whole instance (ParamsXml: ProcInstID, HighPriority). */
async function instanceEvent(
  deps: EngineDeps,
  caller: Caller,
  op: OperationName,
  eventName: string,
  idIn: unknown,
  check: (instance: InstanceRow) => void,
): Promise<EventRow> {
  await authorize(caller, op);
  const id = requireId(idIn, 'processInstanceID');
  return deps.store.grouped(async (trx) => {
    const instance = await activeInstance(trx, id);
    check(instance);
    return admitEvent(trx, {
      eventName,
      instance,
      caller,
      now: deps.now(),
      highPriority: true,
      xmlParams: [
        ['ProcInstID', id],
        ['HighPriority', true],
      ],
    });
  }, SINGLE_WRITE);
}

export async function cancelActivityInst(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<EventRow> {
  await authorize(caller, 'CancelActivityInst');
  const id = requireId(idIn, 'activityInstanceID');
  return deps.store.grouped(async (trx) => {
    const { activity, instance } = await activityAndRunningInstance(trx, id);
    if (activity.status !== 'Active') {
      throw new WaymarkError('ActivityNotActive', `Activity instance ${id} (${activity.name}) is ${activity.status}; only an active one can be canceled.`);
    }
    if (!CANCELABLE_KINDS.has(activity.kind)) {
      throw new WaymarkError(
        'ActivityNotCancelable',
        `Activity instance ${id} is the ${activity.kind} ${activity.name}; a gateway decides where its token goes: roll the instance back (RollbackProcInst) instead.`,
      );
    }
    return activityEvent(deps, trx, caller, 'CancelActivityInstance', instance, activity);
  }, SINGLE_WRITE);
}

export async function rollbackProcInst(deps: EngineDeps, caller: Caller, idIn: unknown): Promise<EventRow> {
  await authorize(caller, 'RollbackProcInst');
  const id = requireId(idIn, 'activityInstanceID');
  return deps.store.grouped(async (trx) => {
    const { activity, instance } = await activityAndRunningInstance(trx, id);
    if (activity.scope_id !== '') {
      throw new WaymarkError(
        'RollbackNotPossible',
        `Activity instance ${id} (${activity.name}) ran inside an embedded sub-process; roll back to the sub-process's own activity instance instead.`,
      );
    }
    return activityEvent(deps, trx, caller, 'RollbackProcessInstance', instance, activity);
  }, SINGLE_WRITE);
}

async function activityAndRunningInstance(trx: Executor, id: string): Promise<{ activity: ActivityRow; instance: InstanceRow }> {
  const activity = await findActivity(trx, id);
  if (!activity) throw new WaymarkError('ActivityInstanceNotFound', `Activity instance ${id} does not exist.`);
  const instance = await activeInstance(trx, activity.proc_inst_id);
  if (instance.status !== 'Running') {
    throw new WaymarkError('ProcessInstanceNotActive', `Process instance ${instance.proc_inst_id} is ${instance.status}, not Running.`);
  }
  return { activity, instance };
}

function activityEvent(
  deps: EngineDeps,
  trx: Parameters<typeof admitEvent>[0],
  caller: Caller,
  eventName: string,
  instance: InstanceRow,
  activity: ActivityRow,
): Promise<EventRow> {
  return admitEvent(trx, {
    eventName,
    instance,
    caller,
    now: deps.now(),
    activityInstId: activity.id,
    xmlParams: [
      ['ProcInstID', instance.proc_inst_id],
      ['ActivityInstID', activity.id],
      ['HighPriority', false],
    ],
  });
}
