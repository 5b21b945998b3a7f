/**
 * Where nodes share the database, every request re-reads the security epoch (a change on one node
 * holds on all of them at once); the requests read in one turn of the event loop share one read,
 * started after all of them arrived, and a request of a later turn starts a read of its own.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { EPOCH_KEY } from '../../src/engine/Authenticator.ts';
import { bumpCounter } from '../../src/store/queries/settings.ts';
import { ADMIN, ADMIN_PASSWORD, DIALECT, startServer } from '../helpers/harness.ts';

const skip = DIALECT !== 'postgres' && 'only where nodes share the database (PostgreSQL)';

test('the requests of one turn share one read of the security epoch; a later turn reads it again', { skip }, async () => {
  const s = await startServer();
  try {
    const auth = s.waymark.engine.auth;
    // A first login (scrypt) caches the caller; the calls below are cached logins.
    await auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1');
    await nextTurn();
    const before = auth.epochReads;
    const sameTurn = Array.from({ length: 8 }, () => auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1'));
    const callers = await Promise.all(sameTurn);
    assert.ok(callers.every((c) => c.userName === ADMIN));
    assert.equal(auth.epochReads - before, 1);
    await auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1');
    assert.equal(auth.epochReads - before, 2);
  } finally {
    await s.close();
  }
});

test('a request that arrives while a read of the epoch is on its way waits for a read of its own', { skip }, async () => {
  const s = await startServer();
  try {
    const auth = s.waymark.engine.auth;
    await auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1');
    await nextTurn();
    const reads = auth.epochReads;
    const first = auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1');
    // This turn's read starts at its end; the next request comes in a later turn, while that read
    // may still be on its way, after another node committed a security change.
    await nextTurn();
    assert.equal(auth.epochReads, reads + 1);
    const stored = await bumpCounter(s.waymark.store.db, EPOCH_KEY);
    const later = auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1');
    await Promise.all([first, later]);
    assert.equal(auth.epochReads, reads + 2, 'the later request read the epoch again');
    // The change reached this node: its next cached login is checked against it.
    await auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1');
    assert.equal((auth as unknown as { epoch: number }).epoch, stored);
  } finally {
    await s.close();
  }
});
