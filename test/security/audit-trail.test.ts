/**
 * The audit trail: every operation that changes something writes at least one entry saying who
 * (Performer), when (DateOccurred) and what (Purpose, Description, ObjectID), readable with
 * QueryAuditTrail; every event the engine applied or failed has its entries; reads write none.
 * The operations come from the server's own list, so a new one without an audit entry fails here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATIONS } from '../../src/api/app.ts';
import { ACCESS_POLICY, type AccessRule } from '../../src/engine/accessPolicy.ts';
import { addUser, deploy, rawSql, startServer, type TestServer } from '../helpers/harness.ts';
import { BOB, operationFixtures, WAIT, type Req } from '../helpers/operationFixtures.ts';

let s: TestServer;
let fixtures: Record<string, () => Promise<Req>>;

/** Operations that only read: their names say so. */
const READS = /^(Get|Query)/;

async function auditCount(): Promise<number> {
  const rows = await rawSql(s, 'select count(*) as n from audit_trail');
  return Number(rows[0].n);
}

before(async () => {
  s = await startServer();
  await addUser(s, 'LOCAL\\alice', 'alice-password-1');
  await addUser(s, 'LOCAL\\bob', 'bob-password-1');
  fixtures = operationFixtures(s, await deploy(s, 'approval.bpmn'));
});
after(() => s.close());

describe('who, when, what', () => {
  for (const op of OPERATIONS) {
    const reads = READS.test(op.name);
    test(`${op.name} ${reads ? 'writes no entry' : 'writes an entry by its caller'}`, async (t) => {
      const prepare = fixtures[op.name];
      if (!prepare) return t.skip('no fixture (test/security/access-matrix.test.ts fails for it)');
      const req = await prepare();
      await s.settle();
      const before = await auditCount();
      const t0 = Date.now();
      // Only the assignee may call some operations (no right allows them): bob, in the fixtures.
      const rule: AccessRule = (ACCESS_POLICY as Record<string, AccessRule>)[op.name] ?? {};
      const caller = rule.right === undefined && rule.alternatives?.includes('assignee') ? BOB : undefined;
      const performer = caller ? caller[0] : 'LOCAL\\admin';
      const r = await s.request(req.method ?? op.method, req.path, { body: req.body ?? (op.method === 'POST' ? {} : undefined), headers: WAIT, as: caller });
      assert.ok(r.status >= 200 && r.status < 300, `${op.name}: ${r.status} ${r.text.slice(0, 300)}`);
      await s.settle();
      const added = await s.post('/EngineServer/Workflow/QueryAuditTrail', { where: `DATE_OCCURRED >= ${t0 - 1}` });
      if (reads) {
        assert.equal(await auditCount(), before, `${op.name} wrote to the audit trail`);
        return;
      }
      assert.ok((await auditCount()) > before, `${op.name} wrote no audit entry`);
      const mine = added.json.filter((a: { Performer: string }) => a.Performer === performer);
      assert.ok(mine.length > 0, `${op.name}: an entry with the caller as Performer in ${added.text.slice(0, 500)}`);
      for (const a of mine) {
        assert.ok(a.Purpose.trim() !== '' && a.Description.trim() !== '' && a.ObjectID.trim() !== '', JSON.stringify(a));
        const when = Number(/\((\d+)/.exec(a.DateOccurred)![1]);
        assert.ok(when >= t0 - 1 && when <= Date.now() + 1, `DateOccurred ${a.DateOccurred}`);
      }
    });
  }
});

test('every applied or failed event has its audit entries', async () => {
  const missing = await rawSql(
    s,
    "select e.event_name, e.status from events e where e.status in ('Processed', 'Failed') and not exists (select 1 from audit_trail a where a.event_id = e.event_id)",
  );
  assert.deepEqual(missing, []);
  const applied = await rawSql(s, "select count(*) as n from events where status in ('Processed', 'Failed')");
  assert.ok(Number(applied[0].n) > 20, 'the run above applied many events');
});
