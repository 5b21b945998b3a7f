/**
 * Several server processes on one PostgreSQL database, as behind a load balancer: events are
 * claimed by any node, applied once, in per-instance order, and the result equals a single node's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { DIALECT, databaseEnv, fixture } from '../helpers/harness.ts';
import { startNode, type NodeProcess } from '../helpers/nodes.ts';
import { ADMIN, balancer, driveInstance, fingerprint, pool, setUpUsers, type Call } from '../helpers/workload.ts';

const INSTANCES = 200;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function cluster(count: number, extra: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-nodes-'));
  dirs.push(dir);
  const env: Record<string, string> = { WAYMARK_DATA_DIR: dir, WAYMARK_ADMIN_PASSWORD: ADMIN[1], WAYMARK_LOG_LEVEL: 'warn', ...(await databaseEnv(dir)), ...extra };
  const first = await startNode(env); // migrates and creates the admin before the others start
  const nodes: NodeProcess[] = [first];
  for (let i = 1; i < count; i++) nodes.push(await startNode(env));
  const accepted = new Set<string>();
  const call = balancer(() => nodes.map((n) => n.url), accepted);
  return { env, nodes, call, accepted, databaseUrl: env.WAYMARK_DATABASE_URL };
}

async function deployModel(call: Call): Promise<string> {
  const created = await call('POST', '/EngineServer/Workflow/CreateProcDef', { Xml: fixture('multinode.bpmn') }, ADMIN);
  assert.equal(created.status, 200, JSON.stringify(created.json));
  await call('POST', `/EngineServer/Workflow/ReleaseProcDef/${created.json.DefID}`, undefined, ADMIN);
  return created.json.DefID;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** Every accepted event is final, none applied twice, and per instance in dispatch order. */
async function assertExactlyOnceInOrder(url: string, accepted: Set<string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await query<{ n: number }>(url, `select count(*)::int as n from events where status = 'Sent'`))[0].n > 0) {
    assert.ok(Date.now() < deadline, 'events still Sent 30 s after the load');
    await new Promise((r) => setTimeout(r, 200));
  }
  const events = await query<{ event_id: string; status: string }>(url, 'select event_id, status from events');
  const known = new Map(events.map((e) => [e.event_id, e.status]));
  for (const id of accepted) {
    assert.ok(known.has(id), `accepted event ${id} is missing`);
    assert.ok(['Processed', 'Failed', 'Canceled'].includes(known.get(id)!), `event ${id} is ${known.get(id)}`);
  }
  const twice = await query(url, `select event_id, purpose, object_id, count(*) from audit_trail
     where event_id is not null group by event_id, purpose, object_id having count(*) > 1`);
  assert.deepEqual(twice, [], 'an event was applied twice');
  // Application order (first audit row of each event) follows dispatch order within each instance.
  const applied = await query<{ proc_inst_id: string; seq: number; high_priority: number; first_audit: number }>(url, `
    select e.proc_inst_id, e.seq, e.high_priority, min(a.id) as first_audit from events e
    join audit_trail a on a.event_id = e.event_id where e.status = 'Processed'
    group by e.proc_inst_id, e.seq, e.high_priority order by e.proc_inst_id, min(a.id)`);
  const last = new Map<string, { seq: number; hp: number }>();
  for (const row of applied) {
    const prev = last.get(row.proc_inst_id);
    if (prev && prev.hp === row.high_priority) assert.ok(prev.seq < row.seq, `instance ${row.proc_inst_id}: event ${row.seq} applied after ${prev.seq}`);
    last.set(row.proc_inst_id, { seq: row.seq, hp: row.high_priority });
  }
}

