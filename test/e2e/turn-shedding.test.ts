/**
 * The per-turn limit of load shedding (src/api/loadShedding.ts, TurnAge): a request read after
 * its turn of the event loop has already run longer than the event-loop limit is refused with
 * 503 + Retry-After; a request alone, or a turn that stays short, is never refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { registerAnswerCoalescing } from '../../src/api/answerCoalescing.ts';
import { registerLoadShedding, START_GRACE_MS, TurnAge } from '../../src/api/loadShedding.ts';
import { errorHandler } from '../../src/api/problem.ts';

test('TurnAge: the first request of a turn starts the clock, the end of the turn stops it', () => {
  let now = 100;
  const ends: Array<() => void> = [];
  const turn = new TurnAge(() => now, (fn) => ends.push(fn));
  assert.equal(turn.age(), 0);
  now = 130;
  assert.equal(turn.age(), 30);
  now = 175;
  assert.equal(turn.age(), 75);
  assert.equal(ends.length, 1, 'one end of turn scheduled per turn');
  ends.shift()!();
  now = 500;
  assert.equal(turn.age(), 0, 'a new turn starts with its first request');
  now = 501;
  assert.equal(turn.age(), 1);
  assert.equal(ends.length, 1);
});

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** An app with only the load shedding of the server, whose /work holds the loop for `workMs`; started and past its grace. */
async function appWith(limitMs: number, workMs: number) {
  const app = Fastify();
  app.setErrorHandler(errorHandler);
  await registerLoadShedding(app, { maxInFlight: 0, maxEventLoopDelayMs: limitMs });
  registerAnswerCoalescing(app);
  app.get('/work', (_request, reply) => {
    busyFor(workMs);
    reply.send('done');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => setTimeout(r, START_GRACE_MS + 100));
  return app;
}

/** Twelve requests made in one turn of the event loop (injected together), their statuses. */
async function burst(app: Awaited<ReturnType<typeof appWith>>) {
  const answers = await Promise.all(Array.from({ length: 12 }, () => app.inject({ method: 'GET', url: '/work' })));
  return answers.map((a) => ({ status: a.statusCode, retryAfter: a.headers['retry-after'] ?? null }));
}

test('requests read after their turn has run past the limit are refused; the first ones of the turn are served', async () => {
  // Each request holds the loop for 8 ms: the fourth of one turn starts at least 24 ms into it.
  const app = await appWith(20, 8);
  try {
    const single = await app.inject({ method: 'GET', url: '/work' });
    assert.equal(single.statusCode, 200, 'a request alone in its turn is served, whatever it costs');
    const got = await burst(app);
    const served = got.filter((a) => a.status === 200).length;
    const refused = got.filter((a) => a.status === 503);
    assert.equal(served + refused.length, 12, JSON.stringify(got));
    // The k-th request of the turn starts at least 8 (k - 1) ms into it: the fourth and later are
    // always past 20 ms. The first starts the turn and is always served.
    assert.ok(served >= 1 && served <= 3, `the first requests of the turn are served, no later one (${served})`);
    for (const r of refused) assert.equal(r.retryAfter, '1');
    // The next turn starts afresh.
    assert.equal((await app.inject({ method: 'GET', url: '/work' })).statusCode, 200);
  } finally {
    await app.close();
  }
});

test('a turn that stays under the limit refuses nothing; the limit at 0 is off', async () => {
  for (const [limit, work] of [[200, 2], [0, 8]]) {
    const app = await appWith(limit, work);
    try {
      assert.deepEqual((await burst(app)).map((a) => a.status), Array(12).fill(200), `limit ${limit}`);
    } finally {
      await app.close();
    }
  }
});
