/**
 * 147 SQL injection payloads (test/fixtures/sql-injection-payloads.json) against every condition
 * the query operations accept. Proof that none escapes the grammar, in two layers:
 *
 * 1. Compiled: each payload that parses compiles, for every record kind, to SQL whose only words
 *    are a fixed set of keywords and whose only names are whitelisted tables and columns; every
 *    value is a bound parameter (no quote character ever reaches the SQL text). Fast-check adds
 *    arbitrary conditions.
 * 2. Over HTTP: each payload, as `sqlWhereClause`, `where` and helper `WhereClause`, answers 200
 *    or 400 with a problem body, never 500; a caller without rights never sees a row outside
 *    their own; and the database is byte-for-byte the same afterwards.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import fc from 'fast-check';
import { Kysely, Migrator, SqliteDialect, type CompiledQuery } from 'kysely';
import { WaymarkError } from '../../src/domain/errors.ts';
import { parseWhere, type WhereNode } from '../../src/domain/sqlWhere.ts';
import { SQLITE_CAPS } from '../../src/store/dialect.ts';
import { migrationsFor } from '../../src/store/migrations/index.ts';
import {
  ACTIVITY_COLUMNS,
  AUDIT_COLUMNS,
  PROC_INST_COLUMNS,
  USER_COLUMNS,
  WORK_ITEM_COLUMNS,
  queryActivityRows,
  queryAuditRows,
  queryInstanceRows,
  queryUserRows,
  queryWorkItemRows,
} from '../../src/store/queries/queryRecords.ts';
import { catalogueOf, type ColumnMap } from '../../src/store/queries/queryWhere.ts';
import type { DB } from '../../src/store/schema.ts';
import { addUser, deploy, FIXTURES, startInstance, startServer, workList, type Reply, type TestServer } from '../helpers/harness.ts';
import { databaseDigest } from '../helpers/digest.ts';

const PAYLOADS: string[] = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'sql-injection-payloads.json'), 'utf8'));

interface Kind {
  name: string;
  columns: ColumnMap;
  run(db: Kysely<DB>, where: WhereNode | null, visibleTo: string | null): Promise<unknown[]>;
}

const KINDS: Kind[] = [
  { name: 'work items', columns: WORK_ITEM_COLUMNS, run: (db, w, v) => queryWorkItemRows(db, w, v, 10) },
  { name: 'process instances', columns: PROC_INST_COLUMNS, run: (db, w, v) => queryInstanceRows(db, w, v, 10) },
  { name: 'activity instances', columns: ACTIVITY_COLUMNS, run: (db, w, v) => queryActivityRows(db, w, v, 10) },
  { name: 'users', columns: USER_COLUMNS, run: (db, w) => queryUserRows(db, w, 10) },
  { name: 'audit trail', columns: AUDIT_COLUMNS, run: (db, w) => queryAuditRows(db, w, 10) },
];

/** Every word the compiled SQL may contain outside quoted names. */
const SQL_WORDS = new Set(['select', 'from', 'as', 'left', 'join', 'on', 'where', 'and', 'or', 'not', 'in', 'is', 'null', 'like', 'escape', 'lower', 'exists', 'order', 'by', 'limit']);

