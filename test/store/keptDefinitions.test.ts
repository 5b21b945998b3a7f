/**
 * Definition summaries kept on the single SQLite writer (findDefinitionSummary in
 * src/store/queries/definitions.ts, src/store/transactionRows.ts): read once, answered from memory
 * in the transactions after, until a release archives a version or another connection commits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { findDefinitionSummary, insertDefinition, releaseDefinition } from '../../src/store/queries/definitions.ts';
import { DIALECT } from '../helpers/harness.ts';
import { storeWithDefinition } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';

const tempDb = tempDbFiles('waymark-kept-definitions-');
const sqliteOnly = { skip: DIALECT !== 'sqlite' && 'rows are kept only where one connection writes (SQLite)' };

test('a definition summary is read once, and again after a release or another connection\'s commit', sqliteOnly, async () => {
  const file = tempDb();
  const store = await storeWithDefinition(file);
  try {
    await store.transaction(async (trx) => {
      assert.equal((await findDefinitionSummary(trx, 'D1'))?.status, 'Released');
      await insertDefinition(trx, {
        def_id: 'D2', base_def_id: 'D1', def_name: 'Model', def_name_key: 'model', version: 2, status: 'Draft',
        description: '', xml: '<definitions/>', created_by: 'LOCAL\\admin', created_date: 1, release_date: null,
      });
    });
    await store.transaction(async (trx) => {
      // Behind the store's back (as nothing in Waymark writes): the kept summary shows that it is used.
      await sql`update process_definitions set description = 'behind' where def_id = 'D1'`.execute(trx);
      assert.equal((await findDefinitionSummary(trx, 'D1'))?.description, '', 'kept from the transaction before');
      await releaseDefinition(trx, 'D2', 'model', 2);
      const d1 = await findDefinitionSummary(trx, 'D1');
      assert.equal(d1?.status, 'Archived', 'a release forgets the kept summaries');
      assert.equal(d1?.description, 'behind');
      assert.equal((await findDefinitionSummary(trx, 'D2'))?.status, 'Released');
    });
    const other = new SQLite(file);
    other.prepare(`update process_definitions set description = 'other' where def_id = 'D2'`).run();
    other.close();
    await store.transaction(async (trx) => {
      assert.equal((await findDefinitionSummary(trx, 'D2'))?.description, 'other', 'another connection committed');
    });
  } finally {
    await store.close();
  }
});
