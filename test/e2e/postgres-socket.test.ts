/**
 * WAYMARK_DATABASE_URL naming a PostgreSQL Unix socket (configuration.md): the URL forms are
 * accepted or refused at start-up, a password in the query string is never logged, and a node
 * whose URL names the socket directory serves a whole instance with every one of its connections
 * (the pool and the listener of notifications) on the socket.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { findPgBin, startPgCluster } from '../../scripts/pg-cluster.ts';
import { ConfigError, describeDatabase, loadConfig } from '../../src/config.ts';
import { DIALECT, fixture } from '../helpers/harness.ts';
import { startNode } from '../helpers/nodes.ts';
import { ADMIN } from '../helpers/workload.ts';

const auth = { authorization: `Basic ${Buffer.from(`${ADMIN[0]}:${ADMIN[1]}`).toString('base64')}`, 'content-type': 'application/json' };

function urlOf(url: string) {
  return loadConfig({ WAYMARK_DATA_DIR: os.tmpdir(), WAYMARK_DATABASE_URL: url }).postgresUrl;
}

test('a PostgreSQL URL may name a Unix socket directory; one with neither host nor socket is refused', () => {
  assert.equal(urlOf('postgres://waymark@localhost:5433/db?host=/run/postgresql'), 'postgres://waymark@localhost:5433/db?host=/run/postgresql');
  assert.equal(urlOf('postgres:///db?host=/run/postgresql'), 'postgres:///db?host=/run/postgresql');
  assert.equal(urlOf('postgresql://waymark@%2Frun%2Fpostgresql/db'), 'postgresql://waymark@%2Frun%2Fpostgresql/db');
  assert.throws(() => urlOf('postgres:///db'), (e: unknown) => e instanceof ConfigError && /WAYMARK_DATABASE_URL/.test(e.message) && /\?host=/.test(e.message));
  assert.throws(() => urlOf('postgres://localhost/'), ConfigError);
});

test('a password in the URL, in its user part or its query string, is not in the description that is logged', () => {
  const config = loadConfig({ WAYMARK_DATA_DIR: os.tmpdir(), WAYMARK_DATABASE_URL: 'postgres://waymark:s3cret-1@db/waymark?host=/run/postgresql&password=s3cret-2&sslpassword=s3cret-3' });
  const shown = describeDatabase(config);
  assert.doesNotMatch(shown, /s3cret/);
  assert.match(shown, /host=%2Frun%2Fpostgresql/);
});

test('a node whose URL names the socket directory runs on the socket only', { skip: (DIALECT !== 'postgres' || !findPgBin()) && 'needs PostgreSQL server binaries (PostgreSQL pass)', timeout: 120_000 }, async () => {
  const cluster = await startPgCluster(findPgBin()!);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-socket-'));
  const observer = new pg.Client({ connectionString: cluster.url });
  try {
    const url = `postgres://waymark@localhost:${cluster.port}/postgres?host=${encodeURIComponent(cluster.socketDir)}`;
    const node = await startNode({ WAYMARK_DATA_DIR: dataDir, WAYMARK_ADMIN_PASSWORD: ADMIN[1], WAYMARK_LOG_LEVEL: 'warn', WAYMARK_DATABASE_URL: url });
    try {
      const def = await (await fetch(`${node.url}/EngineServer/Workflow/CreateProcDef`, { method: 'POST', headers: auth, body: JSON.stringify({ Xml: fixture('approval.bpmn') }) })).json();
      assert.equal((await fetch(`${node.url}/EngineServer/Workflow/ReleaseProcDef/${def.DefID}`, { method: 'POST', headers: auth })).status, 200);
      const created = await fetch(`${node.url}/EngineServer/Workflow/CreateProcInst`, { method: 'POST', headers: { ...auth, prefer: 'wait=15' }, body: JSON.stringify({ ProcessID: def.DefID }) });
      assert.equal(created.status, 200);
      assert.equal((await created.json()).Status, 'Processed');

      // Unix-socket backends have no client address; this observer comes over TCP and is left out.
      await observer.connect();
      const { rows } = await observer.query(
        `select count(*) filter (where client_addr is null)::int as socket, count(*) filter (where client_addr is not null)::int as tcp,
                count(*) filter (where query ilike 'listen%')::int as listening
           from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()`,
      );
      assert.equal(rows[0].tcp, 0, 'no connection of the node over TCP');
      assert.ok(rows[0].socket >= 2, `the pool and the listener on the socket (${rows[0].socket})`);
      assert.equal(rows[0].listening, 1, 'the listener of notifications connected');
    } finally {
      assert.equal(await node.stop(), 0);
    }
  } finally {
    await observer.end().catch(() => {});
    cluster.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
