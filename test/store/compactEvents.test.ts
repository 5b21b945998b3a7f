/**
 * Migration 0003: events keep their ParamsXml packed (rows written before keep their exact text)
 * and the indexes that serve Sent events only are partial, still used by every query on them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { buildParamsXml, renderParamsXml } from '../../src/domain/paramsXml.ts';
import { migrationsFor } from '../../src/store/migrations/index.ts';
import {
  cancelPendingEventsOfInstance,
  claimEvents,
  countSentEvents,
  deferSentEventsOfInstance,
  findEvent,
  findEventAndEarlierPending,
  hasEarlierPendingEvent,
  listEventsOfInstance,
  nextSentEvents,
  releaseClaims,
  releaseDeferredEventsOfInstance,
  releaseExpiredClaims,
  type EventRow,
} from '../../src/store/queries/events.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import { openTestStore } from '../helpers/testStore.ts';
import { sqlitePlansOf } from '../helpers/sqlitePlans.ts';

const tempDb = tempDbFiles('waymark-compact-');
const openStore = openTestStore;

const PI = '0190F5A1B2C37D8E9F00112233445566';
const AI = '0190F5A1B2C37D8E9F00112233445567';
const WI = '0190F5A1B2C37D8E9F00112233445568';
const DEF = '0190F5A1B2C37D8E9F00112233445569';

/** Old rows (text ParamsXml) of every shape admission wrote, plus texts in other shapes. */
const OLD_EVENTS: Array<{ name: string; user: string; hp: number; xml: string; packed: string }> = [
  {
    name: 'CreateProcessInstance', user: 'LOCAL\\admin', hp: 0, packed: 'PDNHIX',
    xml: buildParamsXml([['ProcInstID', PI], ['ProcDefID', DEF], ['ProcInstName', 'Order <PO-1001> & "rush"'], ['HighPriority', false], ['Initiator', 'LOCAL\\admin'], ['SuperProcInstID', '']]),
  },
  {
    name: 'AssignWorkItem', user: 'LOCAL\\admin', hp: 0, packed: 'PAHW',
    xml: buildParamsXml([['ProcInstID', PI], ['ActivityInstID', AI], ['HighPriority', false], ['WorkItemID', WI]]),
  },
  {
    name: 'CreateWorkItem', user: 'LOCAL\\bob', hp: 0,
    packed: 'PAHW"ExpectedTime>2 DAY;BusinessTime=True""workPerformer>Check &lt;budget&gt;""SourceWorkItemID>' + AI + '""UserID>LOCAL\\carol""waitWorkPerformed>True""Carbon>False"',
    xml: buildParamsXml([
      ['ProcInstID', PI], ['ActivityInstID', AI], ['HighPriority', false], ['WorkItemID', WI], ['ExpectedTime', '2 DAY;BusinessTime=True'],
      ['workPerformer', 'Check <budget>'], ['SourceWorkItemID', AI], ['UserID', 'LOCAL\\carol'], ['waitWorkPerformed', true], ['Carbon', false],
    ]),
  },
  { name: 'CancelProcessInstance', user: '', hp: 1, packed: 'PH', xml: buildParamsXml([['ProcInstID', PI], ['HighPriority', true]]) },
  { name: 'Imported', user: '', hp: 0, packed: '!<?xml version="1.0"?><WFEvent/>', xml: '<?xml version="1.0"?><WFEvent/>' },
  { name: 'Empty', user: '', hp: 0, packed: '', xml: '<WFEvent></WFEvent>' },
];

test('migration 0003 packs the stored ParamsXml of existing events; each renders its old text exactly', async () => {
  const store = await openStore(tempDb());
  const all = migrationsFor(store.caps);
  const upTo0002 = { '0001_initial': all['0001_initial'], '0002_engine': all['0002_engine'] };
  const { error } = await new Migrator({ db: store.db, provider: { getMigrations: async () => upTo0002 } }).migrateToLatest();
  assert.equal(error, undefined);
  const old = store.db as unknown as Kysely<any>;
  for (const [i, e] of OLD_EVENTS.entries()) {
    await old.insertInto('events').values({
      event_id: `0190F5A1B2C37D8E9F0011223344${String(i).padStart(4, '0')}`, event_name: e.name, status: 'Processed', proc_inst_id: PI,
      activity_inst_id: AI, work_item_id: WI, user_id: e.user, sender: 'LOCAL\\admin', sent_date: 1, end_date: 2, high_priority: e.hp, auto_start: 0,
      params: '{}', params_xml: e.xml, proc_def_id: DEF, proc_inst_name: 'Order <PO-1001> & "rush"',
    }).execute();
  }
  await store.migrate();
  const rows = await listEventsOfInstance(store.db, PI);
  assert.deepEqual(rows.map((r) => r.params_xml_packed), OLD_EVENTS.map((e) => e.packed));
  assert.deepEqual(rows.map((r) => renderParamsXml(r.params_xml_packed, r)), OLD_EVENTS.map((e) => e.xml));
  const definitions = DIALECT === 'sqlite'
    ? await sql<{ d: string }>`select sql as d from sqlite_master where name in ('events_pending', 'events_instance_pending')`.execute(store.db)
    : await sql<{ d: string }>`select indexdef as d from pg_indexes where indexname in ('events_pending', 'events_instance_pending')`.execute(store.db);
  assert.equal(definitions.rows.length, 2);
  for (const r of definitions.rows) assert.match(r.d, /where \(?"?status"?\s*=\s*'Sent'/i);
  await store.close();
});

test('every query on pending events uses an index on SQLite, the partial ones included', { skip: DIALECT !== 'sqlite' && 'SQLite only' }, async () => {
  const statements = await sqlitePlansOf(tempDb(), async (db) => {
    const e = { event_id: 'E', proc_inst_id: PI, high_priority: 0, seq: 5 } as EventRow;
    await nextSentEvents(db, 10);
    await countSentEvents(db);
    await claimEvents(db, false, 'node', 1000, 100, 10);
    await hasEarlierPendingEvent(db, e);
    await releaseClaims(db, 'node');
    await releaseClaims(db, 'node', ['E']);
    await releaseExpiredClaims(db, 1000);
    await deferSentEventsOfInstance(db, PI);
    await releaseDeferredEventsOfInstance(db, PI);
    await cancelPendingEventsOfInstance(db, PI, 'E', 1000);
    await findEvent(db, 'E');
    await findEventAndEarlierPending(db, 'E');
  });
  assert.ok(statements.length >= 12);
  for (const { sql: text, plan } of statements) {
    assert.deepEqual(plan.filter((d) => /^SCAN events\b(?! USING)/.test(d)), [], `${text}\n${plan.join('\n')}`);
  }
});
