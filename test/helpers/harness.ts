/**
 * Starts a real Waymark server on a random loopback port with its own data directory and speaks
 * HTTP to it, as a client would.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createWaymark, type Waymark } from '../../src/server.ts';
import type { ThrottleOptions } from '../../src/engine/LoginThrottle.ts';

export const ADMIN = 'LOCAL\\admin';
export const ADMIN_PASSWORD = 'admin-password-1';
export const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  json: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  /** [user, password]; defaults to the admin. `null` sends no credentials. */
  as?: [string, string] | null;
  headers?: Record<string, string>;
  /** Content-Type; defaults to application/json when a body is given. `null` sends none. */
  contentType?: string | null;
}

export interface TestServer {
  waymark: Waymark;
  url: string;
  dataDir: string;
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<Reply>;
  get(urlPath: string, opts?: RequestOptions): Promise<Reply>;
  post(urlPath: string, body?: unknown, opts?: RequestOptions): Promise<Reply>;
  /** Wait until the dispatcher has applied every Sent event. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  dataDir?: string;
  throttle?: ThrottleOptions;
  now?: () => number;
  /** Users registered (name, password) once the server listens. */
  users?: [string, string][];
}

/**
 * Data directories made here for test servers, removed when the test file's process exits (a test
 * may reopen one after closing its server, so not at close). Left behind, every `npm test` run
 * used to leave about 230 of them in the temporary directory, up to 6.5 MB each.
 */
const madeDirs: string[] = [];
process.on('exit', () => {
  for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true });
});

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  let dataDir = opts.dataDir;
  if (dataDir === undefined) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-test-'));
    madeDirs.push(dataDir);
  }
  const config = loadConfig({
    WAYMARK_DATA_DIR: dataDir,
    WAYMARK_PORT: '0',
    WAYMARK_ADMIN_PASSWORD: ADMIN_PASSWORD,
    WAYMARK_LOG_LEVEL: 'silent',
    // Tests share two cores with other test files: event-loop-delay shedding would answer 503 at
    // random. It is tested on purpose in test/e2e/overload.test.ts, which turns it on.
    WAYMARK_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...(await databaseEnv(dataDir)),
    ...opts.env,
  });
  const logger = pino({ level: config.logLevel });
  const waymark = await createWaymark(config, { logger, throttle: opts.throttle, now: opts.now });
  const url = await waymark.listen();
  const request = async (method: string, urlPath: string, o: RequestOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...o.headers };
    const as = o.as === undefined ? [ADMIN, ADMIN_PASSWORD] : o.as;
    if (as) headers.authorization = basic(as[0], as[1]);
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    const type = o.contentType === undefined ? (body !== undefined ? 'application/json' : undefined) : o.contentType;
    if (type) headers['content-type'] = type;
    const res = await fetch(url + urlPath, { method, headers, body });
    const text = await res.text();
    let json: any;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  const server: TestServer = {
    waymark,
    url,
    dataDir,
    request,
    get: (p, o) => request('GET', p, o),
    post: (p, b, o) => request('POST', p, { ...o, body: b }),
    settle: async () => {
      waymark.engine.dispatcher.wake();
      await waymark.engine.dispatcher.idle();
    },
    close: () => waymark.close(),
  };
  for (const [name, password] of opts.users ?? []) await addUser(server, name, password);
  return server;
}

/** The database this test run uses: `sqlite` (default) or `postgres` (WAYMARK_TEST_DIALECT). */
export const DIALECT: 'sqlite' | 'postgres' = process.env.WAYMARK_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';

const databases = new Map<string, string>();

/**
 * Environment that points a server at its own database: a SQLite file in its data directory, or
 * (postgres) a fresh database on the WAYMARK_TEST_PG server, one per data directory so that a
 * restarted server finds its data again.
 */
export async function databaseEnv(dataDir: string): Promise<Record<string, string>> {
  if (DIALECT === 'sqlite') return {};
  let url = databases.get(dataDir);
  if (!url) {
    const admin = process.env.WAYMARK_TEST_PG;
    if (!admin) throw new Error('WAYMARK_TEST_DIALECT=postgres needs WAYMARK_TEST_PG (a server URL)');
    const name = `waymark_test_${crypto.randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
    const u = new URL(admin);
    u.pathname = `/${name}`;
    url = u.toString();
    databases.set(dataDir, url);
  }
  return { WAYMARK_DATABASE_URL: url };
}

/** Run raw SQL on a server's own database (tests that break or inspect the store on purpose). */
export async function rawSql(s: TestServer, text: string): Promise<Record<string, unknown>[]> {
  const result = await sql.raw(text).execute(s.waymark.store.db);
  return result.rows as Record<string, unknown>[];
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

/** Deploy and release a fixture; returns its DefID. */
export async function deploy(s: TestServer, file: string): Promise<string> {
  const created = await s.post('/EngineServer/Workflow/CreateProcDef', { Xml: fixture(file) });
  if (created.status !== 200) throw new Error(`CreateProcDef ${file}: ${created.status} ${created.text}`);
  const released = await s.post(`/EngineServer/Workflow/ReleaseProcDef/${created.json.DefID}`);
  if (released.status !== 200) throw new Error(`ReleaseProcDef: ${released.status} ${released.text}`);
  return created.json.DefID;
}

/** Register a user with a password and, optionally, make it a member of a new role with rights. */
export async function addUser(s: TestServer, name: string, password: string, rights?: (number | string)[]): Promise<void> {
  const r = await s.post('/EngineServer/Admin/RegisterUser', { UserName: name, FullName: name.split('\\')[1], Password: password });
  if (r.status !== 200) throw new Error(`RegisterUser ${name}: ${r.status} ${r.text}`);
  if (rights) {
    const role = `role-of-${name.split('\\')[1]}`;
    const a = await s.post('/EngineServer/Admin/AddRole', { RoleName: role, Rights: rights, Enabled: true });
    if (a.status !== 200) throw new Error(`AddRole: ${a.status} ${a.text}`);
    const m = await s.post('/EngineServer/Admin/AddRoleMember', { RoleName: role, Assignee: name, AssigneeType: 'User' });
    if (m.status !== 200) throw new Error(`AddRoleMember: ${m.status} ${m.text}`);
  }
}

/** Start an instance and wait until it is running; returns its ProcInstID. */
export async function startInstance(s: TestServer, defId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await s.post('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId, ...extra }, { headers: { prefer: 'wait=10' } });
  if (r.status !== 200 || r.json.Status !== 'Processed') throw new Error(`CreateProcInst: ${r.status} ${r.text}`);
  return r.json.ProcInstID;
}

/** The work list of a user (as that user). */
export async function workList(s: TestServer, as: [string, string], status?: string): Promise<any[]> {
  const r = await s.post('/EngineServer/Workflow/GetWorkListByUserID', { UserName: as[0], Status: status ?? null }, { as });
  if (r.status !== 200) throw new Error(`GetWorkListByUserID: ${r.status} ${r.text}`);
  return r.json;
}