describe('compiled conditions contain only whitelisted names and bound values', () => {
  let raw: SQLite.Database;
  let db: Kysely<DB>;
  let last: CompiledQuery | null = null;
  const allowedNames = new Set<string>();

  before(async () => {
    raw = new SQLite(':memory:');
    db = new Kysely<DB>({
      dialect: new SqliteDialect({ database: raw }),
      log: (e) => {
        if (e.level === 'query') last = e.query;
      },
    });
    const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrationsFor(SQLITE_CAPS) } }).migrateToLatest();
    if (error) throw error;
    // The skeleton of each query (tables, aliases, join and filter columns) ...
    for (const kind of KINDS) {
      await kind.run(db, null, 'local\\alice');
      for (const name of quotedNames(last!.sql)) allowedNames.add(name);
    }
    // ... and the whitelisted columns.
    for (const kind of KINDS) {
      for (const spec of Object.values(kind.columns)) for (const ref of [spec.ref, spec.key]) if (ref) for (const part of ref.split('.')) allowedNames.add(part);
    }
  });
  after(async () => {
    await db.destroy();
  });

  async function assertContained(kind: Kind, where: WhereNode): Promise<void> {
    await kind.run(db, where, null);
    const q = last!;
    const at = `${kind.name}: ${q.sql}`;
    assert.doesNotMatch(q.sql, /['`;]|--|\/\*/, `no quote, semicolon or comment in ${at}`);
    for (const name of quotedNames(q.sql)) assert.ok(allowedNames.has(name), `"${name}" is not a whitelisted name in ${at}`);
    const words = q.sql.replace(/"[^"]*"/g, ' ').match(/[A-Za-z_]+/g) ?? [];
    for (const w of words) assert.ok(SQL_WORDS.has(w.toLowerCase()), `unexpected SQL word ${w} in ${at}`);
    assert.equal((q.sql.match(/\?/g) ?? []).length, q.parameters.length, `one parameter per placeholder in ${at}`);
  }

  test(`each of the ${PAYLOADS.length} payloads is refused with a 400 or compiles to contained SQL`, async () => {
    let parsed = 0;
    let refused = 0;
    for (const payload of PAYLOADS) {
      for (const kind of KINDS) {
        let where: WhereNode | null;
        try {
          where = parseWhere(payload, catalogueOf(kind.columns), 'sqlWhereClause');
        } catch (e) {
          assert.ok(e instanceof WaymarkError && e.code === 'InvalidRequest', `${payload}: ${String(e)}`);
          assert.match(e.detail, /^sqlWhereClause: .+\. The grammar is in docs\/queries\.md\.$/s);
          refused++;
          continue;
        }
        parsed++;
        if (where) await assertContained(kind, where);
      }
    }
    // Both outcomes occur: the list is not all syntax errors, nor all harmless values.
    assert.ok(parsed >= 20 && refused >= PAYLOADS.length * 3, `parsed ${parsed}, refused ${refused}`);
  });

  test('the same holds for arbitrary conditions built from the grammar (fast-check)', async () => {
    const kind = KINDS[0];
    const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...PAYLOADS));
    const leaf = fc.oneof(
      fc.tuple(fc.constantFrom('NAME', 'DISPLAY_NAME', 'CLIENT_DATA', 'USER_ID', 'APPL_NAME', 'DEF_NAME'), fc.constantFrom('=', '<>', '<', '>='), text).map(([c, o, v]) => `${c} ${o} '${v.replace(/'/g, "''")}'`),
      fc.tuple(fc.constantFrom('NAME', 'USER_ID', 'APPL_NAME'), text).map(([c, v]) => `${c} LIKE '${v.replace(/'/g, "''")}'`),
      fc.tuple(fc.constantFrom('SESSION', 'CREATED_DATE'), fc.integer()).map(([c, n]) => `${c} >= ${n}`),
      fc.constantFrom('DUE_DATE IS NULL', 'APPL_NAME IS NOT NULL', 'WAIT_WORK_PERFORMED', "STATUS IN ('New','Assigned')", '1=1', "'a'<'b'", 'SESSION = PRIORITY'),
    );
    const condition = fc.array(fc.tuple(leaf, fc.constantFrom(' AND ', ' OR ', ' AND NOT ')), { minLength: 1, maxLength: 5 }).map((parts) => parts.map(([l, j], i) => (i === 0 ? l : j + l)).join(''));
    await fc.assert(
      fc.asyncProperty(condition, async (c) => {
        let where: WhereNode | null;
        try {
          where = parseWhere(c, catalogueOf(kind.columns), 'sqlWhereClause');
        } catch (e) {
          if (e instanceof WaymarkError && e.code === 'InvalidRequest') return;
          throw e;
        }
        if (where) await assertContained(kind, where);
      }),
      { numRuns: 150 },
    );
  });
});

