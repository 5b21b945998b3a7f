/**
 * The database failing under the server, for real: another process holding SQLite's write lock,
 * and the database full (SQLITE_FULL, made with `PRAGMA max_page_count` on the server's own
 * connection). Writes answer 503 with Retry-After, reads go on where they can, nothing is half
 * written, and the server recovers by itself once the lock is gone or space is back.
 * SQLite only: these are SQLite's failure modes (PostgreSQL's are covered by its own tests).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DIALECT, fixture, startServer, type Reply, type TestServer } from '../helpers/harness.ts';
import { databaseDigest } from '../helpers/digest.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');

function assertUnavailable(r: Reply): void {
  assert.equal(r.status, 503, r.text);
  assert.equal(r.json.code, 'ServiceUnavailable');
  assert.equal(r.headers.get('retry-after'), '1');
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.doesNotMatch(r.text, /SQLITE|database is locked|disk/i);
}

/** Another process takes the write lock and holds it for `ms`. Resolves once it holds it. */
async function lockFromAnotherProcess(file: string, ms: number): Promise<{ released: Promise<void> }> {
  const script = `
    const db = new (require('better-sqlite3'))(${JSON.stringify(file)});
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => String(d).includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the locking process ended early (${code})`)));
  });
  return { released: done };
}

describe('database faults', { skip: DIALECT !== 'sqlite' && 'SQLite failure modes' }, () => {
  let s: TestServer;
  let file: string;
  before(async () => {
    s = await startServer();
    file = path.join(s.dataDir, 'waymark.db');
  });
  after(() => s.close());

  test('locked by another process: writes answer 503 + Retry-After, reads go on, and writes work again once it lets go', async () => {
    await sql`pragma busy_timeout = 150`.execute(s.waymark.store.db);
    try {
      const before = await databaseDigest(s);
      const { released } = await lockFromAnotherProcess(file, 2000);
      assertUnavailable(await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\during', Password: 'during-password-1' }));
      assertUnavailable(await s.post('/EngineServer/Admin/AddRole', { RoleName: 'during' }));
      const read = await s.get('/EngineServer/Admin/GetRoles');
      assert.equal(read.status, 200, 'reads are not blocked by a writer');
      await released;
      assert.equal(await databaseDigest(s), before, 'nothing was half written');
      const after = await s.post('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\during', Password: 'during-password-1' });
      assert.equal(after.status, 200, `recovered without a restart: ${after.text}`);
      assert.equal((await s.get('/EngineServer/Admin/GetRoles', { as: ['LOCAL\\during', 'during-password-1'] })).status, 200);
    } finally {
      await sql`pragma busy_timeout = 5000`.execute(s.waymark.store.db);
    }
  });

  test('database full: a write that needs space answers 503 + Retry-After and leaves no trace; freed space is used at once', async () => {
    const db = s.waymark.store.db;
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    const big = fixture('approval.bpmn').replace('name="Approval"', 'name="Big"').replace('</bpmn:definitions>', `<!-- ${'x'.repeat(300_000)} --></bpmn:definitions>`);
    await s.settle();
    const before = await databaseDigest(s);
    await sql`pragma max_page_count = ${sql.raw(String(rows[0].page_count))}`.execute(db);
    try {
      assertUnavailable(await s.post('/EngineServer/Workflow/CreateProcDef', { Xml: big }));
      const defs = await s.get('/EngineServer/Workflow/GetProcDefs');
      assert.equal(defs.status, 200, 'reads still work');
      assert.ok(!defs.text.includes('"Big"'));
    } finally {
      await sql`pragma max_page_count = 1073741823`.execute(db);
    }
    await s.settle();
    assert.equal(await databaseDigest(s), before, 'nothing was half written');
    assert.equal(s.waymark.store.integrityCheck(), 'ok');
    const again = await s.post('/EngineServer/Workflow/CreateProcDef', { Xml: big });
    assert.equal(again.status, 200, `recovered without a restart: ${again.text.slice(0, 300)}`);
    assert.equal(again.json.DefName, 'Big');
  });
});
