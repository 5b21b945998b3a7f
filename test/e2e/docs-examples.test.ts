/**
 * Runs every EXAMPLE of docs/admin.md, docs/workflow.md and docs/queries.md against one fresh
 * server, in document order, and fails when a documented response differs from the real one.
 *
 * An example is a fenced block with the info string `http request` followed by one with
 * `http response` (the format is described at the top of docs/admin.md):
 *
 *   request:  `METHOD /path` on the first line; header lines (`Prefer: wait=5`; the pseudo-header
 *             `As: DOMAIN\user`, `As: DOMAIN\user:password` or `As: nobody` picks the credentials,
 *             the admin's by default); a blank line; the JSON body, if any.
 *   response: the status code first (a reason phrase may follow); header lines that must be
 *             present with that value; a blank line; the complete JSON body, or nothing for an
 *             empty body.
 *
 * Placeholders `{{name}}` in documented values: `{{date}}` is any `/Date(ms+0000)/`,
 * `{{requestId}}` 16 hex digits, `{{id}}` any 32-hex id, `{{any}}` anything; any other name is
 * captured the first time it is seen (names ending in `ID` must be 32-hex ids) and must be equal
 * wherever it is seen again, in responses, paths and bodies. `{{file:NAME}}` in a request body is
 * the text of test/fixtures/NAME, JSON-escaped; `{{example:NAME}}` the text of examples/NAME.
 * Objects must have exactly the documented keys.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { OPERATIONS } from '../../src/api/app.ts';
import { ADMIN, ADMIN_PASSWORD, FIXTURES, startServer, type Reply, type TestServer } from '../helpers/harness.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const DOC_FILES = ['docs/admin.md', 'docs/workflow.md', 'docs/queries.md'];

interface Example {
  where: string;
  heading: string;
  method: string;
  path: string;
  headers: [string, string][];
  as: string | null | undefined;
  body: string;
  status: number;
  responseHeaders: [string, string][];
  responseBody: string;
}

// ------------------------------------------------------------------ reading the markdown

interface Block {
  info: string;
  lines: string[];
  line: number;
  heading: string;
}

function fencedBlocks(file: string): Block[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split(/\r?\n/);
  const blocks: Block[] = [];
  let open: { fence: string; block: Block } | null = null;
  let heading = '';
  lines.forEach((text, i) => {
    if (open) {
      if (text.trim() === open.fence) {
        blocks.push(open.block);
        open = null;
      } else {
        open.block.lines.push(text);
      }
      return;
    }
    const fence = /^(`{3,}|~{3,})\s*(.*)$/.exec(text);
    if (fence) {
      open = { fence: fence[1], block: { info: fence[2].trim(), lines: [], line: i + 1, heading } };
      return;
    }
    const h = /^#{1,6}\s+(.*)$/.exec(text);
    if (h) heading = h[1].trim();
  });
  assert.equal(open, null, `${file}: a fenced block is not closed`);
  return blocks;
}

function splitHead(lines: string[]): { head: string[]; body: string } {
  const blank = lines.findIndex((l) => l.trim() === '');
  if (blank === -1) return { head: lines, body: '' };
  return { head: lines.slice(0, blank), body: lines.slice(blank + 1).join('\n').trim() };
}

function headerOf(line: string, where: string): [string, string] {
  const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
  assert.ok(m, `${where}: "${line}" is not a header line (Name: value)`);
  return [m[1], m[2].trim()];
}

function examplesOf(file: string): Example[] {
  const blocks = fencedBlocks(file).filter((b) => b.info === 'http request' || b.info === 'http response');
  const examples: Example[] = [];
  for (let i = 0; i < blocks.length; i += 2) {
    const req = blocks[i];
    const res = blocks[i + 1];
    const where = `${file}:${req.line}`;
    assert.equal(req.info, 'http request', `${file}:${req.line}: expected an \`http request\` block here`);
    assert.ok(res && res.info === 'http response', `${where}: the request is not followed by an \`http response\` block`);
    const rq = splitHead(req.lines);
    const first = /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s+(\S+)$/.exec(rq.head[0] ?? '');
    assert.ok(first, `${where}: the first line must be "METHOD /path"`);
    const headers: [string, string][] = [];
    let as: string | null | undefined;
    for (const line of rq.head.slice(1)) {
      const [name, value] = headerOf(line, where);
      if (name.toLowerCase() === 'as') as = value.toLowerCase() === 'nobody' ? null : value;
      else headers.push([name, value]);
    }
    const rs = splitHead(res.lines);
    const status = /^(\d{3})\b/.exec(rs.head[0] ?? '');
    assert.ok(status, `${file}:${res.line}: the first line of a response must be the status code`);
    examples.push({
      where,
      heading: req.heading,
      method: first[1],
      path: first[2],
      headers,
      as,
      body: rq.body,
      status: Number(status[1]),
      responseHeaders: rs.head.slice(1).map((l) => headerOf(l, `${file}:${res.line}`)),
      responseBody: rs.body,
    });
  }
  return examples;
}

// ------------------------------------------------------------------ placeholders

const captured = new Map<string, string>();
const passwords = new Map<string, string>([[ADMIN.toLowerCase(), ADMIN_PASSWORD]]);

/** Names the docs may use before any response showed them: none; every id comes from an answer. */
const RESOLVERS: Record<string, (s: TestServer) => Promise<string>> = {};

