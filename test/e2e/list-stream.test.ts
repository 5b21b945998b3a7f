/**
 * Long list answers (listStream.ts): the bytes are right whatever the pace of the reader, a
 * buffer is written again only once the bytes before it have left, buffers are reused rather
 * than allocated per piece, and a list writes at most about one piece per turn of the event loop.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { ListStream, listStreamCounters, PIECE_BYTES } from '../../src/api/listStream.ts';
import { startServer, type TestServer } from '../helpers/harness.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Records like a user directory's, `pages` pages of `size`, with some non-ASCII text. */
function* records(pages: number, size: number): Generator<unknown[]> {
  for (let p = 0; p < pages; p++) {
    yield Array.from({ length: size }, (_, i) => ({ UserName: `LOCAL\\user${p}-${i}`, FullName: `Zoë Ñúñez ${'x'.repeat((p * 7 + i) % 300)}`, Disabled: i % 2 === 0 }));
  }
}

async function* pagesOf(all: unknown[][], counter?: { pulled: number }): AsyncGenerator<unknown[]> {
  for (const page of all) {
    if (counter) counter.pulled++;
    yield page;
  }
}

/**
 * A sink like a socket: it keeps each chunk it is given (not a copy) and copies its bytes out
 * only when it "flushes" it, `delay` turns later; until then the chunk counts in writableLength,
 * as a socket's pending write does. A buffer reused too early would show in what it copies.
 */
class SlowSink extends Writable {
  readonly out: Buffer[] = [];
  constructor(private readonly delay: number) {
    super({ highWaterMark: 16 * 1024 });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, callback: (error?: Error | null) => void): void {
    let left = this.delay;
    const later = () => {
      if (left-- > 0) return setImmediate(later);
      this.out.push(Buffer.from(chunk)); // the copy happens now, as the kernel's would
      callback();
    };
    later();
  }
}

/** Streams `all` through a ListStream into `sink`; resolves with the text the sink received. */
function run(all: unknown[][], sink: SlowSink, counter?: { pulled: number }): Promise<string> {
  const head = '{"ListResult":[';
  const stream = new ListStream(head, true, pagesOf(all, counter), sink as unknown as ServerResponse);
  return new Promise((resolve, reject) => {
    sink.on('finish', () => resolve(Buffer.concat(sink.out).toString('utf8')));
    sink.on('error', reject);
    stream.on('error', reject);
    stream.pipe(sink);
  });
}

