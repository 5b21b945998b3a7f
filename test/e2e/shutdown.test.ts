/**
 * Graceful shutdown (SIGTERM) and, on PostgreSQL, a lost database connection: clear answers,
 * nothing lost, recovery without a restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { DIALECT, basic, databaseEnv, fixture } from '../helpers/harness.ts';
import { startNode } from '../helpers/nodes.ts';
import { ADMIN, balancer, waitFinal } from '../helpers/workload.ts';
import { findPgBin, startPgCluster } from '../../scripts/pg-cluster.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-shutdown-'));
  dirs.push(d);
  return d;
}

const auth = { authorization: basic(ADMIN[0], ADMIN[1]), 'content-type': 'application/json' };

test('SIGTERM under load: requests in flight get real answers, the process exits 0, accepted events survive', { timeout: 120_000 }, async () => {
  const dataDir = tempDir();
  const env: Record<string, string> = { WAYMARK_DATA_DIR: dataDir, WAYMARK_ADMIN_PASSWORD: ADMIN[1], WAYMARK_LOG_LEVEL: 'warn', ...(await databaseEnv(dataDir)) };
  const node = await startNode(env);
  const def = await (await fetch(`${node.url}/EngineServer/Workflow/CreateProcDef`, { method: 'POST', headers: auth, body: JSON.stringify({ Xml: fixture('approval.bpmn') }) })).json();
  await fetch(`${node.url}/EngineServer/Workflow/ReleaseProcDef/${def.DefID}`, { method: 'POST', headers: auth });
  const inFlight = Array.from({ length: 150 }, (_, i) =>
    fetch(`${node.url}/EngineServer/Workflow/CreateProcInst`, { method: 'POST', headers: auth, body: JSON.stringify({ ProcessID: def.DefID, ProcInstName: `stop-${i}` }) })
      .then(async (r) => ({ status: r.status, body: await r.json(), retryAfter: r.headers.get('retry-after') }))
      .catch(() => null),
  );
  await new Promise((r) => setTimeout(r, 30));
  const exit = node.stop();
  const answers = await Promise.all(inFlight);
  assert.equal(await exit, 0);
  const answered = answers.filter((a) => a !== null);
  for (const a of answered) {
    assert.ok(a.status === 200 || a.status === 503, `status ${a.status}`);
    if (a.status === 503) assert.ok(Number(a.retryAfter) > 0);
  }
  const sent = answered.filter((a) => a.status === 200).map((a) => a.body.EventID as string);
  assert.ok(sent.length > 0, 'some requests were accepted before the shutdown');

  const again = await startNode(env);
  const call = balancer(() => [again.url], new Set());
  for (const id of sent) assert.equal((await waitFinal(call, id)).Status, 'Processed');
  assert.equal(await again.stop(), 0);
});

test('PostgreSQL connection lost: 503 with Retry-After, then recovery without a restart', { skip: (DIALECT !== 'postgres' || !findPgBin()) && 'needs PostgreSQL server binaries (PostgreSQL pass)', timeout: 120_000 }, async () => {
  const cluster = await startPgCluster(findPgBin()!);
  try {
    const url = cluster.url.replace(/\/postgres$/, '/postgres');
    const node = await startNode({ WAYMARK_DATA_DIR: tempDir(), WAYMARK_ADMIN_PASSWORD: ADMIN[1], WAYMARK_LOG_LEVEL: 'warn', WAYMARK_DATABASE_URL: url });
    const get = () => fetch(`${node.url}/EngineServer/Admin/GetRoles`, { headers: auth });
    assert.equal((await get()).status, 200);
    const def = await (await fetch(`${node.url}/EngineServer/Workflow/CreateProcDef`, { method: 'POST', headers: auth, body: JSON.stringify({ Xml: fixture('approval.bpmn') }) })).json();
    await fetch(`${node.url}/EngineServer/Workflow/ReleaseProcDef/${def.DefID}`, { method: 'POST', headers: auth });

    cluster.pause();
    const down = await fetch(`${node.url}/EngineServer/Workflow/CreateProcInst`, { method: 'POST', headers: auth, body: JSON.stringify({ ProcessID: def.DefID }) });
    assert.equal(down.status, 503, await down.clone().text());
    assert.ok(Number(down.headers.get('retry-after')) > 0);
    assert.equal((await down.json()).code, 'ServiceUnavailable');

    cluster.resume();
    let up = await get();
    for (let i = 0; i < 50 && up.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      up = await get();
    }
    assert.equal(up.status, 200, 'requests work again without restarting the node');
    const created = await fetch(`${node.url}/EngineServer/Workflow/CreateProcInst`, {
      method: 'POST', headers: { ...auth, prefer: 'wait=15' }, body: JSON.stringify({ ProcessID: def.DefID }),
    });
    assert.equal((await created.json()).Status, 'Processed', 'the dispatcher recovered');
    assert.equal(await node.stop(), 0);
  } finally {
    cluster.stop();
  }
});