const PATTERNS: Record<string, string> = {
  date: String.raw`\/Date\(-?\d+[+-]\d{4}\)\/`,
  requestId: '[0-9a-f]{16}',
  id: '[0-9A-F]{32}',
  any: String.raw`[\s\S]*`,
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Matches a documented string against the actual one, capturing new placeholders. */
function matchString(expected: string, actual: string, at: string): void {
  const parts = expected.split(/\{\{([^{}]+)\}\}/);
  if (parts.length === 1) {
    assert.equal(actual, expected, `${at}: differs`);
    return;
  }
  let source = '^';
  const groups: string[] = [];
  parts.forEach((part, i) => {
    if (i % 2 === 0) source += escapeRegExp(part);
    else if (PATTERNS[part]) source += `(?:${PATTERNS[part]})`;
    else if (captured.has(part)) source += escapeRegExp(captured.get(part)!);
    else {
      groups.push(part);
      source += part.endsWith('ID') ? '([0-9A-F]{32})' : String.raw`([\s\S]+?)`;
    }
  });
  const m = new RegExp(`${source}$`).exec(actual);
  assert.ok(m, `${at}: ${JSON.stringify(actual)} does not match ${JSON.stringify(expected)}`);
  groups.forEach((name, i) => {
    const value = m[i + 1];
    if (captured.has(name)) assert.equal(value, captured.get(name), `${at}: {{${name}}} was ${captured.get(name)} before`);
    else captured.set(name, value);
  });
}

function matchJson(expected: unknown, actual: unknown, at: string): void {
  if (typeof expected === 'string') {
    assert.equal(typeof actual, 'string', `${at}: expected a string, got ${JSON.stringify(actual)}`);
    matchString(expected, actual as string, at);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${at}: expected an array, got ${JSON.stringify(actual)}`);
    assert.equal(actual.length, expected.length, `${at}: expected ${expected.length} elements, got ${actual.length}`);
    expected.forEach((e, i) => matchJson(e, actual[i], `${at}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${at}: expected an object, got ${JSON.stringify(actual)}`);
    const want = Object.keys(expected).sort();
    const got = Object.keys(actual as object).sort();
    assert.deepEqual(got, want, `${at}: the keys differ`);
    for (const key of want) matchJson((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${at}.${key}`);
  } else {
    assert.equal(actual, expected, `${at}: differs`);
  }
}

/** `{{name}}` and `{{file:NAME}}` in a path (raw) or a JSON body (JSON-escaped). */
async function substitute(s: TestServer, text: string, json: boolean, where: string): Promise<string> {
  let out = '';
  const parts = text.split(/\{\{([^{}]+)\}\}/);
  for (const [i, part] of parts.entries()) {
    if (i % 2 === 0) {
      out += part;
      continue;
    }
    let value: string;
    if (part.startsWith('file:')) value = fs.readFileSync(path.join(FIXTURES, part.slice(5)), 'utf8');
    else if (part.startsWith('example:')) value = fs.readFileSync(path.join(ROOT, 'examples', part.slice(8)), 'utf8');
    else if (captured.has(part)) value = captured.get(part)!;
    else if (RESOLVERS[part]) {
      value = await RESOLVERS[part](s);
      captured.set(part, value);
    } else assert.fail(`${where}: {{${part}}} is used before an earlier response showed it`);
    out += json ? JSON.stringify(value).slice(1, -1) : encodeURI(value);
  }
  return out;
}

