/**
 * `waymark backup FILE` while a server runs and keeps writing, and `waymark restore FILE`:
 * refused while a server uses the database, refused for a file that is not a sound Waymark
 * database of a schema this release knows, and a restored database that a new server serves
 * with everything the backup held. SQLite only (PostgreSQL has pg_dump).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { backupCommand, restoreCommand } from '../../src/cli/backup.ts';
import { loadConfig } from '../../src/config.ts';
import { serverLockPath } from '../../src/store/serverLock.ts';
import { addUser, deploy, DIALECT, startInstance, startServer, type TestServer } from '../helpers/harness.ts';

const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'waymark.js');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-backup-'));
  dirs.push(d);
  return d;
}

/** Run the CLI without blocking this process (the server in it keeps answering). */
function waymark(args: string[], dataDir: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, WAYMARK_DATA_DIR: dataDir, WAYMARK_LOG_LEVEL: 'warn' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

async function userNames(s: TestServer): Promise<string[]> {
  const r = await s.post('/EngineServer/Admin/QueryRegisterUsersUsingSQL', { sqlWhereClause: '' });
  return r.json.map((u: { UserName: string }) => u.UserName).sort();
}

describe('backup and restore', { skip: DIALECT !== 'sqlite' && 'SQLite only; PostgreSQL uses pg_dump' }, () => {
  test('backup while the server writes, restore refused while it runs, then restored and served', async () => {
    const source = tempDir();
    const s = await startServer({ dataDir: source });
    await addUser(s, 'LOCAL\\alice', 'alice-password-1');
    const pi = await startInstance(s, await deploy(s, 'approval.bpmn'));
    const backupFile = path.join(tempDir(), 'nested', 'waymark-backup.db');

    // Writes go on during the backup.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const r = await s.post('/EngineServer/Admin/RegisterUser', { UserName: `LOCAL\\w${written}` });
        assert.equal(r.status, 200, r.text);
        written++;
      }
    })();
    const backup = await waymark(['backup', backupFile], source);
    writing = false;
    await writer;
    assert.equal(backup.status, 0, backup.stderr);
    assert.match(backup.stdout, /^Backed up .*waymark\.db to .*waymark-backup\.db \(\d+ pages, \d+ bytes; integrity ok\)\.\n$/);
    assert.ok(written > 0, 'the server kept writing');
    const usersIn = (file: string) => {
      const copy = new SQLite(file, { readonly: true });
      try {
        assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
        return (copy.prepare('select user_name from users order by user_key').all() as { user_name: string }[]).map((u) => u.user_name);
      } finally {
        copy.close();
      }
    };
    assert.ok(usersIn(backupFile).includes('LOCAL\\alice'));

    const again = await waymark(['backup', backupFile], source);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /exists; choose another file or pass --force/);
    assert.equal((await waymark(['backup', backupFile, '--force'], source)).status, 0);
    const inBackup = usersIn(backupFile);
    assert.ok(inBackup.includes(`LOCAL\\w${written - 1}`), 'the second backup has the later writes');

    const refused = await waymark(['restore', backupFile], source);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, new RegExp(`a Waymark server \\(pid ${process.pid} on .*\\) is using .*waymark\\.db; stop it first`));
    await addUser(s, 'LOCAL\\after', 'after-password-1');
    await s.close();
    assert.ok(!fs.existsSync(serverLockPath(path.join(source, 'waymark.db'))), 'a stopped server leaves no record');

    // Restore over the database it was taken from: what came after the backup is gone, and kept aside.
    const restored = await waymark(['restore', backupFile], source);
    assert.equal(restored.status, 0, restored.stderr);
    assert.match(restored.stdout, /Restored .*waymark\.db from .*\(schema 0001_initial/);
    const previous = /kept as (.+before-restore-\d{8}T\d{6}Z)\./.exec(restored.stdout)?.[1];
    assert.ok(previous && fs.existsSync(previous), restored.stdout);
    const kept = new SQLite(previous, { readonly: true });
    assert.ok(kept.prepare("select 1 from users where user_key = 'local\\after'").get(), 'the replaced database is kept');
    kept.close();

    const back = await startServer({ dataDir: source });
    try {
      const names = await userNames(back);
      assert.deepEqual(names, [...inBackup].sort());
      assert.ok(!names.includes('LOCAL\\after'));
      assert.equal((await back.get(`/EngineServer/Workflow/GetProcInst/${pi}`)).json.GetProcInstResult.Status, 'Running');
      assert.equal((await back.get('/EngineServer/Admin/GetRoles', { as: ['LOCAL\\alice', 'alice-password-1'] })).status, 200);
      assert.equal(back.waymark.store.integrityCheck(), 'ok');
    } finally {
      await back.close();
    }

    // Restore into an empty data directory: a new server starts from the backup.
    const fresh = tempDir();
    assert.equal((await waymark(['restore', backupFile], fresh)).status, 0);
    const other = await startServer({ dataDir: fresh });
    try {
      assert.deepEqual(await userNames(other), [...inBackup].sort());
    } finally {
      await other.close();
    }
  });

  test('restore refuses a file that is not a sound Waymark database of a known schema, and ignores a stale server record', async () => {
    // The same commands as above, called in this process (the CLI wiring is shown by the test above).
    const target = tempDir();
    const config = loadConfig({ WAYMARK_DATA_DIR: target });
    const said: string[] = [];
    const restore = (file: string) => restoreCommand(config, [file], (line) => said.push(line));
    const junk = path.join(target, 'junk.db');
    fs.writeFileSync(junk, 'this is not a database at all, just text that is long enough '.repeat(100));
    await assert.rejects(restore(junk), /is not an SQLite database|cannot be opened as an SQLite database/);

    const plain = path.join(target, 'plain.db');
    const p = new SQLite(plain);
    p.exec('create table t (x)');
    p.close();
    await assert.rejects(restore(plain), /is not a Waymark database \(it has no migration table\)/);

    const future = path.join(target, 'future.db');
    const f = new SQLite(future);
    f.exec("create table kysely_migration (name varchar(255) primary key, timestamp varchar(255)); insert into kysely_migration values ('0001_initial', 'x'), ('9999_from_the_future', 'x')");
    f.close();
    await assert.rejects(restore(future), /newer schema than this Waymark \(unknown migrations: 9999_from_the_future\)/);
    await assert.rejects(restore(path.join(target, 'missing.db')), /there is no backup at/);
    assert.ok(!fs.existsSync(path.join(target, 'waymark.db')), 'nothing was written');

    // A record left by a server that died does not block a restore.
    const good = tempDir();
    const s = await startServer({ dataDir: good });
    await s.close();
    const file = path.join(tempDir(), 'good.db');
    await backupCommand(loadConfig({ WAYMARK_DATA_DIR: good }), [file], (line) => said.push(line));
    await assert.rejects(backupCommand(loadConfig({ WAYMARK_DATA_DIR: good }), [path.join(good, 'waymark.db')], () => {}), /must not be the database itself/);
    fs.writeFileSync(serverLockPath(path.join(target, 'waymark.db')), JSON.stringify({ pid: 2 ** 22 + 12345, hostname: os.hostname(), url: 'http://x', startedAt: '' }));
    await restore(file);
    assert.match(said.at(-1)!, /^Restored .*waymark\.db from .*good\.db/);
    const restored = new SQLite(path.join(target, 'waymark.db'), { readonly: true });
    assert.equal(restored.pragma('integrity_check', { simple: true }), 'ok');
    restored.close();
  });
});
