/**
 * Hostile input, generated with fast-check, against every operation: random and malformed path
 * parameters, ids, headers and bodies (deep nesting, huge numbers, wrong types, unicode edge
 * cases, prototype keys). Every answer must be a 2xx or 4xx with a JSON body (or the empty body
 * of an operation that answers none), carry a request id, and a 4xx must change nothing: the
 * digest of the whole database is the same before and after.
 * Malformed HTTP that never reaches Fastify (bad request lines, oversized headers) is sent over
 * raw sockets and gets a problem body too.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/api/app.ts';
import type { Operation } from '../../src/api/Operation.ts';
import { ADMIN, ADMIN_PASSWORD, addUser, basic, deploy, DIALECT, startInstance, startServer, type TestServer } from '../helpers/harness.ts';
import { databaseDigest } from '../helpers/digest.ts';

let s: TestServer;
/** Ids and names that exist, so that some generated requests get past the lookups. */
const known = { ids: [] as string[], names: ['Administrators', 'Approval', 'LOCAL\\alice', 'LOCAL\\admin'] };

before(async () => {
  s = await startServer({ throttle: { maxPerUser: 1_000_000, maxPerAddress: 1_000_000, windowMs: 60_000 } });
  await addUser(s, 'LOCAL\\alice', 'alice-password-1');
  await addUser(s, 'LOCAL\\bob', 'bob-password-1');
  const defId = await deploy(s, 'approval.bpmn');
  const pi = await startInstance(s, defId);
  const items = await s.post('/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: '' });
  const acts = await s.post('/EngineServer/Workflow/QueryActivityInsts', { ColumnName: 'PROC_INST_ID', Operator: 'EQ', WhereClause: pi });
  known.ids.push(defId, pi, ...items.json.map((w: { WorkItemID: string }) => w.WorkItemID), ...acts.json.map((a: { ID: string }) => a.ID));
});
after(() => s.close());

// ------------------------------------------------------------------ generators

const unicodeEdge = fc.constantFrom(
  '', ' ', '\u200b', '\ufeff', '\u202e', '\ud800', '\udfff', '😀', 'e\u0301', '\u00a0', 'İ', 'ß', '\uffff', '\u0085', '\u2028',
  'Ω'.repeat(300), 'x'.repeat(257), 'y'.repeat(1025), 'z'.repeat(4001), '\\', '\\\\', 'LOCAL\\', '\\x', 'a\\b\\c', '%00', '%', '../..',
);
const text = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20, unit: 'binary' }), unicodeEdge, fc.constantFrom(...known.names));
const idLike = fc.oneof(
  fc.constantFrom(...['0123456789ABCDEF0123456789ABCDEF', '0123456789abcdef0123456789abcdef', 'G'.repeat(32), '1'.repeat(31), '1'.repeat(33)]),
  fc.stringMatching(/^[0-9A-Fa-f]{32}$/),
  fc.constant('KNOWN'),
);
const numberish = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 2 ** 53, 2 ** 64, -(2 ** 63), 1e308, Number.MIN_VALUE),
);
/** A JSON value of the wrong type for almost any property. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  text,
  numberish,
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('true', 'FALSE', 'null', '[]', '{}', 'NaN'),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(text, text, { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A body shaped like the operation's schema, with some values replaced by hostile ones. */
function schemaBody(op: Operation): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.keys(op.body?.properties ?? {});
  if (props.length === 0) return fc.dictionary(text, wrongValue, { maxKeys: 3 });
  const value = (name: string): fc.Arbitrary<unknown> => {
    const n = name.toLowerCase();
    if (n.endsWith('id')) return fc.oneof(idLike, wrongValue);
    if (n.includes('user') || n === 'assignee') return fc.oneof(fc.constantFrom('LOCAL\\alice', 'local\\BOB', 'nodomain', 'a\\b', 'LOCAL\\nobody'), wrongValue);
    if (n === 'operator') return fc.oneof(fc.constantFrom('EQ', 'LIKE', 'IN', 7, 99, 'NEQ'), wrongValue);
    if (n === 'columnname') return fc.oneof(fc.constantFrom('STATUS', 'NAME', 'USER_ID', 'PASSWORD'), wrongValue);
    if (n === 'sqlwhereclause' || n === 'where' || n === 'whereclause') return fc.oneof(fc.constantFrom("STATUS = 'New'", "1=1; DROP TABLE users", "NAME LIKE '%'"), wrongValue);
    if (n === 'rights') return fc.oneof(fc.array(fc.oneof(fc.integer({ min: -2, max: 90 }), text), { maxLength: 4 }), wrongValue);
    if (n === 'attributes') return fc.oneof(fc.array(fc.record({ Name: text, Value: wrongValue }), { maxLength: 3 }), wrongValue);
    if (n === 'length') return fc.oneof(fc.constantFrom('1', '0', '-1', '1e9', 1, 1.5, 2 ** 60), wrongValue);
    return wrongValue;
  };
  return fc
    .tuple(...props.map((p) => fc.option(value(p), { nil: undefined, freq: 3 })), fc.boolean())
    .map((values) => {
      const flip = values.pop() as boolean;
      const body: Record<string, unknown> = {};
      props.forEach((p, i) => {
        if (values[i] !== undefined) body[flip && i % 2 ? p.toLowerCase() : p] = values[i];
      });
      return body;
    });
}

