/**
 * The write lock of one SQLite file shared by two threads of one process: the request thread
 * (side 1) and the dispatcher's thread (side 2), each with a connection of its own.
 *
 * SQLite lets one connection write at a time; a second one that tries waits in SQLite's busy
 * handler, which sleeps the whole thread in steps of up to 100 ms (on the request thread, every
 * request would stop meanwhile), and a transaction that read before it writes can fail outright
 * (SQLITE_BUSY_SNAPSHOT) when the other connection committed in between. So every write
 * transaction first takes this lock, waiting without blocking its thread (Atomics.waitAsync), and
 * holds it until its COMMIT or ROLLBACK is done: SQLite's own lock is then always free when a
 * transaction begins, and the snapshot a transaction reads is the last one committed.
 *
 * When the other side is waiting, a release hands the lock straight to it: the two sides alternate
 * instead of the dispatcher, which asks again right after each batch, starving the group commit.
 * Within one thread, callers queue in order.
 */

/** Cell 0: the holder's side (0: free). Cell 1 + side: 1 while that side waits. */
const HOLDER = 0;
const CELLS = 4;

export type LockSide = 1 | 2;

/**
 * A waiter looks again after this long even without a wake-up. A pending Atomics.waitAsync does
 * not keep Node's event loop alive (a thread with nothing else to do would end while waiting); the
 * timer does, and bounds the cost of any wake-up that goes astray.
 */
const RECHECK_MS = 50;

function untilWokenOr(woken: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([woken, timeout]).finally(() => clearTimeout(timer));
}

export class ThreadWriteLock {
  private readonly cells: Int32Array;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    buffer: SharedArrayBuffer,
    private readonly side: LockSide,
  ) {
    this.cells = new Int32Array(buffer, 0, CELLS);
  }

  /** The memory both sides share: pass it to the other thread (workerData). */
  static newBuffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT);
  }

  /** Run `fn` holding the lock (after this thread's earlier callers). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const before = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((resolve) => (done = resolve));
    try {
      await before;
      await this.acquire();
      try {
        return await fn();
      } finally {
        this.release();
      }
    } finally {
      done();
    }
  }

  /**
   * The other side's thread ended without releasing (it crashed inside a transaction; SQLite
   * rolled that transaction back when its connection closed): free the lock it held.
   */
  freeIfHeldBy(side: LockSide): void {
    Atomics.store(this.cells, 1 + side, 0);
    if (Atomics.compareExchange(this.cells, HOLDER, side, 0) === side) Atomics.notify(this.cells, HOLDER);
  }

  private async acquire(): Promise<void> {
    const c = this.cells;
    const me = this.side;
    for (;;) {
      if (Atomics.compareExchange(c, HOLDER, 0, me) === 0) break;
      Atomics.store(c, 1 + me, 1);
      const holder = Atomics.load(c, HOLDER);
      if (holder === me) break; // handed over
      if (holder === 0) continue; // released without a hand-over before it saw us waiting
      const waited = Atomics.waitAsync(c, HOLDER, holder);
      if (waited.async) await untilWokenOr(waited.value, RECHECK_MS);
      if (Atomics.load(c, HOLDER) === me) break;
    }
    Atomics.store(c, 1 + me, 0);
  }

  private release(): void {
    const c = this.cells;
    const me = this.side;
    const other = 3 - me;
    if (Atomics.load(c, 1 + other) === 1 && Atomics.compareExchange(c, HOLDER, me, other) === me) {
      Atomics.notify(c, HOLDER);
      return;
    }
    Atomics.store(c, HOLDER, 0);
    // Read after the store: either the other side then sees the lock free, or this sees it
    // waiting and wakes it. Waking costs tens of microseconds here; most releases have no waiter.
    if (Atomics.load(c, 1 + other) === 1) Atomics.notify(c, HOLDER);
  }
}
