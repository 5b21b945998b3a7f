/**
 * GetRegisterUsers' pages as JSON text written by the database (store/wireJson.ts
 * registeredUserPageSql, SQLite's json_object or PostgreSQL's to_json pieces) are, byte for byte,
 * what JSON.stringify makes of engine/records.ts toRegisteredUser for the same rows, joined by
 * commas, page after page: on random users, with text of any Unicode (quotes, backslashes, control
 * characters, characters outside the BMP; NUL only where SQLite stores it), missing dates and
 * either flag value, on this run's dialect.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Insertable } from 'kysely';
import { toRegisteredUser } from '../../src/engine/records.ts';
import { listUserPageJson, listUsersAfter } from '../../src/store/queries/users.ts';
import type { UsersTable } from '../../src/store/schema.ts';
import { DIALECT } from '../helpers/harness.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import { openMigratedStore } from '../helpers/testStore.ts';

const tempDb = tempDbFiles('waymark-user-page-json-');

/** PostgreSQL's text cannot hold NUL; every other code point can. */
const units = ['"', '\\', '\n', '\r', '\t', '\b', '\f', '\u001f', '\u007f', '\u2028', '/', '<', 'é', '😀', 'a', ...(DIALECT === 'sqlite' ? ['\u0000'] : [])];
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }).map((s) => (DIALECT === 'sqlite' ? s : s.replace(/\u0000/g, ''))),
  fc.string({ unit: fc.constantFrom(...units), maxLength: 12 }),
);
const ms = fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 });
const bit = fc.constantFrom(0, 1);

let run = 0;

test('the database writes GetRegisterUsers pages exactly as JSON.stringify of engine/records.ts, page after page', async () => {
  const store = await openMigratedStore(tempDb());
  try {
    const db = store.db;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            name: text, full: text, email: text, department: text, title: text, manager: text, locale: text, zone: text, contact: text, ref: text,
            registered: ms, expires: fc.option(ms, { nil: null }), never: bit, disabled: bit,
          }),
          { minLength: 0, maxLength: 7 },
        ),
        fc.integer({ min: 1, max: 4 }),
        async (users, pageSize) => {
          run++;
          // Keys of this run only, in an order of their own ("k" + run + index).
          const rows: Insertable<UsersTable>[] = users.map((u, i) => ({
            user_key: `k${String(run).padStart(6, '0')}${String(i).padStart(2, '0')}`,
            user_name: u.name, full_name: u.full, email_address: u.email, department: u.department, title: u.title, manager: u.manager,
            locale: u.locale, time_zone: u.zone, online_contact: u.contact, ref_id: u.ref, registered_date: u.registered,
            ual_expiration_date: u.expires, ual_never_expires: u.never, disabled: u.disabled,
          }));
          if (rows.length) await db.insertInto('users').values(rows).execute();
          try {
            // From just before this run's keys to the end: the earlier runs' rows are gone, and any
            // user after them (an administrator's 'local\…' key) is paged and compared too.
            let after = `k${String(run).padStart(6, '0')}`;
            for (let pages = 0; pages < 10; pages++) {
              const expected = await listUsersAfter(db, after, pageSize);
              const page = await listUserPageJson(db, after, pageSize);
              assert.equal(page.n, expected.length);
              if (expected.length === 0) {
                assert.equal(page.json, null);
                assert.equal(page.last, null);
                return;
              }
              assert.equal(page.json, expected.map((u) => JSON.stringify(toRegisteredUser(u))).join(','));
              assert.equal(page.last, expected[expected.length - 1].user_key);
              // The text parses to the records, one per user.
              assert.equal((JSON.parse(`[${page.json}]`) as unknown[]).length, expected.length);
              after = page.last!;
            }
            assert.fail('more pages than users');
          } finally {
            await db.deleteFrom('users').where('user_key', 'like', `k${String(run).padStart(6, '0')}%`).execute();
          }
        },
      ),
      { numRuns: 60 },
    );
  } finally {
    await store.close();
  }
});
