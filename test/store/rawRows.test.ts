/**
 * Rows built in JavaScript from better-sqlite3's raw arrays (src/store/rawRows.ts) must be the
 * rows better-sqlite3 builds itself: same keys in the same order, same values, a repeated column
 * name keeping the last value, and no column name able to change the object's prototype.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { rawRunner, rowMaker } from '../../src/store/rawRows.ts';
import { Store } from '../../src/store/Store.ts';
import { DIALECT } from '../helpers/harness.ts';

function database(): SQLite.Database {
  const db = new SQLite(':memory:');
  db.exec(`create table a (id text primary key, n integer, r real, b blob, t text);
           create table c (id text primary key, a_id text, n integer);
           insert into a values ('a1', 1, 1.5, x'00ff', 'one'), ('a2', null, null, null, null), ('a3', 9007199254740991, -0.25, x'', '');
           insert into c values ('c1', 'a1', 10), ('c2', 'a3', 30);`);
  return db;
}

test('rows from raw arrays equal the rows better-sqlite3 builds, key order included', () => {
  const db = database();
  for (const text of [
    'select * from a order by id',
    'select * from a where id = ?',
    'select a.*, c.* from a left join c on c.a_id = a.id order by a.id',
    'select count(*) as n from a',
    'select id, id as id2, n + 1 as next from a where n is not null order by id',
  ]) {
    const values = text.includes('?') ? ['a3'] : [];
    const expected = db.prepare(text).all(...values) as Record<string, unknown>[];
    const got = rawRunner(db.prepare(text))(values) as Record<string, unknown>[];
    assert.deepEqual(got, expected, text);
    assert.deepEqual(got.map((r) => Object.keys(r)), expected.map((r) => Object.keys(r)), text);
  }
  db.close();
});

test('a repeated column name keeps the last value, in the position of its first column', () => {
  const db = database();
  const text = 'select a.id, a.n, c.id, c.n from a join c on c.a_id = a.id order by a.id';
  const got = rawRunner(db.prepare(text))([]);
  assert.deepEqual(got, db.prepare(text).all());
  assert.deepEqual(got, [
    { id: 'c1', n: 10 },
    { id: 'c2', n: 30 },
  ]);
  db.close();
});

test('no column name can set the prototype or run as code', () => {
  const make = rowMaker(['__proto__', 'x', '"); throw new Error("no', 'constructor']);
  const row = make([{ polluted: true }, 1, 2, 3]);
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.deepEqual(Object.keys(row), ['__proto__', 'x', '"); throw new Error("no', 'constructor']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, { polluted: true });
  assert.equal((row as Record<string, unknown>).polluted, undefined);
  const plain = rowMaker(['a', '"); throw new Error("no'])([1, 2]);
  assert.deepEqual(plain, { a: 1, '"); throw new Error("no': 2 });
});

test('a statement that returns no rows runs and answers an empty list', () => {
  const db = database();
  assert.deepEqual(rawRunner(db.prepare('update a set t = ? where id = ?'))(['changed', 'a1']), []);
  assert.equal((db.prepare('select t from a where id = ?').get('a1') as { t: string }).t, 'changed');
  assert.deepEqual(rawRunner(db.prepare('update a set t = ? where id = ? returning id, t'))(['again', 'a2']), [{ id: 'a2', t: 'again' }]);
  db.close();
});

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('the SQLite store keeps savepoint journals in memory (temp_store = MEMORY)', { skip: DIALECT !== 'sqlite' && 'an SQLite pragma' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waymark-raw-'));
  dirs.push(dir);
  const store = Store.open({ sqlitePath: path.join(dir, 'w.db') });
  try {
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(store.db);
    assert.equal(rows[0].temp_store, 2);
  } finally {
    await store.close();
  }
});
