/**
 * The reads of one turn of the event loop share one read transaction on the read-only SQLite
 * connection (Store's reader), opened by the first read and ended once the turn is over.
 *
 * Why: a statement run outside a transaction opens and ends a read transaction of its own, and in
 * WAL mode that is two `fcntl` system calls on the `-shm` file (taking and freeing this process's
 * read mark) and a fresh look at the WAL index, for every statement. Measured on this machine
 * (2026-11-24, a primary-key SELECT on the read connection, nothing else running): 6.4 µs alone,
 * 1.8 µs each when fifty share a transaction; GetWorkItem's join 8.5 against 3.8 µs. Under
 * `bench reads`, with fifty connections, a turn of the loop serves many requests.
 *
 * What it changes for readers: every read of one turn sees the same committed state (a request's
 * several statements included, which before could each see a different one). A read never sees
 * less than what this thread knows to be committed: the snapshot is ended (`refresh`) whenever a
 * transaction of this thread ends and whenever the writer thread reports (writerThread.ts), so
 * that a read made after an answer's commit is known starts a new snapshot. A change committed by
 * another process (the `waymark` CLI) shows from the next turn at the latest.
 */
import type SQLite from 'better-sqlite3';

export class TurnSnapshot {
  private open = false;
  private endQueued = false;
  private readonly begin: SQLite.Statement;
  private readonly commit: SQLite.Statement;

  constructor(private readonly connection: SQLite.Database) {
    this.begin = connection.prepare('BEGIN');
    this.commit = connection.prepare('COMMIT');
  }

  /** Before a read: opens the turn's read transaction if none is open. */
  enter(): void {
    if (this.open) return;
    this.begin.run();
    this.open = true;
    if (!this.endQueued) {
      this.endQueued = true;
      setImmediate(this.endOfTurn);
    }
  }

  /** Ends the snapshot now: the next read sees every commit made so far. */
  refresh(): void {
    if (!this.open) return;
    this.open = false;
    // A read-only transaction cannot fail to end; should the connection have ended it already (it
    // closed, or an error rolled it back), there is nothing left to end.
    if (this.connection.inTransaction) this.commit.run();
  }

  private readonly endOfTurn = (): void => {
    this.endQueued = false;
    this.refresh();
  };
}
