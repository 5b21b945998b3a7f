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
import { ADMIN, ADMIN_PASSWORD, DIALECT, startServer, type TestServer } from '../helpers/harness.ts';

const skip = DIALECT !== 'postgres' && 'only where nodes share the database (PostgreSQL)';

type Auth = TestServer['waymark']['engine']['auth'];

/**
 * A server whose admin login is cached (the first login runs scrypt), handed to `fn` with its
 * Authenticator and a cached login of the admin, in a turn of its own.
 */
async function withCachedLogin(fn: (s: TestServer, auth: Auth, login: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const s = await startServer();
  try {
    const auth = s.waymark.engine.auth;
    const login = () => Promise.resolve(auth.authenticate(ADMIN, ADMIN_PASSWORD, '127.0.0.1'));
    await login();
    await nextTurn();
    await fn(s, auth, login);
  } finally {
    await s.close();
  }
}

test('the requests of one turn share one read of the security epoch; a later turn reads it again', { skip }, () =>
  withCachedLogin(async (_s, auth, login) => {
    const before = auth.epochReads;
    const callers = (await Promise.all(Array.from({ length: 8 }, login))) as { userName: string }[];
    assert.ok(callers.every((c) => c.userName === ADMIN));
    assert.equal(auth.epochReads - before, 1);
    await login();
    assert.equal(auth.epochReads - before, 2);
  }),
);

test('a request that arrives while a read of the epoch is on its way waits for a read of its own', { skip }, () =>
  withCachedLogin(async (s, auth, login) => {
    const reads = auth.epochReads;
    const first = login();
    // This turn's read starts at its end; the next request comes in a later turn, while that read
    // may still be on its way, after another node committed a security change.
    await nextTurn();
    assert.equal(auth.epochReads, reads + 1);
    const stored = await bumpCounter(s.waymark.store.db, EPOCH_KEY);
    const later = login();
    await Promise.all([first, later]);
    assert.equal(auth.epochReads, reads + 2, 'the later request read the epoch again');
    // The change reached this node: its next cached login is checked against it.
    await login();
    assert.equal((auth as unknown as { epoch: number }).epoch, stored);
  }),
);
