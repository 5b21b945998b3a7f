import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createWaymark } from '../../src/server.ts';
import { basic, databaseEnv } from '../helpers/harness.ts';

test('passwords and credentials never reach the log, even at trace level and on errors', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-secrets-'));
  const adminPassword = 'Admin-Secret-4711';
  const config = loadConfig({ WAYMARK_DATA_DIR: dataDir, WAYMARK_PORT: '0', WAYMARK_ADMIN_PASSWORD: adminPassword, WAYMARK_LOG_LEVEL: 'trace', ...(await databaseEnv(dataDir)) });
  const w = await createWaymark(config, { logger: pino({ level: 'trace' }, sink) });
  const url = await w.listen();
  const secrets = [adminPassword, 'Alice-Secret-0815', 'Alice-Secret-0816', 'Wrong-Secret-1234'];
  const call = (p: string, body: unknown, auth = basic('LOCAL\\admin', adminPassword)) =>
    fetch(url + p, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  assert.equal((await call('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\alice', Password: secrets[1] })).status, 200);
  assert.equal((await call('/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\alice', Password: secrets[2] })).status, 200);
  assert.equal((await call('/EngineServer/Admin/GetRoles', {}, basic('LOCAL\\alice', secrets[3]))).status, 401);
  assert.equal((await call('/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\bob', Password: 'short' })).status, 400);
  // An unexpected failure is logged with its request: it must not carry the credentials either.
  await sql`alter table roles rename to roles_gone`.execute(w.store.db);
  const broken = await fetch(`${url}/EngineServer/Admin/GetRoles`, { headers: { authorization: basic('LOCAL\\admin', adminPassword) } });
  assert.equal(broken.status, 500);
  await sql`alter table roles_gone rename to roles`.execute(w.store.db);
  await w.close();

  const log = lines.join('');
  assert.ok(log.includes('unexpected error'), 'the 500 was logged');
  for (const secret of [...secrets, 'short']) {
    assert.ok(!log.includes(secret), `the log contains ${secret}`);
    assert.ok(!log.includes(Buffer.from(`LOCAL\\alice:${secret}`).toString('base64')), 'the log contains encoded credentials');
  }
  assert.ok(!log.includes(Buffer.from(`LOCAL\\admin:${adminPassword}`).toString('base64')));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the OpenAPI document lists every operation once, with its body schema', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-openapi-'));
  const config = loadConfig({ WAYMARK_DATA_DIR: dataDir, WAYMARK_PORT: '0', WAYMARK_ADMIN_PASSWORD: 'admin-password-1', WAYMARK_LOG_LEVEL: 'silent', ...(await databaseEnv(dataDir)) });
  const w = await createWaymark(config);
  const url = await w.listen();
  const unauth = await fetch(`${url}/openapi.json`);
  assert.equal(unauth.status, 401);
  const doc = await (await fetch(`${url}/openapi.json`, { headers: { authorization: basic('LOCAL\\admin', 'admin-password-1') } })).json();
  const paths = Object.keys(doc.paths);
  assert.ok(paths.includes('/EngineServer/Workflow/CreateLinkedWorkItem'));
  assert.ok(paths.includes('/EngineServer/Admin/UpdateRole'));
  assert.ok(!paths.some((p) => p.startsWith('/EngineService/')), 'aliases are hidden');
  const body = doc.paths['/EngineServer/Workflow/CreateLinkedWorkItem'].post.requestBody.content['application/json'].schema;
  assert.deepEqual(body.required, ['SourceWorkItemID', 'WorkToPerform', 'UserID', 'Length', 'Unit']);
  assert.equal(doc.components.securitySchemes.basic.scheme, 'basic');
  await w.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
