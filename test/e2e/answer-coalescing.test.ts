/**
 * Answers are written together at the end of the turn of the event loop that made them
 * (src/api/answerCoalescing.ts): none is written before the turn ends, each still goes out, in
 * the order made, and whatever runs while one is written runs in its own request's scope.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { MAX_HELD_ANSWERS, registerAnswerCoalescing, TurnBatch } from '../../src/api/answerCoalescing.ts';
import { registerLoadShedding } from '../../src/api/loadShedding.ts';
import { errorHandler } from '../../src/api/problem.ts';
import { requestContext } from '../../src/engine/requestContext.ts';
import { startServer } from '../helpers/harness.ts';

const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An app limited to `max` requests in flight: GET /slow waits until its gate (in `gates`) opens, GET /fast answers at once. */
async function inFlightApp(max: number) {
  const app = Fastify();
  app.setErrorHandler(errorHandler);
  await registerLoadShedding(app, { maxInFlight: max, maxEventLoopDelayMs: 0 });
  registerAnswerCoalescing(app);
  const gates: Array<() => void> = [];
  app.get('/slow', async (_request, reply) => {
    await new Promise<void>((resolve) => gates.push(resolve));
    return reply.send('slow');
  });
  app.get('/fast', (_request, reply) => reply.send('fast'));
  return { app, gates };
}

describe('TurnBatch', () => {
  test('what is held in one turn is released at its end, in order, not before', async () => {
    const released: number[] = [];
    const batch = new TurnBatch<number>((n) => released.push(n), (e) => assert.fail(String(e)));
    batch.hold(1);
    batch.hold(2);
    batch.hold(3);
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(released, [], 'microtasks of the same turn do not release');
    assert.equal(batch.size, 3);
    await endOfTurn();
    assert.deepEqual(released, [1, 2, 3]);
    assert.equal(batch.size, 0);
  });

  test('what is held while releasing waits for the next turn; a later turn gets its own release', async () => {
    const released: string[] = [];
    const batch: TurnBatch<string> = new TurnBatch<string>((s) => {
      released.push(s);
      if (s === 'a') batch.hold('from a');
    }, (e) => assert.fail(String(e)));
    batch.hold('a');
    await endOfTurn();
    assert.deepEqual(released, ['a']);
    assert.equal(batch.size, 1);
    await endOfTurn();
    assert.deepEqual(released, ['a', 'from a']);
    batch.hold('later');
    await endOfTurn();
    assert.deepEqual(released, ['a', 'from a', 'later']);
  });

  test('once maxHeld wait, they are released at once; what comes after waits for the end of the turn', async () => {
    const released: number[] = [];
    const batch = new TurnBatch<number>((n) => released.push(n), (e) => assert.fail(String(e)), 3);
    batch.hold(1);
    batch.hold(2);
    assert.deepEqual(released, []);
    batch.hold(3);
    assert.deepEqual(released, [1, 2, 3], 'the third hold releases all three at once');
    batch.hold(4);
    assert.deepEqual(released, [1, 2, 3]);
    await endOfTurn();
    assert.deepEqual(released, [1, 2, 3, 4]);
  });

  test('a release that throws is reported and the others still go', async () => {
    const released: number[] = [];
    const errors: unknown[] = [];
    const batch = new TurnBatch<number>(
      (n) => {
        if (n === 2) throw new Error('socket gone');
        released.push(n);
      },
      (e) => errors.push(e),
    );
    for (const n of [1, 2, 3]) batch.hold(n);
    await endOfTurn();
    assert.deepEqual(released, [1, 3]);
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /socket gone/);
  });
});