describe('several nodes on one PostgreSQL database', { skip: DIALECT !== 'postgres' && 'needs PostgreSQL (runs in the PostgreSQL pass)' }, () => {
  test(`three nodes drive ${INSTANCES} instances; the result equals a single-node replay`, { timeout: 300_000 }, async () => {
    const three = await cluster(3);
    await setUpUsers(three.call);
    const defId = await deployModel(three.call);
    const ids = await pool(INSTANCES, 24, (i) => driveInstance(three.call, defId, i));
    await assertExactlyOnceInOrder(three.databaseUrl, three.accepted);
    const byNode = await query<{ n: number }>(three.databaseUrl, `select count(distinct sender)::int as n from events`);
    assert.ok(byNode[0].n >= 1);
    const multi = await Promise.all(ids.map((pi) => fingerprint(three.call, pi)));
    for (const n of three.nodes) assert.equal(await n.stop(), 0, 'a node did not shut down cleanly');

    const one = await cluster(1);
    await setUpUsers(one.call);
    const defOne = await deployModel(one.call);
    const replayIds = await pool(INSTANCES, 24, (i) => driveInstance(one.call, defOne, i));
    const single = await Promise.all(replayIds.map((pi) => fingerprint(one.call, pi)));
    assert.deepEqual(multi, single);
    assert.equal(await one.nodes[0].stop(), 0);
  });

  test('kill -9 of a node mid-load: every accepted event is applied exactly once', { timeout: 300_000 }, async () => {
    const c = await cluster(3, { WAYMARK_CLAIM_LEASE_MS: '2000' });
    await setUpUsers(c.call);
    const defId = await deployModel(c.call);
    let done = 0;
    const load = pool(90, 18, async (i) => {
      try {
        await driveInstance(c.call, defId, i);
      } catch {
        // A call in flight on the killed node may have been applied or not; the instance may stop there.
      }
      done++;
    });
    while (done < 30) await new Promise((r) => setTimeout(r, 20));
    await c.nodes[1].kill();
    c.nodes.splice(1, 1);
    await load;
    c.nodes.push(await startNode(c.env));
    await assertExactlyOnceInOrder(c.databaseUrl, c.accepted);
    for (const n of c.nodes) assert.equal(await n.stop(), 0);
  });

  test('a password change or a disabled role on one node holds on the others at once', async () => {
    const c = await cluster(2);
    const [a, b] = c.nodes;
    const post = (node: NodeProcess, p: string, body: unknown, as: [string, string]) =>
      fetch(node.url + p, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${as[0]}:${as[1]}`).toString('base64')}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const carol: [string, string] = ['LOCAL\\carol', 'carol-password-1'];
    assert.equal((await post(a, '/EngineServer/Admin/RegisterUser', { UserName: carol[0], Password: carol[1] }, ADMIN)).status, 200);
    assert.equal((await post(a, '/EngineServer/Admin/AddRole', { RoleName: 'Cancelers', Rights: [14, 23] }, ADMIN)).status, 200);
    assert.equal((await post(a, '/EngineServer/Admin/AddRoleMember', { RoleName: 'Cancelers', Assignee: carol[0] }, ADMIN)).status, 200);
    assert.deepEqual(await (await post(b, '/EngineServer/Admin/GetAccessRights', {}, carol)).json(), [14, 23]);
    assert.equal((await post(a, '/EngineServer/Admin/UpdateRole', { RoleName: 'Cancelers', Enabled: false }, ADMIN)).status, 200);
    assert.deepEqual(await (await post(b, '/EngineServer/Admin/GetAccessRights', {}, carol)).json(), []);
    assert.equal((await post(a, '/EngineServer/Admin/UpdateRegisterUser', { UserName: carol[0], Password: 'carol-password-2' }, ADMIN)).status, 200);
    assert.equal((await post(b, '/EngineServer/Admin/GetAccessRights', {}, carol)).status, 401);
    assert.equal((await post(b, '/EngineServer/Admin/GetAccessRights', {}, [carol[0], 'carol-password-2'])).status, 200);
    // GetRegisterUsers answers from memory while the directory is unchanged: a user registered or
    // changed through another node shows at once all the same.
    const users = async (node: NodeProcess) =>
      ((await (await fetch(`${node.url}/EngineServer/Admin/GetRegisterUsers`, { headers: { authorization: `Basic ${Buffer.from(`${ADMIN[0]}:${ADMIN[1]}`).toString('base64')}` } })).json()) as any).GetRegisterUsersResult as any[];
    assert.ok(!(await users(b)).some((u) => u.UserName === 'LOCAL\\dora'));
    assert.equal((await post(a, '/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\dora' }, ADMIN)).status, 200);
    assert.ok((await users(b)).some((u) => u.UserName === 'LOCAL\\dora'), 'registered on a, listed by b at once');
    assert.equal((await post(a, '/EngineServer/Admin/UpdateRegisterUser', { UserName: carol[0], Title: 'Canceler' }, ADMIN)).status, 200);
    assert.equal((await users(b)).find((u) => u.UserName === carol[0])?.Title, 'Canceler', 'changed on a, shown by b at once');
    for (const n of c.nodes) assert.equal(await n.stop(), 0);
  });

  test('a version released on one node archives the one another node keeps: that node refuses it at its next call', async () => {
    const c = await cluster(2);
    const [a, b] = c.nodes;
    const post = (node: NodeProcess, p: string, body?: unknown) =>
      fetch(node.url + p, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${ADMIN[0]}:${ADMIN[1]}`).toString('base64')}`, 'content-type': 'application/json', prefer: 'wait=15' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const deploy = async (node: NodeProcess) => {
      const created = await (await post(node, '/EngineServer/Workflow/CreateProcDef', { Xml: fixture('multinode.bpmn') })).json();
      assert.equal((await post(node, `/EngineServer/Workflow/ReleaseProcDef/${created.DefID}`)).status, 200);
      return created.DefID as string;
    };
    const v1 = await deploy(a);
    // Node a starts instances of version 1 (and keeps its summary, definitions.ts).
    for (let i = 0; i < 2; i++) assert.equal((await post(a, '/EngineServer/Workflow/CreateProcInst', { ProcessID: v1 })).status, 200);
    await deploy(b); // version 2, released on b: version 1 is Archived
    const refused = await post(a, '/EngineServer/Workflow/CreateProcInst', { ProcessID: v1 });
    assert.equal(refused.status, 409, 'node a sees the release made on node b at once');
    assert.equal((await refused.json()).code, 'ProcessDefinitionNotReleased');
    for (const n of c.nodes) assert.equal(await n.stop(), 0);
  });
});
