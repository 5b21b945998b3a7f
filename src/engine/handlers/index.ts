import { cancelProcessInstance } from './cancelProcessInstance.ts';
import { completeProcedure } from './completeProcedure.ts';
import { createProcessInstance } from './createProcessInstance.ts';
import { createWorkItem } from './createWorkItem.ts';
import type { EventHandler } from './EventHandler.ts';
import { assignWorkItem, completeWorkItem, undoAssignWorkItem } from './workItemEvents.ts';

/** Handlers by EventName. */
export const HANDLERS: ReadonlyMap<string, EventHandler> = new Map(
  [
    createProcessInstance,
    createWorkItem,
    assignWorkItem,
    undoAssignWorkItem,
    completeWorkItem,
    completeProcedure,
    cancelProcessInstance,
  ].map((h) => [h.eventName, h]),
);
