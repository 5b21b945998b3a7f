/**
 * A list answer longer than one body, streamed as UTF-8 written straight into buffers of
 * PIECE_BYTES that are used again once the kernel has their bytes, and produced a piece per turn
 * of the event loop.
 *
 * One piece per turn: the list used to be an async generator piped to the socket. When the
 * socket took each write at once (a client on the same host reading as fast as it can), the next
 * piece was made in the same turn, through promises alone, so an answer of 3 MB was made in one
 * stretch: in `bench users10k` (ten clients reading 10,000 users) a CPU profile showed the loop
 * held for 0.5-0.9 s at a time, every other request waited, and the event-loop-delay limit
 * (loadShedding.ts) refused 12,000-23,000 requests with 503 in five seconds, whose garbage was most
 * of the server's RSS growth (+17 to +75 MB). Now `_read` starts each fill with setImmediate.
 *
 * Buffers used again: built as strings (pieces concatenated from each record's JSON, then encoded
 * by the socket write), every byte of a long answer was allocated two or three times and held as
 * long as the client took to read it. Here each record's JSON is a short-lived string copied into
 * a buffer at once, and a buffer is written again only when the bytes before it have left the
 * process, so a slow client holds a few buffers, not the answer.
 *
 * When a buffer is free: the stream knows how many bytes it has pushed; those still in its own
 * queue (`readableLength`) and those the response has not handed to the kernel (`writableLength`:
 * the response's queue and its socket's, a write counting until its system call has finished)
 * are not. Everything before that point has been copied into the kernel. The estimate only errs
 * towards "not yet": the chunk framing and an earlier answer on the same connection count in
 * `writableLength` too, and so do writes held while the socket is corked (Node's `cork()` of a
 * response corks its socket). test/e2e/list-stream.test.ts checks it with a reader that copies
 * each piece only when it "flushes" it.
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { JsonText } from '../domain/jsonText.ts';

/** The size of one written piece, and of the buffers that carry them. */
export const PIECE_BYTES = 64 * 1024;

/** Buffers given back by finished answers, for the next long list (at most MAX_SPARE of them). */
const spare: Buffer[] = [];
const MAX_SPARE = 64;

interface Piece {
  buffer: Buffer;
  /** The stream's pushed byte count once this piece was pushed: free when that much has left. */
  end: number;
}

/** What a list stream has allocated and given back, for tests. */
export const listStreamCounters = { allocated: 0, reused: 0 };

export class ListStream extends Readable {
  private readonly inFlight: Piece[] = [];
  private current: Buffer | null = null;
  private used = 0;
  private pushed = 0;
  private pushedThisRead = false;
  private filling = false;
  private wanted = false;
  private head: string | null;
  private finished = false;

  /**
   * @param head the start of the answer already built (`{"key":[` and the first records)
   * @param first whether no record has been written yet (the next one takes no comma)
   * @param pages the rest of the records, a page at a time
   * @param response the answer this stream is piped to, whose queue tells when a buffer is free
   */
  constructor(
    head: string,
    private first: boolean,
    private readonly pages: AsyncIterator<unknown[]>,
    private readonly response: ServerResponse,
  ) {
    super();
    this.head = head;
    response.once('finish', () => this.giveBack());
  }

  override _read(): void {
    // Asked again while a page is being written (a push can make the stream ask at once):
    // remembered, and served when this fill ends, or the stream would wait for a push that never comes.
    if (this.filling) {
      this.wanted = true;
      return;
    }
    this.filling = true;
    setImmediate(this.startFill);
  }

