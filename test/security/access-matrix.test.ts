/**
 * The authorization matrix: every operation, called by every kind of caller, answers what
 * ACCESS_POLICY (src/engine/accessPolicy.ts, the table docs/access-rights.md is generated from)
 * implies. The expected status is computed from the table; only how to build a valid request
 * for each operation (test/helpers/operationFixtures.ts) is written by hand. An operation without a
 * fixture fails the test.
 *
 * Caller kinds: no credentials, a wrong password, a user with no right, a user holding exactly the
 * operation's right, a participant holding no right (assignee, pool member, participant of the
 * instance, sender of the event, or the user named in the request), and the administrator.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OPERATIONS } from '../../src/api/app.ts';
import { rightName } from '../../src/domain/rights.ts';
import { ACCESS_POLICY, type AccessRule } from '../../src/engine/accessPolicy.ts';
import { addUser, deploy, startServer, type TestServer } from '../helpers/harness.ts';
import { ALICE, BOB, operationFixtures, WAIT, type Req } from '../helpers/operationFixtures.ts';

type Kind = 'none' | 'wrongPassword' | 'noRight' | 'neededRight' | 'participant' | 'admin';
const KINDS: Kind[] = ['none', 'wrongPassword', 'noRight', 'neededRight', 'participant', 'admin'];

const NOBODY: [string, string] = ['LOCAL\\nobody', 'nobody-password-1'];

let s: TestServer;
let FIXTURES: Record<string, () => Promise<Req>> = {};

/** What the table says a caller of this kind gets: 'ok' (2xx), 401 or 403; null = not applicable. */
function expected(rule: AccessRule, kind: Kind): 'ok' | 401 | 403 | null {
  const open = rule.right === undefined && !rule.alternatives;
  switch (kind) {
    case 'none':
    case 'wrongPassword':
      return 401;
    case 'noRight':
      return open || rule.alternatives?.includes('ownRows') ? 'ok' : 403;
    case 'neededRight':
      return rule.right === undefined ? null : 'ok';
    case 'participant':
      return open || (rule.alternatives?.length ?? 0) > 0 ? 'ok' : 403;
    case 'admin':
      return rule.right !== undefined || open ? 'ok' : 403;
  }
}

/** Users holding exactly one right each, by right index. */
const rightHolders = new Map<number, [string, string]>();

async function holderOf(right: number): Promise<[string, string]> {
  let u = rightHolders.get(right);
  if (!u) {
    u = [`LOCAL\\holder${right}`, `holder-${right}-password`];
    await addUser(s, u[0], u[1], [right]);
    rightHolders.set(right, u);
  }
  return u;
}

async function callerOf(kind: Kind, rule: AccessRule): Promise<[string, string] | null | undefined> {
  switch (kind) {
    case 'none':
      return null;
    case 'wrongPassword':
      return [NOBODY[0], 'not-the-password'];
    case 'noRight':
      return NOBODY;
    case 'neededRight':
      return holderOf(rule.right!);
    case 'participant':
      return BOB;
    case 'admin':
      return undefined;
  }
}

before(async () => {
  s = await startServer({ throttle: { maxPerUser: 100_000, maxPerAddress: 100_000, windowMs: 60_000 } });
  await addUser(s, ALICE, 'alice-password-1');
  await addUser(s, BOB[0], BOB[1]);
  await addUser(s, NOBODY[0], NOBODY[1]);
  FIXTURES = operationFixtures(s, await deploy(s, 'approval.bpmn'));
});
after(() => s.close());

test('ACCESS_POLICY names exactly the operations the server has, and every one has a fixture here', () => {
  const ops = OPERATIONS.map((o) => o.name).sort();
  assert.deepEqual(Object.keys(ACCESS_POLICY).sort(), ops, 'operations and ACCESS_POLICY entries');
  assert.deepEqual(ops.filter((o) => !FIXTURES[o]), [], 'operations without a fixture in this test');
});

describe('every operation, every caller kind', () => {
  for (const op of OPERATIONS) {
    const rule: AccessRule = (ACCESS_POLICY as Record<string, AccessRule>)[op.name] ?? {};
    test(op.name, async (t) => {
      const prepare = FIXTURES[op.name];
      if (!prepare) return t.skip('no fixture (the test above fails)');
      const seen: string[] = [];
      for (const kind of KINDS) {
        const want = expected(rule, kind);
        if (want === null) continue;
        // Authentication comes before everything: a 401 needs no real target.
        const req = want === 401 ? { path: `/EngineServer/${op.area}/${op.name}${(op.params ?? []).map(() => '/0123456789ABCDEF0123456789ABCDEF').join('')}` } : await prepare();
        const as = await callerOf(kind, rule);
        const r = await s.request(req.method ?? op.method, req.path, { body: req.body ?? (op.method === 'POST' ? {} : undefined), as, headers: WAIT });
        const what = `${op.name} as ${kind}: ${r.status} ${r.text.slice(0, 300)}`;
        seen.push(`${kind}=${r.status}`);
        if (want === 'ok') {
          assert.ok(r.status >= 200 && r.status < 300, what);
          if (r.json && typeof r.json === 'object' && 'Status' in r.json && 'EventID' in r.json) {
            assert.equal(r.json.Status, 'Processed', `${what}: the event was applied`);
          }
        } else {
          assert.equal(r.status, want, what);
          if (want === 403) {
            assert.equal(r.json.code, 'AccessDenied', what);
            if (rule.right !== undefined) assert.match(r.json.detail, new RegExp(rightName(rule.right)), `${what}: the detail names the right`);
          } else {
            assert.equal(r.json.code, 'Unauthenticated', what);
          }
        }
      }
      t.diagnostic(seen.join(' '));
    });
  }
});

describe('no existence oracle', () => {
  const GONE = '0123456789ABCDEF0123456789ABCDEF';
  /** The same request naming things that do not exist: ids, and the fresh roles, groups and users of the fixtures. */
  function missing(value: unknown): unknown {
    if (typeof value === 'string') {
      if (/^[0-9A-F]{32}$/.test(value)) return GONE;
      if (/^(role|group|new)-|^LOCAL\\user-/.test(value)) return `${value}-gone`;
      return value;
    }
    if (Array.isArray(value)) return value.map(missing);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, missing(v)]));
    return value;
  }

  test('where only a right allows a call, a caller without it gets the same 403 whether the target exists or not', async () => {
    const differ: string[] = [];
    for (const op of OPERATIONS) {
      const rule: AccessRule = (ACCESS_POLICY as Record<string, AccessRule>)[op.name] ?? {};
      const prepare = FIXTURES[op.name];
      if (rule.right === undefined || rule.alternatives || !prepare) continue;
      const req = await prepare();
      const gonePath = req.path.split('/').map((seg) => missing(decodeURIComponent(seg)) as string).map(encodeURIComponent).join('/');
      const answers = [];
      for (const [p, body] of [[req.path, req.body], [gonePath, missing(req.body)]] as const) {
        const r = await s.request(req.method ?? op.method, p, { body: body ?? (op.method === 'POST' ? {} : undefined), as: NOBODY });
        const { requestId: _id, ...rest } = r.json ?? {};
        answers.push(`${r.status} ${JSON.stringify(rest)}`);
      }
      if (!answers[0].startsWith('403 ') || answers[0] !== answers[1]) differ.push(`${op.name}: ${answers.join(' | ')}`);
    }
    assert.deepEqual(differ, []);
  });
});

test('docs/access-rights.md is generated from the same table and is up to date', () => {
  const root = path.join(import.meta.dirname, '..', '..');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/access-rights.ts', '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr || r.stdout);
});
