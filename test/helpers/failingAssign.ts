/**
 * AssignWorkItem applications that fail on purpose, for the tests of how a group commit applies
 * its events when one of them fails (inlineApplySingleWriter, inlineApplyShared): the handler is
 * replaced in this process, its runs counted per work item, and each call's outcome checked.
 */
import assert from 'node:assert/strict';
import { WaymarkError } from '../../src/domain/errors.ts';
import type { EventHandler } from '../../src/engine/handlers/EventHandler.ts';
import { HANDLERS } from '../../src/engine/handlers/index.ts';
import { listAuditOfEvent } from '../../src/store/queries/audit.ts';
import type { TestServer } from './harness.ts';

export const FAILURE_MESSAGE = 'refused after writing, on purpose';

/**
 * From now on AssignWorkItem's application writes as usual, then throws for the items `fails`
 * names. Answers the runs per work item and a function that puts the real handler back.
 */
export function failAssignments(fails: (workItemId: string) => boolean): { runs: Map<string, number>; restore: () => void } {
  const handlers = HANDLERS as Map<string, EventHandler>;
  const assign = handlers.get('AssignWorkItem')!;
  const runs = new Map<string, number>();
  handlers.set('AssignWorkItem', {
    eventName: 'AssignWorkItem',
    async apply(rc) {
      runs.set(rc.event.work_item_id, (runs.get(rc.event.work_item_id) ?? 0) + 1);
      await assign.apply(rc);
      if (fails(rc.event.work_item_id)) throw new WaymarkError('InvalidRequest', FAILURE_MESSAGE);
    },
  });
  return { runs, restore: () => handlers.set('AssignWorkItem', assign) };
}

/**
 * The call that assigned `workItemId` to `user` (its event `eventId`) had its effect exactly once:
 * Processed, applied on its first entry, one audit row and the item assigned; or, where its
 * application failed, Failed with the message, one failure audit row and the item still New.
 */
export async function assertAssignOutcome(s: TestServer, workItemId: string, eventId: string, user: string, failed: boolean): Promise<void> {
  const event = (await s.get(`/EngineServer/Workflow/GetEvent/${eventId}`)).json.GetEventResult;
  const audit = await listAuditOfEvent(s.waymark.store.db, eventId);
  const item = (await s.get(`/EngineServer/Workflow/GetWorkItem/${workItemId}`)).json.GetWorkItemResult;
  if (failed) {
    assert.equal(event.Status, 'Failed');
    assert.equal(event.Error.Message, FAILURE_MESSAGE);
    assert.deepEqual(audit.map((a) => [a.purpose, a.status]), [['AssignWorkItem', 1]]);
    assert.equal(item.Status, 'New');
  } else {
    assert.equal(event.Status, 'Processed');
    assert.equal(event.Entries, 1);
    assert.deepEqual(audit.map((a) => a.purpose), ['Assign work item']);
    assert.equal(item.UserID, user);
  }
}
