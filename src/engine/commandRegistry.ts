/**
 * The state-changing commands that admit an event (each answers a WFEvent, or nothing), by name:
 * the Engine runs them on this thread, or sends them by name to the writer thread (writerThread.ts),
 * which runs the same functions against its own connection.
 */
import type { EventRow } from '../store/queries/events.ts';
import type { Caller } from './accessPolicy.ts';
import * as instances from './commands/instanceCommands.ts';
import * as control from './commands/instanceControlCommands.ts';
import * as tasks from './commands/taskCommands.ts';
import { updateWorkItem } from './commands/updateWorkItemCommand.ts';
import * as workItems from './commands/workItemCommands.ts';
import type { EngineDeps } from './context.ts';

export const COMMANDS = {
  createLinkedWorkItem: workItems.createLinkedWorkItem,
  undoAssignWorkItem: workItems.undoAssignWorkItem,
  assignWorkItem: workItems.assignWorkItem,
  completeWorkItem: workItems.completeWorkItem,
  cancelProcInst: control.cancelProcInst,
  suspendProcInst: control.suspendProcInst,
  resumeProcInst: control.resumeProcInst,
  cancelActivityInst: control.cancelActivityInst,
  rollbackProcInst: control.rollbackProcInst,
  createProcInst: instances.createProcInst,
  completeProcedure: instances.completeProcedure,
  reassignWorkItem: tasks.reassignWorkItem,
  cancelWorkItem: tasks.cancelWorkItem,
  createWorkItem: tasks.createWorkItem,
  activateWorkItem: tasks.activateWorkItem,
  updateWorkItem,
} as const;

export type CommandName = keyof typeof COMMANDS;

/** A command's arguments after (deps, caller). */
export type CommandArgs<N extends CommandName> = (typeof COMMANDS)[N] extends (deps: EngineDeps, caller: Caller, ...args: infer A) => unknown ? A : never;

/** What a command answers: the event it admitted (null: CompleteWorkItem on an item already done). */
export type CommandResult<N extends CommandName> = Awaited<ReturnType<(typeof COMMANDS)[N]>>;

/** Async so that a command that throws before its first await still answers with a rejection. */
export async function runCommand<N extends CommandName>(name: N, deps: EngineDeps, caller: Caller, args: CommandArgs<N>): Promise<EventRow | null> {
  const fn = COMMANDS[name] as (deps: EngineDeps, caller: Caller, ...args: unknown[]) => Promise<EventRow | null>;
  return fn(deps, caller, ...(args as unknown[]));
}