  /**
   * One fill per turn of the event loop: the pages it takes to push one piece (two or three pages
   * of 100 users for a 64 KB piece). Started at once, the next page followed the last one in
   * the same turn whenever the socket took the bytes without waiting (a loopback client reading
   * as fast as it can): ten such answers held the event loop for 0.5-0.9 s at a time in a CPU
   * profile of `bench users10k`, every other request waited, and the event-loop-delay limit
   * (loadShedding.ts) refused them with 503 by the thousand.
   */
  private readonly startFill = (): void => {
    if (this.destroyed) {
      this.filling = false;
      return;
    }
    this.filling = true;
    this.wanted = false;
    this.pushedThisRead = false;
    this.fill().then(
      () => {
        this.filling = false;
        if (this.wanted && !this.destroyed && !this.finished) {
          this.filling = true;
          setImmediate(this.startFill);
        }
      },
      (error: unknown) => {
        this.filling = false;
        this.destroy(error as Error);
      },
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Ended: the buffers go back once the answer has finished (giveBack). Cut short: they may
    // still be queued on a socket, so they are left to the collector.
    if (!this.finished) {
      this.inFlight.length = 0;
      this.current = null;
    }
    const pages = this.pages;
    if (typeof pages.return === 'function' && !this.finished) {
      pages.return(undefined).then(
        () => callback(error),
        () => callback(error),
      );
    } else callback(error);
  }

  /** Writes records until a piece has been pushed (or the list has ended). */
  private async fill(): Promise<void> {
    if (this.head !== null) {
      this.write(this.head);
      this.head = null;
    }
    while (!this.pushedThisRead && !this.destroyed) {
      const next = await this.pages.next();
      if (this.destroyed) return;
      if (next.done) {
        this.finished = true;
        this.write(']}');
        this.pushCurrent();
        this.push(null);
        return;
      }
      for (const item of next.value) {
        const text = itemJson(item);
        this.write(this.first ? text : `,${text}`);
        this.first = false;
      }
    }
  }

  private write(text: string): void {
    if (this.current === null) this.nextBuffer();
    let room = PIECE_BYTES - this.used;
    // A UTF-16 unit never takes more than three UTF-8 bytes: only count when it may not fit.
    if (text.length * 3 > room) {
      const bytes = Buffer.byteLength(text);
      if (bytes > room) {
        this.pushCurrent();
        if (bytes > PIECE_BYTES) {
          // A record longer than a piece goes out on its own, in a buffer that is not reused.
          this.pushPiece(Buffer.from(text, 'utf8'), null);
          return;
        }
        this.nextBuffer();
        room = PIECE_BYTES;
      }
    }
    this.used += (this.current as Buffer).write(text, this.used, 'utf8');
  }

  private pushCurrent(): void {
    const buffer = this.current;
    if (buffer === null || this.used === 0) return;
    const used = this.used;
    this.current = null;
    this.used = 0;
    this.pushPiece(buffer.subarray(0, used), buffer);
  }

  private pushPiece(bytes: Buffer, reusable: Buffer | null): void {
    this.pushed += bytes.length;
    if (reusable !== null) this.inFlight.push({ buffer: reusable, end: this.pushed });
    this.pushedThisRead = true;
    this.push(bytes);
  }

  /** A buffer for the next piece: one whose bytes have all left the process, or a new one. */
  private nextBuffer(): void {
    this.used = 0;
    const response = this.response;
    if (this.inFlight.length > 0) {
      const left = this.pushed - this.readableLength - response.writableLength;
      if (this.inFlight[0].end <= left) {
        this.current = (this.inFlight.shift() as Piece).buffer;
        listStreamCounters.reused++;
        return;
      }
    }
    const kept = spare.pop();
    if (kept !== undefined) {
      this.current = kept;
      listStreamCounters.reused++;
      return;
    }
    listStreamCounters.allocated++;
    this.current = Buffer.allocUnsafeSlow(PIECE_BYTES);
  }

  /** The answer is finished: every byte has been handed to the kernel, so its buffers are free. */
  private giveBack(): void {
    for (const piece of this.inFlight) if (spare.length < MAX_SPARE) spare.push(piece.buffer);
    this.inFlight.length = 0;
    if (this.current !== null && spare.length < MAX_SPARE) spare.push(this.current);
    this.current = null;
  }
}

/** An item of a list answer as JSON: text the database already wrote (JsonText) goes in as it is. */
export function itemJson(item: unknown): string {
  return item instanceof JsonText ? item.text : JSON.stringify(item);
}
