/**
 * HTTPS with WAYMARK_TLS_CERT / WAYMARK_TLS_KEY (a self-signed certificate made at test time with
 * openssl), HSTS only over TLS, the security headers on every kind of answer, bad TLS files
 * stopping start-up with one line naming the variable, and the logs of a full run: a request id on
 * every line written for a request, and no password, credential, hash or key anywhere.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { requestContext, outsideRequest } from '../../src/engine/requestContext.ts';
import { createLogger, createWaymark, type Waymark } from '../../src/server.ts';
import { basic, databaseEnv } from '../helpers/harness.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'waymark.js');
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-tls-'));
const certFile = path.join(dir, 'cert.pem');
const keyFile = path.join(dir, 'key.pem');
const otherKeyFile = path.join(dir, 'other-key.pem');

function makeCertificate(): void {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', otherKeyFile], { stdio: 'ignore' });
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function httpsRequest(url: string, method: string, p: string, auth: string | null, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(`${url}${p}`, {
      method,
      ca: fs.readFileSync(certFile),
      headers: { ...(auth ? { authorization: auth } : {}), ...(payload ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('WAYMARK_TLS_CERT and WAYMARK_TLS_KEY', { skip: !hasOpenssl && 'openssl is not installed' }, () => {
  before(makeCertificate);

  test('bad files stop start-up with one line naming the variable', () => {
    const base = { WAYMARK_DATA_DIR: dir };
    const cases: [Record<string, string>, RegExp][] = [
      [{ WAYMARK_TLS_CERT: certFile }, /^WAYMARK_TLS_KEY: must be set together with WAYMARK_TLS_CERT/],
      [{ WAYMARK_TLS_KEY: keyFile }, /^WAYMARK_TLS_CERT: must be set together with WAYMARK_TLS_KEY/],
      [{ WAYMARK_TLS_CERT: path.join(dir, 'missing.pem'), WAYMARK_TLS_KEY: keyFile }, /^WAYMARK_TLS_CERT: .*missing\.pem does not exist\.$/],
      [{ WAYMARK_TLS_CERT: keyFile, WAYMARK_TLS_KEY: keyFile }, /^WAYMARK_TLS_CERT: .*key\.pem is not a PEM certificate\.$/],
      [{ WAYMARK_TLS_CERT: certFile, WAYMARK_TLS_KEY: certFile }, /^WAYMARK_TLS_KEY: .*cert\.pem is not a PEM private key\.$/],
      [{ WAYMARK_TLS_CERT: certFile, WAYMARK_TLS_KEY: otherKeyFile }, /^WAYMARK_TLS_KEY: .*other-key\.pem is not a readable, unencrypted private key for the certificate in WAYMARK_TLS_CERT\.$/],
    ];
    for (const [env, message] of cases) {
      assert.throws(() => loadConfig({ ...base, ...env }), (e: unknown) => e instanceof ConfigError && message.test(e.message) && !e.message.includes('\n'));
    }
    const r = spawnSync(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...base, WAYMARK_TLS_CERT: certFile, WAYMARK_TLS_KEY: otherKeyFile }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^waymark: WAYMARK_TLS_KEY: .+\n$/);
    assert.doesNotMatch(r.stderr, /BEGIN|PRIVATE KEY-----/);
  });

  test('the server speaks HTTPS only, with HSTS and the security headers', async () => {
    const dataDir = fs.mkdtempSync(path.join(dir, 'data-'));
    const config = loadConfig({
      WAYMARK_DATA_DIR: dataDir, WAYMARK_PORT: '0', WAYMARK_ADMIN_PASSWORD: 'admin-password-1', WAYMARK_LOG_LEVEL: 'silent',
      WAYMARK_TLS_CERT: certFile, WAYMARK_TLS_KEY: keyFile, ...(await databaseEnv(dataDir)),
    });
    const w = await createWaymark(config);
    try {
      const url = await w.listen();
      assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ok = await httpsRequest(url, 'GET', '/EngineServer/Workflow/GetUUID', basic('LOCAL\\admin', 'admin-password-1'));
      assert.equal(ok.status, 200, ok.text);
      const denied = await httpsRequest(url, 'GET', '/EngineServer/Workflow/GetUUID', null);
      const missing = await httpsRequest(url, 'GET', '/nowhere', basic('LOCAL\\admin', 'admin-password-1'));
      for (const r of [ok, denied, missing]) {
        assert.equal(r.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
        assert.equal(r.headers['x-content-type-options'], 'nosniff');
        assert.match(String(r.headers['x-request-id']), /^[0-9a-f]{16}$/);
      }
      assert.equal(denied.status, 401);
      await assert.rejects(fetch(url.replace('https:', 'http:') + '/EngineServer/Workflow/GetUUID'), 'plain HTTP is not served');
    } finally {
      await w.close();
    }
  });
});

describe('logs', () => {
  test("the engine's own log lines written during a request carry its id; background work's do not", () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (l: string) => lines.push(l) });
    requestContext.run({ reqId: '0123456789abcdef' }, () => {
      logger.warn('engine line during a request');
      logger.child({ reqId: 'fedcba9876543210' }).warn('request logger line');
      outsideRequest(() => logger.warn('background line'));
    });
    logger.warn('line outside any request');
    const parsed = lines.map((l) => JSON.parse(l));
    assert.deepEqual(parsed.map((l) => [l.msg, l.reqId]), [
      ['engine line during a request', '0123456789abcdef'],
      ['request logger line', 'fedcba9876543210'],
      ['background line', undefined],
      ['line outside any request', undefined],
    ]);
    assert.ok(lines.every((l) => (l.match(/"reqId"/g) ?? []).length <= 1), 'never two reqId keys on a line');
  });

  test('a full run at trace level: request ids on request lines, and no secret in any line', { skip: !hasOpenssl && 'openssl is not installed' }, async () => {
    if (!fs.existsSync(keyFile)) makeCertificate();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter((l) => l !== ''));
        done();
      },
    });
    const dataDir = fs.mkdtempSync(path.join(dir, 'full-'));
    const adminPassword = 'Admin-Secret-4711x';
    const config = loadConfig({
      WAYMARK_DATA_DIR: dataDir, WAYMARK_PORT: '0', WAYMARK_ADMIN_PASSWORD: adminPassword, WAYMARK_LOG_LEVEL: 'trace',
      WAYMARK_TLS_CERT: certFile, WAYMARK_TLS_KEY: keyFile, ...(await databaseEnv(dataDir)),
    });
    const w: Waymark = await createWaymark(config, { logger: createLogger('trace', sink) });
    const url = await w.listen();
    const admin = basic('LOCAL\\admin', adminPassword);
    const secrets = [adminPassword, 'Alice-Secret-0815x', 'Alice-Secret-0816x', 'Wrong-Secret-1234x', 'Bob-Secret-9999x'];
    const ids = new Set<string>();
    const call = async (method: string, p: string, body?: unknown, auth: string | null = admin) => {
      const r = await httpsRequest(url, method, p, auth, body);
      ids.add(String(r.headers['x-request-id']));
      return r;
    };
    const fixtureXml = fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'approval.bpmn'), 'utf8');
    assert.equal((await call('POST', '/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\alice', Password: secrets[1] })).status, 200);
    assert.equal((await call('POST', '/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\bob', Password: secrets[4] })).status, 200);
    assert.equal((await call('POST', '/EngineServer/Admin/UpdateRegisterUser', { UserName: 'LOCAL\\alice', Password: secrets[2] })).status, 200);
    assert.equal((await call('GET', '/EngineServer/Admin/GetRoles', undefined, basic('LOCAL\\alice', secrets[3]))).status, 401);
    assert.equal((await call('GET', '/EngineServer/Admin/GetRoles', undefined, basic('LOCAL\\ghost', secrets[3]))).status, 401);
    assert.equal((await call('POST', '/EngineServer/Admin/RegisterUser', { UserName: 'LOCAL\\carol', Password: 'short' })).status, 400);
    const def = await call('POST', '/EngineServer/Workflow/CreateProcDef', { Xml: fixtureXml });
    await call('POST', `/EngineServer/Workflow/ReleaseProcDef/${JSON.parse(def.text).DefID}`);
    const pi = await call('POST', '/EngineServer/Workflow/CreateProcInst', { ProcessID: JSON.parse(def.text).DefID });
    assert.equal(pi.status, 200, pi.text);
    await w.engine.dispatcher.idle();
    await call('POST', '/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: `USER_ID = '${secrets[2]}' OR 1=1` }, basic('LOCAL\\bob', secrets[4]));
    await call('POST', '/EngineServer/Workflow/QueryAuditTrail', { where: "PURPOSE LIKE '%user%'" });
    await call('POST', '/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: `STATUS = '${secrets[1]}'` });
    // An unexpected failure is logged with its request (and must not carry its credentials either).
    const { sql } = await import('kysely');
    await sql`alter table roles rename to roles_gone`.execute(w.store.db);
    assert.equal((await call('GET', '/EngineServer/Admin/GetRoles')).status, 500);
    await sql`alter table roles_gone rename to roles`.execute(w.store.db);
    await w.close();

    const log = lines.join('\n');
    const key = fs.readFileSync(keyFile, 'utf8').split('\n').filter((l) => l.length > 40);
    const forbidden = [
      ...secrets,
      'short',
      ...secrets.flatMap((pw) => ['LOCAL\\alice', 'LOCAL\\bob', 'LOCAL\\admin', 'LOCAL\\ghost'].map((u) => Buffer.from(`${u}:${pw}`).toString('base64'))),
      'scrypt$',
      ...key,
    ];
    for (const secret of forbidden) assert.ok(!log.includes(secret), `the log contains ${secret.slice(0, 12)}…`);
    let withId = 0;
    for (const line of lines) {
      const entry = JSON.parse(line);
      if (entry.reqId !== undefined) {
        withId++;
        assert.ok(ids.has(entry.reqId), `reqId ${entry.reqId} of "${entry.msg}" was the X-Request-Id of an answer`);
      } else if (entry.level >= 50) {
        assert.fail(`an error line without a request id: ${line.slice(0, 300)}`);
      }
    }
    assert.ok(log.includes('unexpected error'), 'the 500 was logged');
    assert.ok(withId >= 1, 'request lines carry their id');
  });
});
