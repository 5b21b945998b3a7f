import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { basic, databaseEnv, FIXTURES } from '../helpers/harness.ts';
import { BIN, createProcInstAndWait, startNode } from '../helpers/nodes.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-cli-'));
  dirs.push(d);
  return d;
}

function run(args: string[], env: Record<string, string>, input?: string) {
  return spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, WAYMARK_LOG_LEVEL: 'warn', ...env },
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Start `waymark serve` as its own process; resolves once it answers. */
async function serve(env: Record<string, string>) {
  const node = await startNode(env);
  return { url: node.url, stop: node.stop, log: node.log };
}

test('bad configuration stops start-up with one line naming the variable', () => {
  const r = run(['serve'], { WAYMARK_PORT: 'eighty', WAYMARK_DATA_DIR: tempDir() });
  assert.equal(r.status, 2);
  assert.match(r.stderr.trim(), /^waymark: WAYMARK_PORT: "eighty" is not a TCP port/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  const tz = run(['serve'], { WAYMARK_TIMEZONE: 'Mars/Olympus', WAYMARK_DATA_DIR: tempDir() });
  assert.equal(tz.status, 2);
  assert.match(tz.stderr, /WAYMARK_TIMEZONE/);
});

test('first start writes a random admin password to a 0600 file and logs only its path', async () => {
  const dir = tempDir();
  const srv = await serve({ WAYMARK_DATA_DIR: dir, ...(await databaseEnv(dir)) });
  const file = path.join(dir, 'initial-admin-password');
  const password = fs.readFileSync(file, 'utf8').trim();
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.ok(password.length >= 16);
  const r = await fetch(`${srv.url}/EngineServer/Admin/GetRegisterUsers`, { headers: { authorization: basic('LOCAL\\admin', password) } });
  assert.equal(r.status, 200);
  assert.equal(await srv.stop(), 0);
  assert.ok(srv.log().includes(file), 'the log names the password file');
  assert.ok(!srv.log().includes(password), 'the log never contains the password');
});

test('set up users, a role and a process from the command line, then use them over HTTP', async () => {
  const dir = tempDir();
  const env = { WAYMARK_DATA_DIR: dir, WAYMARK_ADMIN_PASSWORD: 'admin-password-1', ...(await databaseEnv(dir)) };
  assert.equal(run(['migrate'], env).status, 0);
  for (const u of ['alice', 'bob', 'carol']) {
    const r = run(['user', 'add', `LOCAL\\${u}`, '--full-name', u, '--password-stdin'], env, `${u}-password-1\n`);
    assert.equal(r.status, 0, r.stderr);
  }
  const role = run(['role', 'add', 'Starters', 'InitiateProcessInstance'], env);
  assert.equal(role.status, 0, role.stderr);
  assert.equal(run(['role', 'grant', 'Starters', '23'], env).status, 0);
  assert.equal(run(['role', 'add-member', 'Starters', 'LOCAL\\carol'], env).status, 0);
  const deployed = run(['deploy', path.join(FIXTURES, 'approval.bpmn'), '--release'], env);
  assert.equal(deployed.status, 0, deployed.stderr);
  assert.match(deployed.stdout, /Released Approval version 1/);
  const passwd = run(['user', 'passwd', 'LOCAL\\bob', '--password-stdin'], env, 'bob-password-2\n');
  assert.equal(passwd.status, 0, passwd.stderr);

  const srv = await serve(env);
  const carol = { authorization: basic('LOCAL\\carol', 'carol-password-1') };
  const pid = await (await fetch(`${srv.url}/EngineServer/Workflow/GetReleasedPID/Approval`, { headers: carol })).json();
  const created = await createProcInstAndWait(srv.url, carol, pid.GetReleasedPIDResult);
  assert.equal((await created.json()).Status, 'Processed');
  const oldBob = await fetch(`${srv.url}/EngineServer/Admin/GetRoles`, { headers: { authorization: basic('LOCAL\\bob', 'bob-password-1') } });
  assert.equal(oldBob.status, 401);
  const bobList = await fetch(`${srv.url}/EngineServer/Workflow/GetWorkListByUserID`, {
    method: 'POST',
    headers: { authorization: basic('LOCAL\\bob', 'bob-password-2'), 'content-type': 'application/json' },
    body: JSON.stringify({ UserName: 'LOCAL\\bob', Status: 'New' }),
  });
  assert.equal((await bobList.json()).length, 1);
  assert.equal(await srv.stop(), 0);

  // A second process on the same data directory sees everything.
  const again = await serve(env);
  const roles = await fetch(`${again.url}/EngineServer/Admin/GetRole/Starters`, { headers: carol });
  assert.equal((await roles.json()).GetRoleResult.RightFlags[11], 'Y');
  assert.equal(await again.stop(), 0);
});

test('an unknown command prints the usage and exits 2', () => {
  const r = run(['frobnicate'], { WAYMARK_DATA_DIR: tempDir() });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /Usage: waymark/);
});