/** Raw body texts JSON.stringify cannot produce. */
const rawBody = fc.oneof(
  fc.constantFrom(
    '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}',
    '{"UserName": "LOCAL\\\\alice", "__proto__": {"Password": "pwned-password-1"}}',
    '{"RoleName": "Administrators", "Rights": [0], "rights": "all"}',
    '{"a": 1e400, "b": -1e400, "c": 123456789012345678901234567890}',
    '{"s": "\\ud800\\udc00\\ud800", "t": "\\u0000"}',
    '\ufeff{"x": 1}',
    '{"x": 1} trailing',
    '{"x": 01}',
    '[1, 2, 3]',
    '"just a string"',
    'null',
    '',
    '   ',
    '{',
  ),
  fc.integer({ min: 10, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 10, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(undefined, 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/problem+json') },
  { weight: 1, arbitrary: fc.constantFrom('application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '') },
);
const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('admin', 'alice') },
  { weight: 1, arbitrary: fc.constantFrom('none', 'wrong', 'garbage') },
);
const someHeaders = fc.record(
  {
    prefer: fc.constantFrom('wait=1', 'wait=0', 'wait=abc', 'wait=-1', 'respond-async', 'wait=999999999999'),
    origin: fc.constantFrom('null', 'https://evil.example', 'http://127.0.0.1'),
    'sec-fetch-site': fc.constantFrom('cross-site', 'same-origin', 'none'),
    accept: fc.constantFrom('*/*', 'text/html', 'application/xml'),
    'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'garbage'),
    'x-request-id': fc.constantFrom('attacker-chosen', 'a'.repeat(500)),
  },
  { requiredKeys: [] },
);
/** Mostly none: cross-site headers end most requests at the front door (403), which is not the point. */
const extraHeaders = fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: someHeaders });

function pathParam(): fc.Arbitrary<string> {
  return fc.oneof(
    idLike.map((v) => (v === 'KNOWN' ? known.ids[0] : v)),
    fc.constantFrom(...known.ids),
    text.map((t) => encodeURIComponent(t.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'))),
    fc.constantFrom('%ZZ', '%E0%A4%A', '%2F', '..%2F..%2Fetc%2Fpasswd', '%00', '%C0%AE', 'a%20b', '*', "'", '%27%20OR%201%3D1'),
  );
}

interface Hostile {
  op: Operation;
  method: string;
  params: string[];
  body: string | undefined;
  contentType: string | undefined;
  auth: string;
  headers: Record<string, string>;
}

const hostile: fc.Arbitrary<Hostile> = fc.constantFrom(...OPERATIONS).chain((op) =>
  fc.record({
    op: fc.constant(op),
    method: fc.oneof({ weight: 9, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') }),
    params: fc.tuple(...(op.params ?? []).map(() => pathParam())),
    body: fc.oneof(
      { weight: 6, arbitrary: schemaBody(op).map((b) => JSON.stringify(b)) },
      { weight: 3, arbitrary: rawBody },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    contentType,
    auth: authorization,
    headers: extraHeaders,
  }),
);

// ------------------------------------------------------------------ the property

const AUTH: Record<string, string | undefined> = {
  admin: basic(ADMIN, ADMIN_PASSWORD),
  alice: basic('LOCAL\\alice', 'alice-password-1'),
  none: undefined,
  wrong: basic(ADMIN, 'not-the-password'),
  garbage: 'Basic !!!notbase64',
};

async function send(h: Hostile): Promise<{ status: number; type: string; text: string; requestId: string | null }> {
  const headers: Record<string, string> = { ...h.headers };
  const auth = AUTH[h.auth];
  if (auth) headers.authorization = auth;
  if (h.contentType !== undefined) headers['content-type'] = h.contentType;
  const bodyAllowed = h.method !== 'GET' && h.method !== 'HEAD';
  const res = await fetch(`${s.url}/EngineServer/${h.op.area}/${h.op.name}${h.params.map((p) => `/${p}`).join('')}`, {
    method: h.method,
    headers,
    body: bodyAllowed ? h.body : undefined,
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text(), requestId: res.headers.get('x-request-id') };
}

describe('every operation under hostile input', () => {
  // Fewer runs on PostgreSQL: the same code paths, and each run digests the database twice.
  const runs = DIALECT === 'postgres' ? 200 : 350;
  test(`2xx or 4xx, a JSON body, a request id; a 4xx changes nothing (fast-check, ${runs} requests)`, async (t) => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(hostile, async (h) => {
        await s.settle();
        const before = await databaseDigest(s);
        const r = await send(h);
        const what = `${h.method} ${h.op.name}/${h.params.join('/')} ${String(h.body).slice(0, 200)} -> ${r.status} ${r.text.slice(0, 300)}`;
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        assert.ok(r.status >= 200 && r.status < 500, what);
        assert.match(r.requestId ?? '', /^[0-9a-f]{16}$/, `${what}: X-Request-Id`);
        if (r.text === '') {
          assert.ok(r.status === 200 && h.op.reply === 'empty', `${what}: only an operation that answers nothing may send an empty body`);
        } else {
          assert.match(r.type, /^application\/(problem\+)?json/, what);
          const body = JSON.parse(r.text);
          if (r.status >= 400) {
            assert.equal(body.status, r.status, what);
            assert.equal(body.requestId, r.requestId, what);
            assert.equal(typeof body.code, 'string', what);
          }
        }
        if (r.status >= 400) {
          await s.settle();
          assert.equal(await databaseDigest(s), before, `${what}: a ${r.status} changed the database`);
        }
      }),
      { numRuns: runs, seed: Number(process.env.WAYMARK_FC_SEED ?? Date.now() % 2 ** 31), verbose: 1 },
    );
    // The generator reaches deep into the operations, not only the front door. The bounds leave
    // room for the seed: 400s were 19.5-36 % of the answers in four runs on 2026-11-27, and a bound
    // of a fifth failed the one with 39 of 200 (85 were 401s); an eighth still fails a generator
    // that stops at the front door.
    t.diagnostic(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok((statuses.get(200) ?? 0) >= runs / 25, JSON.stringify([...statuses]));
    assert.ok((statuses.get(400) ?? 0) >= runs / 8, JSON.stringify([...statuses]));
  });
});

describe('malformed HTTP that Node refuses before routing', () => {
  async function raw(request: string): Promise<string> {
    const { hostname, port } = new URL(s.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.end(request));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
  }

  for (const [name, request] of [
    ['a bad request line', 'GARBAGE\r\n\r\n'],
    ['a header without a colon', 'GET /EngineServer/Workflow/GetUUID HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
    ['a control character in a header', 'GET /EngineServer/Workflow/GetUUID HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'],
    ['headers larger than the limit', `GET /EngineServer/Workflow/GetUUID HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['a broken chunked body', 'POST /EngineServer/Workflow/GetUUID HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhello\r\n0\r\n\r\n'],
  ] as const) {
    test(`${name}: 400 with a problem body, a request id and the security headers`, async () => {
      const answer = await raw(request);
      const [head, body] = answer.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 400 /, answer.slice(0, 200));
      assert.match(head, /\r\ncontent-type: application\/problem\+json/i);
      assert.match(head, /\r\nx-content-type-options: nosniff/i);
      const id = /\r\nx-request-id: ([0-9a-f]{16})/i.exec(head)?.[1];
      assert.ok(id, head);
      const problem = JSON.parse(body);
      assert.equal(problem.status, 400);
      assert.equal(problem.code, 'InvalidRequest');
      assert.equal(problem.requestId, id);
    });
  }
});