function quotedNames(sqlText: string): string[] {
  return [...sqlText.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
}

describe('over HTTP', () => {
  let s: TestServer;
  const alice: [string, string] = ['LOCAL\\alice', 'alice-password-1'];
  const bob: [string, string] = ['LOCAL\\bob', 'bob-password-1'];
  let aliceSees: Set<string>;

  before(async () => {
    s = await startServer();
    await addUser(s, alice[0], alice[1]);
    await addUser(s, bob[0], bob[1]);
    await addUser(s, 'LOCAL\\mallory', 'mallory-password-1');
    const defId = await deploy(s, 'approval.bpmn');
    for (let i = 0; i < 3; i++) await startInstance(s, defId);
    const items = await workList(s, bob, 'New');
    const take = await s.post(`/EngineServer/Workflow/AssignWorkItem/${items[0].WorkItemID}`, {}, { as: bob, headers: { prefer: 'wait=5' } });
    assert.equal(take.json?.Status, 'Processed', take.text);
    await s.settle();
    const mine = await s.post('/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: '' }, { as: alice });
    aliceSees = new Set(mine.json.map((w: { WorkItemID: string }) => w.WorkItemID));
    const all = await s.post('/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: '' });
    assert.ok(aliceSees.size >= 2 && all.json.length > aliceSees.size, 'alice sees some but not all tasks');
  });
  after(() => s.close());

  function assertAnswer(r: Reply, what: string): void {
    assert.ok(r.status === 200 || r.status === 400, `${what}: ${r.status} ${r.text}`);
    if (r.status === 200) {
      assert.ok(Array.isArray(r.json), `${what}: an array`);
    } else {
      assert.equal(r.json?.code, 'InvalidRequest', `${what}: ${r.text}`);
      assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
      // Database error text would mean the condition reached the database unparsed.
      assert.doesNotMatch(r.text, /SQLITE_[A-Z]+|SQLSTATE/, `${what}: internals in ${r.text}`);
      assert.doesNotMatch(r.text, /no such (table|column|function)|syntax error|near "|kysely/i, `${what}: internals in ${r.text}`);
    }
  }

  test('every payload in every condition property: 200 or 400, no row outside what the caller may see, nothing written', async () => {
    const before = await databaseDigest(s);
    const statuses = new Map<number, number>();
    for (const payload of PAYLOADS) {
      const calls: [string, unknown, [string, string] | undefined][] = [
        ['/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: payload }, alice],
        ['/EngineServer/Workflow/QueryWorkListUsingSQL', { sqlWhereClause: payload }, undefined],
        ['/EngineServer/Workflow/QueryProcInstsUsingSQL', { sqlWhereClause: payload }, alice],
        ['/EngineServer/Admin/QueryRegisterUsersUsingSQL', { sqlWhereClause: payload }, alice],
        ['/EngineServer/Workflow/QueryAuditTrail', { where: payload }, undefined],
        ['/EngineServer/Workflow/QueryWorkList', { ColumnName: 'NAME', Operator: 'EQ', WhereClause: payload }, alice],
        ['/EngineServer/Workflow/QueryProcInsts', { ColumnName: 'PROC_INST_NAME', Operator: 'LIKE', WhereClause: payload }, undefined],
        ['/EngineServer/Workflow/QueryActivityInsts', { ColumnName: 'NAME', Operator: 'IN', WhereClause: payload }, undefined],
      ];
      for (const [p, body, as] of calls) {
        const r = await s.post(p, body, as ? { as } : {});
        assertAnswer(r, `${p} ${JSON.stringify(body)}`);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 200 && as === alice && p.includes('WorkList')) {
          for (const w of r.json) assert.ok(aliceSees.has(w.WorkItemID), `${payload} showed alice a task of someone else`);
        }
        if (r.status === 200 && as === alice && p.includes('RegisterUsers')) {
          for (const u of r.json) assert.deepEqual(Object.keys(u).filter((k) => /password|hash/i.test(k)), []);
        }
      }
    }
    assert.ok((statuses.get(200) ?? 0) > 100 && (statuses.get(400) ?? 0) > 100, JSON.stringify([...statuses]));
    assert.equal(await databaseDigest(s), before, 'the database is unchanged');
    const users = await s.post('/EngineServer/Admin/QueryRegisterUsersUsingSQL', { sqlWhereClause: "USER_NAME LIKE 'local\\%'" });
    assert.deepEqual(users.json.map((u: { UserName: string }) => u.UserName), ['LOCAL\\admin', 'LOCAL\\alice', 'LOCAL\\bob', 'LOCAL\\mallory']);
  });
});
