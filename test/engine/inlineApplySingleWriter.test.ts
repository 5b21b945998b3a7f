/**
 * On a single writer (SQLite) the group commit applies its events at its end with no savepoint
 * around them (Dispatcher.inlineTail, `unguarded`): when an event fails there, the whole
 * transaction is undone, its calls are committed again without the application, and the
 * dispatcher's own pass applies the events — the batch first as a whole, in a transaction that is
 * undone too when the event fails again, then with a savepoint per event. Every effect happens
 * once: the failing event ends Failed, the others Processed, each audit row written once.
 *
 * In the server the tail runs on the writer thread; here, with that thread off, it is set on the
 * in-process store, which runs the same group commit and dispatcher.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Dispatcher } from '../../src/engine/Dispatcher.ts';
import { assertAssignOutcome, failAssignments } from '../helpers/failingAssign.ts';
import { DIALECT, addUser, deploy, startInstance, startServer } from '../helpers/harness.ts';

const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
const W = '/EngineServer/Workflow';

test('an event that fails in the group commit undoes the commit, its calls commit again without it, and the dispatcher applies each event once', { skip: DIALECT !== 'sqlite' && 'SQLite only (the single writer)', timeout: 60_000 }, async (t) => {
  // Commands and the dispatcher on this thread, where the handler below is replaced.
  const s = await startServer({ env: { WAYMARK_WRITER_THREAD: 'off' } });
  t.after(() => s.close());
  await addUser(s, alice[0], alice[1]);
  const defId = await deploy(s, 'approval.bpmn');
  for (let i = 0; i < 4; i++) await startInstance(s, defId);
  const items = ((await s.post(`${W}/GetWorkListByUserID`, { Status: 'New' }, { as: alice })).json as { WorkItemID: string }[]).map((w) => w.WorkItemID);
  assert.equal(items.length, 4);
  const doomedItem = items[1];

  const { store, engine } = s.waymark;
  assert.ok(engine.dispatcher instanceof Dispatcher);
  store.setGroupCommitTail(engine.dispatcher.inlineTail());
  const warnings: string[] = [];
  const logger = engine.deps.logger;
  const warn = logger.warn.bind(logger);
  logger.warn = ((obj: unknown, msg?: string) => {
    warnings.push(String(msg ?? obj));
    return warn(obj as object, msg);
  }) as typeof logger.warn;
  const { runs, restore } = failAssignments((id) => id === doomedItem);
  t.after(() => {
    restore();
    store.setGroupCommitTail(null);
    logger.warn = warn;
  });

  // Sent at once, so that they share group commits.
  const answers = await Promise.all(items.map((id) => s.post(`${W}/AssignWorkItem/${id}`, {}, { as: alice })));
  const eventIds = answers.map((r) => {
    assert.equal(r.status, 200, r.text);
    return r.json.EventID as string;
  });
  await engine.dispatcher.idle();

  assert.ok(warnings.some((m) => /applying events in the group commit failed/.test(m)), warnings.join('\n'));
  // The doomed event ran in the group commit and again in the dispatcher's pass (at least).
  assert.ok((runs.get(doomedItem) ?? 0) >= 2, `runs of the doomed event: ${runs.get(doomedItem)}`);
  for (const [i, id] of items.entries()) await assertAssignOutcome(s, id, eventIds[i], alice[0], id === doomedItem);
  // Exactly the four events: none was admitted twice by the second run of its call.
  const events = (await store.db.selectFrom('events').select(['event_id', 'work_item_id']).where('event_name', '=', 'AssignWorkItem').execute());
  assert.deepEqual(events.map((e) => e.event_id).sort(), [...eventIds].sort());
  assert.equal(store.integrityCheck(), 'ok');
});