describe('ListStream', () => {
  test('a slow reader gets exactly the list, and buffers are reused only after their bytes have left', async () => {
    const all = [...records(150, 100)];
    const expected = JSON.stringify({ ListResult: all.flat() });
    assert.ok(Buffer.byteLength(expected) > 40 * PIECE_BYTES, `${Buffer.byteLength(expected)} bytes: many pieces`);
    for (const delay of [0, 1, 3]) {
      const before = { ...listStreamCounters };
      const text = await run(all, new SlowSink(delay));
      assert.equal(text, expected, `reader ${delay} turns behind`);
      const allocated = listStreamCounters.allocated - before.allocated;
      const reused = listStreamCounters.reused - before.reused;
      assert.ok(reused > 30, `reused ${reused} buffers (reader ${delay} behind)`);
      assert.ok(allocated <= 8, `allocated ${allocated} buffers for ${Math.ceil(Buffer.byteLength(expected) / PIECE_BYTES)} pieces`);
    }
  });

  test('a reader that never flushes gets a new buffer for every piece (none is written over)', async () => {
    const all = [...records(12, 100)];
    const expected = JSON.stringify({ ListResult: all.flat() });
    // Holds every chunk by reference and reports all of them as still queued until the end.
    const held: Buffer[] = [];
    const response = Object.assign(new EventEmitter(), { writableLength: Number.MAX_SAFE_INTEGER });
    const stream = new ListStream('{"ListResult":[', true, pagesOf(all), response as unknown as ServerResponse);
    const before = listStreamCounters.allocated + listStreamCounters.reused;
    for await (const chunk of stream) held.push(chunk as Buffer);
    assert.equal(Buffer.concat(held).toString('utf8'), expected);
    const taken = listStreamCounters.allocated + listStreamCounters.reused - before;
    assert.ok(taken >= held.length - 1, `${taken} buffers for ${held.length} pieces`);
  });

  test('a page longer than a piece is the most read in one turn of the event loop, however fast the reader', async () => {
    const counter = { pulled: 0 };
    const all = [...records(40, 400)];
    assert.ok(JSON.stringify(all[0]).length > PIECE_BYTES, 'each page fills a piece');
    const done = run(all, new SlowSink(0), counter);
    let turns = 0;
    let most = 0;
    let last = 0;
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    while (!finished && turns < 10_000) {
      await turn();
      turns++;
      most = Math.max(most, counter.pulled - last);
      last = counter.pulled;
    }
    await done;
    assert.equal(counter.pulled, all.length);
    assert.ok(most <= 1, `${most} pages read in one turn`);
    assert.ok(turns >= all.length, `${turns} turns for ${all.length} pages`);
  });

  test('a list cut short (the client went away) closes its pages; a failing page ends the stream with its error', async () => {
    let pulled = 0;
    let closed = false;
    async function* endless(): AsyncGenerator<unknown[]> {
      try {
        for (;;) {
          pulled++;
          yield [...records(1, 400)][0];
        }
      } finally {
        closed = true;
      }
    }
    const response = Object.assign(new EventEmitter(), { writableLength: 0 });
    const cut = new ListStream('{"ListResult":[', true, endless(), response as unknown as ServerResponse);
    let chunks = 0;
    await new Promise<void>((resolve) => {
      cut.on('data', () => {
        if (++chunks === 3) cut.destroy();
      });
      cut.on('close', resolve);
    });
    await turn();
    assert.ok(closed, 'the page source was closed');
    const after = pulled;
    await turn();
    await turn();
    assert.equal(pulled, after, 'no page read after the cut');

    async function* failing(): AsyncGenerator<unknown[]> {
      yield [...records(1, 400)][0];
      throw new Error('the database went away');
    }
    const broken = new ListStream('{"ListResult":[', true, failing(), response as unknown as ServerResponse);
    broken.resume();
    const [error] = (await EventEmitter.once(broken, 'error')) as [Error];
    assert.equal(error.message, 'the database went away');
  });

  test('a record longer than a piece goes out whole', async () => {
    const big = [{ UserName: 'LOCAL\\big', FullName: 'é'.repeat(PIECE_BYTES) }];
    const all = [[{ UserName: 'LOCAL\\a' }], big, [{ UserName: 'LOCAL\\z' }]];
    assert.equal(await run(all, new SlowSink(1)), JSON.stringify({ ListResult: all.flat() }));
  });
});

describe('GetRegisterUsers streamed to many clients at once', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    const names = Array.from({ length: 900 }, (_, i) => `LOCAL\\many${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      const batch = names.slice(i, i + 50).map((UserName, j) => s.post('/EngineServer/Admin/RegisterUser', { UserName, FullName: `Person ${i + j} ${'ü'.repeat(j * 3)}`, Title: 't'.repeat(i % 200) }));
      for (const r of await Promise.all(batch)) assert.equal(r.status, 200, r.text);
    }
  });
  after(() => s.close());

  test('eight concurrent answers are the same complete list', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, () => s.get('/EngineServer/Admin/GetRegisterUsers')));
    for (const r of replies) {
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('transfer-encoding'), 'chunked');
      assert.equal(r.text, replies[0].text);
    }
    const listed = replies[0].json.GetRegisterUsersResult as { UserName: string }[];
    assert.equal(listed.filter((u) => u.UserName.startsWith('LOCAL\\many')).length, 900);
  });
});