function credentials(as: string | null | undefined, where: string): [string, string] | null {
  if (as === null) return null;
  if (as === undefined) return [ADMIN, ADMIN_PASSWORD];
  const colon = as.indexOf(':');
  if (colon > 0) return [as.slice(0, colon), as.slice(colon + 1)];
  const password = passwords.get(as.toLowerCase());
  assert.ok(password, `${where}: no earlier example gave ${as} a password`);
  return [as, password];
}

/** RegisterUser / UpdateRegisterUser examples that set a password: later examples log in with it. */
function rememberPassword(e: Example, body: unknown, reply: Reply): void {
  if (reply.status !== 200 || !/\/Admin\/(RegisterUser|UpdateRegisterUser)$/i.test(e.path)) return;
  const props = Object.fromEntries(Object.entries(body as object).map(([k, v]) => [k.toLowerCase(), v]));
  if (typeof props.username === 'string' && typeof props.password === 'string') passwords.set(props.username.toLowerCase(), props.password);
}

// ------------------------------------------------------------------ running

const examples = DOC_FILES.flatMap(examplesOf);
let s: TestServer;
let broken: string | null = null;

before(async () => {
  s = await startServer();
});
after(() => s.close());

for (const [n, e] of examples.entries()) {
  test(`#${n + 1} ${e.where} (${e.heading}): ${e.method} ${e.path} -> ${e.status}`, async (t) => {
    if (broken) {
      t.skip(`an earlier example failed (${broken})`);
      return;
    }
    try {
      await run(e);
    } catch (err) {
      broken = e.where;
      throw err;
    }
  });
}

async function run(e: Example): Promise<void> {
  // Each example starts once the engine has applied every earlier event, as a reader would see it.
  await s.settle();
  const urlPath = await substitute(s, e.path, false, e.where);
  const body = e.body === '' ? undefined : await substitute(s, e.body, true, e.where);
  let parsed: unknown;
  try {
    parsed = body === undefined ? undefined : JSON.parse(body);
  } catch {
    parsed = undefined; // an example of a malformed body
  }
  const contentType = e.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const reply = await s.request(e.method, urlPath, {
    raw: body,
    as: credentials(e.as, e.where),
    headers: Object.fromEntries(e.headers.filter(([name]) => name.toLowerCase() !== 'content-type')),
    ...(contentType !== undefined ? { contentType } : {}),
  });
  const shown = `\n--- actual answer ---\n${reply.status}\n${reply.json === undefined ? reply.text : JSON.stringify(reply.json, null, 2)}`;
  assert.equal(reply.status, e.status, `${e.where}: status${shown}`);
  for (const [name, value] of e.responseHeaders) {
    const actual = reply.headers.get(name);
    assert.ok(actual !== null, `${e.where}: header ${name} is missing${shown}`);
    matchString(value, actual, `${e.where}: header ${name}`);
  }
  if (e.responseBody === '') {
    assert.equal(reply.text, '', `${e.where}: expected an empty body${shown}`);
  } else {
    let documented: unknown;
    try {
      documented = JSON.parse(e.responseBody);
    } catch (err) {
      assert.fail(`${e.where}: the documented response is not JSON: ${(err as Error).message}`);
    }
    assert.ok(reply.json !== undefined, `${e.where}: the answer is not JSON${shown}`);
    try {
      matchJson(documented, reply.json, 'body');
    } catch (err) {
      (err as Error).message = `${e.where}: ${(err as Error).message}${shown}`;
      throw err;
    }
  }
  if (parsed !== undefined) rememberPassword(e, parsed, reply);
}

test('every operation has an example with a 2xx answer', () => {
  const shown = new Set(
    examples
      .filter((e) => e.status >= 200 && e.status < 300)
      .map((e) => /^\/[^/]+\/[^/]+\/([^/]+)/.exec(e.path)?.[1]?.toLowerCase()),
  );
  const missing = OPERATIONS.map((op) => op.name).filter((name) => !shown.has(name.toLowerCase()));
  assert.deepEqual(missing, [], `operations without a successful example in ${DOC_FILES.join(', ')}`);
});
