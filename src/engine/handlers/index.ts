import { activateWorkItem, cancelWorkItem, reassignWorkItem } from './taskEvents.ts';
import { cancelActivityInstance, rollbackProcessInstance } from './activityControl.ts';
import { cancelProcessInstance } from './cancelProcessInstance.ts';
import { childProcessCanceled, childProcessCompleted, childProcessIncident } from './childProcessEvents.ts';
import { completeProcedure } from './completeProcedure.ts';
import { createProcessInstance } from './createProcessInstance.ts';
import { createWorkItem } from './createWorkItem.ts';
import type { EventHandler } from './EventHandler.ts';
import { resumeProcessInstance, suspendProcessInstance } from './suspendResume.ts';
import { fireTimer, markWorkItemOverdue } from './timerEvents.ts';
import { updateWorkItem } from './updateWorkItem.ts';
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
    suspendProcessInstance,
    resumeProcessInstance,
    cancelActivityInstance,
    rollbackProcessInstance,
    reassignWorkItem,
    cancelWorkItem,
    activateWorkItem,
    updateWorkItem,
    fireTimer,
    markWorkItemOverdue,
    childProcessCompleted,
    childProcessCanceled,
    childProcessIncident,
  ].map((h) => [h.eventName, h]),
);
