/**
 * The JavaScript build `npm start` runs (scripts/build.mjs): it runs the whole server, writer
 * thread included, with no TypeScript loader; it is rebuilt only when the sources change; and a
 * build that no longer matches the sources is never run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, builtEntry, serverEntry } from '../../scripts/build.mjs';
import { basic, databaseEnv, FIXTURES } from '../helpers/harness.ts';
import { createProcInstAndWait, startNode } from '../helpers/nodes.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
// Inside the checkout, so that the build's imports of packages resolve to its node_modules.
const OUT = path.join(ROOT, 'tmp', `build-test-${process.pid}`);
const dirs: string[] = [OUT];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Runs the built CLI with args: a node with no loader and no NODE_OPTIONS. */
function builtCli(entry: string, args: string[], env: Record<string, string>) {
  const script = `const { main } = await import(${JSON.stringify(pathToFileURL(entry).href)}); process.exitCode = await main(${JSON.stringify(args)});`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS'));
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...clean, WAYMARK_LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 60_000 });
}

function jsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).map((f) => path.join(dir, f));
}

test('the build is plain JavaScript, made once per version of the sources', { timeout: 120_000 }, () => {
  assert.equal(build(OUT), 'built');
  assert.equal(build(OUT), 'up to date');
  const entry = builtEntry(OUT);
  assert.equal(entry, path.join(OUT, 'cli', 'main.js'));
  const files = jsFiles(OUT);
  assert.ok(files.length > 100, `${files.length} modules`);
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    assert.doesNotMatch(text, /(from |import\()\s*['"]\.{1,2}\/[^'"]*\.ts['"]/, `${path.relative(OUT, f)} imports TypeScript`);
  }
  assert.ok(fs.existsSync(path.join(OUT, 'engine', 'writerWorker.js')));
});

test('the built server runs without a loader (on SQLite, its writer thread included)', { timeout: 120_000 }, async () => {
  if (!builtEntry(OUT)) build(OUT);
  const entry = builtEntry(OUT)!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-build-'));
  dirs.push(dir);
  const env = { WAYMARK_DATA_DIR: dir, WAYMARK_ADMIN_PASSWORD: 'admin-password-1', ...(await databaseEnv(dir)) };
  const deployed = builtCli(entry, ['deploy', path.join(FIXTURES, 'approval.bpmn'), '--release'], env);
  assert.equal(deployed.status, 0, deployed.stderr);
  // Served by this build, not by whichever bin/waymark.js would pick.
  const serveScript = path.join(dir, 'serve.mjs');
  fs.writeFileSync(serveScript, `const { main } = await import(${JSON.stringify(pathToFileURL(entry).href)});\nprocess.exitCode = await main(['serve']);\n`);
  const node = await startNode({ ...env, NODE_OPTIONS: '' }, { bin: serveScript });
  try {
    const admin = { authorization: basic('LOCAL\\admin', 'admin-password-1') };
    const pid = await (await fetch(`${node.url}/EngineServer/Workflow/GetReleasedPID/Approval`, { headers: admin })).json();
    const created = await createProcInstAndWait(node.url, admin, pid.GetReleasedPIDResult);
    assert.equal(created.status, 200);
    assert.equal((await created.json()).Status, 'Processed');
  } finally {
    assert.equal(await node.stop(), 0, node.log());
  }
  assert.doesNotMatch(node.log(), /\.ts\b.*(ERR_|Unknown file extension)/);
});

test('a build that no longer matches the sources is not run', { timeout: 120_000 }, () => {
  if (!builtEntry(OUT)) build(OUT);
  fs.writeFileSync(path.join(OUT, '.source-hash'), 'an older version of the sources');
  assert.equal(builtEntry(OUT), null);
  const entry = serverEntry(OUT);
  assert.equal(entry.built, false);
  assert.equal(fileURLToPath(entry.url), path.join(ROOT, 'src', 'cli', 'main.ts'));
  assert.equal(build(OUT), 'built');
  assert.equal(serverEntry(OUT).built, true);
});
