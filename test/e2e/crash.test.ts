/**
 * kill -9 of the server in the middle of a load: after a restart every accepted event is applied
 * exactly once and nothing accepted is missing; the SQLite file passes its integrity check.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DIALECT, databaseEnv, fixture } from '../helpers/harness.ts';
import { startNode, type NodeProcess } from '../helpers/nodes.ts';
import { ADMIN, balancer, driveInstance, pool, setUpUsers } from '../helpers/workload.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function rows(env: Record<string, string>, dataDir: string, text: string): Promise<any[]> {
  if (env.WAYMARK_DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.WAYMARK_DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  }
  const db = new Database(path.join(dataDir, 'waymark.db'), { readonly: true });
  try {
    return db.prepare(text).all();
  } finally {
    db.close();
  }
}

test(`kill -9 of the server mid-load loses nothing and applies nothing twice (${DIALECT})`, { timeout: 180_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-crash-'));
  dirs.push(dataDir);
  const env: Record<string, string> = {
    WAYMARK_DATA_DIR: dataDir, WAYMARK_ADMIN_PASSWORD: ADMIN[1], WAYMARK_LOG_LEVEL: 'warn', WAYMARK_CLAIM_LEASE_MS: '1000', ...(await databaseEnv(dataDir)),
  };
  let node: NodeProcess = await startNode(env);
  const accepted = new Set<string>();
  const call = balancer(() => [node.url], accepted);
  await setUpUsers(call);
  const created = await call('POST', '/EngineServer/Workflow/CreateProcDef', { Xml: fixture('multinode.bpmn') }, ADMIN);
  await call('POST', `/EngineServer/Workflow/ReleaseProcDef/${created.json.DefID}`, undefined, ADMIN);

  let done = 0;
  let crashed = false;
  const load = pool(60, 12, async (i) => {
    try {
      await driveInstance(call, created.json.DefID, i);
    } catch {
      // Calls that met the dead server stop that instance's script; what was accepted must survive.
    }
    done++;
  });
  while (done < 15) await new Promise((r) => setTimeout(r, 10));
  await node.kill();
  crashed = true;
  if (!env.WAYMARK_DATABASE_URL) {
    const db = new Database(path.join(dataDir, 'waymark.db'));
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
  }
  node = await startNode(env);
  await load;
  assert.ok(crashed);

  const deadline = Date.now() + 30_000;
  while ((await rows(env, dataDir, `select count(*) as n from events where status = 'Sent'`))[0].n > 0) {
    assert.ok(Date.now() < deadline, 'events still Sent 30 s after the restart');
    await new Promise((r) => setTimeout(r, 200));
  }
  const status = new Map((await rows(env, dataDir, 'select event_id, status from events')).map((r) => [r.event_id, r.status]));
  assert.ok(accepted.size > 100, `only ${accepted.size} events were accepted`);
  for (const id of accepted) {
    assert.ok(status.has(id), `accepted event ${id} is missing after the crash`);
    assert.ok(['Processed', 'Failed', 'Canceled'].includes(status.get(id)), `event ${id} is ${status.get(id)}`);
  }
  const twice = await rows(env, dataDir, `select event_id, purpose, object_id, count(*) as n from audit_trail
    where event_id is not null group by event_id, purpose, object_id having count(*) > 1`);
  assert.deepEqual(twice, [], 'an event was applied twice');
  assert.equal(await node.stop(), 0);
});
