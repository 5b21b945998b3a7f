/**
 * Where nodes share the database (PostgreSQL), definition summaries are kept between transactions
 * under the definitions epoch that the Authenticator reads once per turn, and a release bumps it
 * in its own transaction (definitions.ts): a node starting instances reads a definition once, and
 * sees a release made on another node as soon as it has read the new epoch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFINITIONS_EPOCH_KEY, findDefinitionSummary, insertDefinition, noteDefinitionsEpoch, releaseDefinition } from '../../src/store/queries/definitions.ts';
import { getSetting } from '../../src/store/queries/settings.ts';
import type { Store } from '../../src/store/Store.ts';
import { DIALECT } from '../helpers/harness.ts';
import { dialectStoreWithDefinition, recordPgStatements } from '../helpers/storeRows.ts';
import { tempDbFiles } from '../helpers/tempDb.ts';
import { openTestStore } from '../helpers/testStore.ts';

const tempDb = tempDbFiles('waymark-definitions-epoch-');
const skip = DIALECT !== 'postgres' && 'nodes share a database on PostgreSQL only (SQLite keeps its rows on its single writer)';

const readsOfDefinitions = (texts: string[]) => texts.filter((t) => /from "process_definitions"/.test(t)).length;

/** What the Authenticator does once per turn: read the epoch and tell the definitions module. */
async function readEpoch(store: Store): Promise<void> {
  noteDefinitionsEpoch(store.db, Number((await getSetting(store.db, DEFINITIONS_EPOCH_KEY)) ?? '0'));
}

test('a node keeps a summary under the epoch it read, and reads it again once another node\'s release has bumped the epoch', { skip }, async () => {
  const { texts, stop } = recordPgStatements();
  const file = tempDb();
  const a = await dialectStoreWithDefinition(file);
  const b = await openTestStore(file); // another node on the same database
  try {
    await readEpoch(a);
    texts.length = 0;
    for (let i = 0; i < 3; i++) assert.equal((await a.transaction((trx) => findDefinitionSummary(trx, 'D1')))?.status, 'Released');
    assert.equal(readsOfDefinitions(texts), 1, 'read once, then kept');

    // Node b releases version 2 of the same model: D1 is Archived, and the epoch moves on.
    const before = Number((await getSetting(b.db, DEFINITIONS_EPOCH_KEY)) ?? '0');
    await b.transaction(async (trx) => {
      await insertDefinition(trx, {
        def_id: 'D2', base_def_id: 'D1', def_name: 'Model', def_name_key: 'model', version: 2, status: 'Draft',
        description: '', xml: '<definitions/>', created_by: 'LOCAL\\admin', created_date: 0, release_date: null,
      });
      await releaseDefinition(trx, 'D2', 'model', 1);
    });
    assert.equal(Number(await getSetting(b.db, DEFINITIONS_EPOCH_KEY)), before + 1);

    // Node a's next turn reads the new epoch: D1 is read again, Archived.
    await readEpoch(a);
    texts.length = 0;
    assert.equal((await a.transaction((trx) => findDefinitionSummary(trx, 'D1')))?.status, 'Archived');
    assert.equal(readsOfDefinitions(texts), 1);
  } finally {
    stop();
    await b.close();
    await a.close();
  }
});

test('with no epoch read yet, nothing is kept: every call reads the row', { skip }, async () => {
  const { texts, stop } = recordPgStatements();
  const store = await dialectStoreWithDefinition(tempDb());
  try {
    texts.length = 0;
    for (let i = 0; i < 2; i++) await store.transaction((trx) => findDefinitionSummary(trx, 'D1'));
    assert.equal(readsOfDefinitions(texts), 2);
  } finally {
    stop();
    await store.close();
  }
});

test('what a transaction reads after writing definitions is not kept: a release that rolls back leaves nothing behind', { skip }, async () => {
  const store = await dialectStoreWithDefinition(tempDb());
  try {
    await store.transaction((trx) =>
      insertDefinition(trx, {
        def_id: 'D2', base_def_id: 'D1', def_name: 'Model', def_name_key: 'model', version: 2, status: 'Created',
        description: '', xml: '<definitions/>', created_by: 'LOCAL\\admin', created_date: 0, release_date: null,
      }),
    );
    await readEpoch(store);
    // A ReleaseProcDef and a CreateProcInst in one group commit, which is then lost.
    await assert.rejects(
      store.transaction(async (trx) => {
        await releaseDefinition(trx, 'D2', 'model', 5);
        assert.equal((await findDefinitionSummary(trx, 'D1'))?.status, 'Archived', 'the transaction sees its own release');
        assert.equal((await findDefinitionSummary(trx, 'D2'))?.status, 'Released');
        throw new Error('commit lost');
      }),
      /commit lost/,
    );
    await readEpoch(store); // the bump rolled back: the same epoch
    assert.equal((await store.transaction((trx) => findDefinitionSummary(trx, 'D1')))?.status, 'Released');
    assert.equal((await store.transaction((trx) => findDefinitionSummary(trx, 'D2')))?.status, 'Created');
  } finally {
    await store.close();
  }
});