describe('answers of a Fastify app', () => {
  test('an answer sent is written at the end of the turn, and the hooks after it run in its request scope', async () => {
    const app = Fastify();
    app.addHook('onRequest', (request, _reply, done) => requestContext.run({ reqId: String(request.query && (request.query as any).n) }, done));
    registerAnswerCoalescing(app);
    const seen: Array<{ n: string; scope: string | undefined }> = [];
    app.addHook('onSend', (request, _reply, payload, done) => {
      seen.push({ n: String((request.query as any).n), scope: requestContext.getStore()?.reqId });
      done(null, payload);
    });
    const written: boolean[] = [];
    app.get('/a', (request, reply) => {
      reply.send({ n: (request.query as any).n });
      // Sent but held: not written in this turn, not even after its microtasks.
      written.push(reply.raw.headersSent);
      queueMicrotask(() => written.push(reply.raw.headersSent));
      return reply;
    });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => app.inject({ method: 'GET', url: `/a?n=${n}` })));
    for (const [n, r] of answers.entries()) assert.deepEqual(r.json(), { n: String(n) });
    assert.equal(written.length, 40);
    assert.ok(written.every((w) => w === false), 'no answer was written in the turn that sent it');
    assert.equal(seen.length, 20);
    for (const s of seen) assert.equal(s.scope, s.n, 'the hook after the hold runs in the scope of its own request');
    await app.close();
  });

  test('more answers than MAX_HELD_ANSWERS in one turn: the first ones are written without waiting for the turn to end', async () => {
    const app = Fastify();
    registerAnswerCoalescing(app);
    const writtenAtSend: boolean[] = [];
    app.get('/a', (_request, reply) => {
      reply.send('x');
      writtenAtSend.push(reply.raw.headersSent);
      return reply;
    });
    // inject hands all these requests over in one turn (as the first test shows).
    const answers = await Promise.all(Array.from({ length: MAX_HELD_ANSWERS + 1 }, () => app.inject({ method: 'GET', url: '/a' })));
    for (const r of answers) assert.equal(r.body, 'x');
    const expected = Array.from({ length: MAX_HELD_ANSWERS + 1 }, (_, i) => i === MAX_HELD_ANSWERS - 1);
    assert.deepEqual(writtenAtSend, expected, `the ${MAX_HELD_ANSWERS}th answer releases the ${MAX_HELD_ANSWERS} held; the next one waits for the turn to end`);
    await app.close();
  });

  test('requests in flight: a request counts until its answer is made, a burst answered in one turn is not refused', async () => {
    const { app, gates } = await inFlightApp(4);
    // Four requests wait in their handlers: the fifth is refused with 503 + Retry-After.
    const slow = Array.from({ length: 4 }, () => app.inject({ method: 'GET', url: '/slow' }));
    while (gates.length < 4) await new Promise((r) => setImmediate(r));
    const refused = await app.inject({ method: 'GET', url: '/fast' });
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.headers['retry-after'], '1');
    // Every refusal is the same error object (loadShedding.ts); each answer still has its own request id.
    const again = await app.inject({ method: 'GET', url: '/fast' });
    assert.equal(again.statusCode, 503, again.body);
    const [a, b] = [refused.json(), again.json()];
    assert.equal(a.code, 'ServiceUnavailable');
    assert.equal(b.detail, a.detail);
    assert.notEqual(b.requestId, a.requestId);
    for (const open of gates) open();
    for (const r of await Promise.all(slow)) assert.equal(r.body, 'slow');
    // Twenty requests in one burst, each answered at once but written at the end of the turn:
    // none is refused, since a request stops counting when its answer is made.
    const burst = await Promise.all(Array.from({ length: 20 }, () => app.inject({ method: 'GET', url: '/fast' })));
    assert.deepEqual(burst.map((r) => r.statusCode), Array(20).fill(200));
    await app.close();
  });

  test('requests in flight: a request whose connection drops before its answer stops counting', async () => {
    const { app, gates } = await inFlightApp(2);
    const closed: Promise<void>[] = [];
    app.addHook('onRequest', (request, _reply, done) => {
      closed.push(new Promise((resolve) => request.raw.socket.once('close', () => resolve())));
      done();
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      // Two requests wait in their handlers; a third is refused.
      const aborts = Array.from({ length: 2 }, () => new AbortController());
      const dropped = aborts.map((a) => fetch(`${url}/slow`, { signal: a.signal }).catch(() => 'dropped'));
      while (gates.length < 2) await new Promise((r) => setTimeout(r, 5));
      assert.equal((await fetch(`${url}/fast`)).status, 503);
      // Their clients go away before any answer is made: both stop counting.
      for (const a of aborts) a.abort();
      assert.deepEqual(await Promise.all(dropped), ['dropped', 'dropped']);
      await Promise.all(closed.slice(0, 2));
      await endOfTurn();
      const after = await Promise.all([fetch(`${url}/fast`), fetch(`${url}/fast`)]);
      assert.deepEqual(after.map((r) => r.status), [200, 200]);
      // Answered late, after the drop, they are not taken off twice: the limit still holds.
      for (const open of gates) open();
      await endOfTurn();
      gates.length = 0;
      const held = Array.from({ length: 2 }, () => fetch(`${url}/slow`));
      while (gates.length < 2) await new Promise((r) => setTimeout(r, 5));
      assert.equal((await fetch(`${url}/fast`)).status, 503);
      for (const open of gates) open();
      assert.deepEqual((await Promise.all(held)).map((r) => r.status), [200, 200]);
    } finally {
      await app.close();
    }
  });

  test('a live server answers many concurrent requests, each with its own body and request id', async () => {
    const s = await startServer();
    try {
      const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? s.get('/EngineServer/Admin/GetRegisterUsers') : s.get('/EngineServer/Workflow/GetWorkItem/0123456789abcdef0123456789abcdef'))));
      for (const [i, r] of rs.entries()) {
        if (i % 2) {
          assert.equal(r.status, 200, r.text);
          assert.ok(r.json.GetRegisterUsersResult.some((u: any) => u.UserName === 'LOCAL\\admin'), r.text);
        } else {
          assert.equal(r.status, 404, r.text);
          assert.equal(r.json.code, 'WorkItemNotFound');
          // The body was made for the request whose answer carries it.
          assert.equal(r.json.requestId, r.headers.get('x-request-id'));
        }
      }
      const ids = rs.map((r) => r.headers.get('x-request-id'));
      assert.equal(new Set(ids).size, ids.length, 'one request id per answer');
    } finally {
      await s.close();
    }
  });
});
