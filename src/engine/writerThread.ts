/**
 * The writer thread (SQLite file only): the request thread answers HTTP calls and serves reads;
 * another thread runs every command that admits an event (Assign, Complete, CreateProcInst, …)
 * and the dispatcher that applies the events, on one connection of its own — so that two cores
 * share the work instead of one doing all of it, and the writes still come from one connection.
 *
 * Why: in `bench e2e` the server's one thread was busy 100 % of the time while a third of the
 * machine's two cores stood idle, and writing — admissions, handlers, their statements and the
 * COMMITs — is most of what that thread did. A dispatcher batch of 64 events also kept every
 * request waiting until it was done (the tail of the write latencies).
 *
 * Why the commands go too, not only the dispatcher (measured, 2026-11-21): with the dispatcher
 * alone on the other thread, both connections wrote in turn, and each turn made the other's page
 * cache stale (SQLite drops a connection's cache when another one changed the file): e2e did not
 * get faster (482 and 378 against 497 and 545 instances/s, A/B in one window), for about half a
 * core more CPU.
 *
 * The request thread keeps a writing connection for the rarer writes (deployments, users and roles,
 * attributes, timers). Every write transaction on either side holds a lock the two share
 * (store/threadWriteLock.ts), so SQLite never sees two writers at once, and the dispatcher's
 * reasoning about "no other transaction writes meanwhile" (Dispatcher.recheck) holds for each batch.
 *
 * Messages: a command by name with its caller, arguments and whether its caller waits, answered
 * with the event row or the error (business errors keep their code and headers); the ids of
 * applied events, with the final rows a waiting caller needs (EventWaiters, finalRows.ts); log
 * lines, written to this thread's logger as they are.
 *
 * If the thread dies (a bug: database errors are handled inside), its transaction is rolled back
 * with its connection, the events it was applying are still Sent, the commands it was running
 * answer 500, and a new thread starts a second later.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { CalendarConfig } from '../domain/calendar.ts';
import { WaymarkError, isWaymarkError, type ErrorCode } from '../domain/errors.ts';
import { destinationOf } from '../logger.ts';
import type { EventRow } from '../store/queries/events.ts';
import type { ThreadWriteLock } from '../store/threadWriteLock.ts';
import type { Caller } from './accessPolicy.ts';
import type { CommandArgs, CommandName } from './commandRegistry.ts';
import type { EventWaiters } from './EventWaiters.ts';
import { encodeRights } from './rightsWire.ts';

/** What the writer thread needs to open the file and build its engine parts (all cloneable). */
export interface WriterThreadOptions {
  sqlitePath: string;
  synchronous: 'FULL' | 'NORMAL';
  /** The lock's shared memory (ThreadWriteLock.newBuffer()); the request thread holds side 1 of it. */
  lockBuffer: SharedArrayBuffer;
  calendar: CalendarConfig;
  domain: string;
  claimLeaseMs?: number;
  /** Writes queued for the next group commit above which new ones are refused (503); 0 = no limit. */
  maxPendingWrites: number;
  /** Apply the events a group commit admits in its own transaction (Dispatcher.inlineTail). */
  applyInGroupCommit: boolean;
}

/** workerData of the writer thread. */
export interface WriterThreadData extends WriterThreadOptions {
  logLevel: string;
}

/** An error as it crosses between the threads. */
export type WireError =
  | { waymark: true; code: ErrorCode; message: string; headers: Record<string, string> }
  | { waymark: false; name: string; message: string; code?: string; stack?: string };

/** Messages to the writer thread. `dispatcher`: start, stop or wait for its dispatcher (answered `done`). */
export type ToWriter =
  | { type: 'wake' }
  | { type: 'dispatcher'; id: number; op: 'start' | 'stop' | 'idle' }
  | { type: 'close' }
  /** wait: the caller waits for the event to be final (finalRows.ts). */
  | { type: 'command'; id: number; name: CommandName; caller: WireCaller; args: unknown[]; wait: boolean };

/** A caller as it crosses to the writer thread: its rights as text (rightsWire.ts). */
export interface WireCaller {
  userName: string;
  userKey: string;
  rights: string;
}

/** Messages from the writer thread. */
export type FromWriter =
  | { type: 'ready'; nodeId: string }
  /** rows: only those of events answered Sent to a caller that waits (finalRows.ts). */
  | { type: 'final'; ids: string[]; rows: Map<string, EventRow> | undefined }
  | { type: 'done'; id: number }
  | { type: 'result'; id: number; ok: true; value: EventRow | null }
  | { type: 'result'; id: number; ok: false; error: WireError }
  | { type: 'log'; line: string };

/**
 * Messages to the other thread, sent together once per turn of the event loop: each message wakes
 * the receiving thread and is copied on its own, and the requests of one turn (or the answers of
 * one group commit) come in dozens.
 */
export class Outbox<M> {
  private queue: M[] = [];

  constructor(private readonly send: (messages: M[]) => void) {}

  post(message: M): void {
    if (this.queue.push(message) === 1) setImmediate(() => this.flush());
  }

  flush(): void {
    if (this.queue.length === 0) return;
    const messages = this.queue;
    this.queue = [];
    this.send(messages);
  }
}

/** What the engine asks of a dispatcher, here or on another thread. */
export interface DispatcherControl {
  readonly nodeId: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  wake(): void;
  idle(): Promise<void>;
}

/** A thread that died is started again after this long. */
const RESTART_MS = 1000;
/** stop() waits this long for the current batch before ending the thread. */
const STOP_TIMEOUT_MS = 30_000;

// From the sources, the worker registers tsx's loader first (writerWorkerBoot.mjs); built into
// dist/ (scripts/build.mjs), it is plain JavaScript.
const BOOT = import.meta.url.endsWith('.ts') ? new URL('./writerWorkerBoot.mjs', import.meta.url) : new URL('./writerWorker.js', import.meta.url);

export function toWireError(e: unknown): WireError {
  if (isWaymarkError(e)) return { waymark: true, code: e.code, message: e.message, headers: e.headers };
  const err = (typeof e === 'object' && e !== null ? e : {}) as { name?: unknown; message?: unknown; code?: unknown; stack?: unknown };
  return {
    waymark: false,
    name: typeof err.name === 'string' ? err.name : 'Error',
    message: typeof err.message === 'string' ? err.message : String(e),
    code: err.code === undefined ? undefined : String(err.code),
    stack: typeof err.stack === 'string' ? err.stack : undefined,
  };
}

export function fromWireError(w: WireError): Error {
  if (w.waymark) return new WaymarkError(w.code, w.message, w.headers);
  const e = new Error(w.message) as Error & { code?: string };
  e.name = w.name;
  if (w.code !== undefined) e.code = w.code;
  if (w.stack) e.stack = w.stack;
  return e;
}

interface PendingCommand {
  resolve: (row: EventRow | null) => void;
  reject: (e: Error) => void;
}

export class WriterThread {
  /** The writer thread's dispatcher, as the engine controls it (start, stop, wake, idle). */
  readonly dispatcher: DispatcherControl;
  private worker: Worker | null = null;
  private outbox: Outbox<ToWriter> | null = null;
  private nodeId = '';
  private stopping = true;
  private nextId = 0;
  /** Dispatcher operations sent and not answered (resolved when the thread ends, too). */
  private readonly operations = new Map<number, () => void>();
  private readonly commands = new Map<number, PendingCommand>();
  private restartTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly opts: WriterThreadOptions,
    private readonly waiters: EventWaiters,
    private readonly logger: Logger,
    private readonly lock: ThreadWriteLock,
    /**
     * Called before the writer thread's messages are handled: they report commits (answers, final
     * events), which the reads that follow must see (Store.refreshReads).
     */
    private readonly beforeReports: () => void = () => {},
  ) {
    const self = this;
    this.dispatcher = {
      get nodeId() {
        return self.nodeId;
      },
      start: () => this.operate('start'),
      stop: () => this.operate('stop'),
      idle: () => this.operate('idle'),
      wake: () => this.post({ type: 'wake' }),
    };
  }

  /** Start the thread (its dispatcher starts with it). */
  async start(): Promise<void> {
    this.stopping = false;
    await this.spawn();
  }

  /** Let the current batch finish, close the thread's connections and end it. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.post({ type: 'close' });
    this.outbox?.flush();
    const timeout = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timeout);
  }

  /** Commands sent and not answered yet (the backlog load shedding watches). */
  get pending(): number {
    return this.commands.size;
  }

  /**
   * Run a command on the writer thread; answers its event, or throws its error. With `wait`, the
   * event as final when the commit that admitted it also applied it (finalRows.ts).
   */
  run<N extends CommandName>(name: N, caller: Caller, args: CommandArgs<N>, wait = false): Promise<EventRow | null> {
    if (!this.worker) {
      return Promise.reject(new WaymarkError('ServiceUnavailable', 'The engine is starting or stopping; retry in a second.', { 'Retry-After': '1' }));
    }
    const id = ++this.nextId;
    return new Promise<EventRow | null>((resolve, reject) => {
      this.commands.set(id, { resolve, reject });
      this.post({
        type: 'command',
        id,
        name,
        caller: { userName: caller.userName, userKey: caller.userKey, rights: encodeRights(caller.rights) },
        args: args as unknown[],
        wait,
      });
    });
  }

  private operate(op: 'start' | 'stop' | 'idle'): Promise<void> {
    if (!this.worker) return Promise.resolve();
    const id = ++this.nextId;
    return new Promise<void>((resolve) => {
      this.operations.set(id, resolve);
      this.post({ type: 'dispatcher', id, op });
    });
  }

  private post(message: ToWriter): void {
    this.outbox?.post(message);
  }

  private receive(m: FromWriter, out: { write(line: string): unknown }): void {
    switch (m.type) {
      case 'result': {
        const pending = this.commands.get(m.id);
        this.commands.delete(m.id);
        if (m.ok) pending?.resolve(m.value);
        else pending?.reject(fromWireError(m.error));
        break;
      }
      case 'final':
        this.waiters.notify(m.ids, m.rows);
        break;
      case 'done':
        this.operations.get(m.id)?.();
        this.operations.delete(m.id);
        break;
      case 'log':
        out.write(m.line);
        break;
      case 'ready':
        this.nodeId = m.nodeId;
        break;
    }
  }

  private spawn(): Promise<void> {
    const data: WriterThreadData = { ...this.opts, logLevel: this.logger.level };
    const worker = new Worker(BOOT, { workerData: data });
    this.worker = worker;
    this.outbox = new Outbox<ToWriter>((messages) => worker.postMessage(messages));
    const out = destinationOf(this.logger);
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (messages: FromWriter[]) => {
        this.beforeReports();
        for (const m of messages) {
          this.receive(m, out);
          if (m.type === 'ready') {
            ready = true;
            resolve();
          }
        }
      });
      worker.on('error', (e) => {
        if (!ready) reject(e);
        else this.logger.error({ err: e }, 'writer thread failed');
      });
      worker.on('exit', (code) => {
        if (this.worker === worker) {
          this.worker = null;
          this.outbox = null;
        }
        this.lock.freeIfHeldBy(2);
        for (const resolveOperation of this.operations.values()) resolveOperation();
        this.operations.clear();
        for (const pending of this.commands.values()) pending.reject(new Error(`The writer thread ended (exit code ${code}) while running this command.`));
        this.commands.clear();
        if (!ready) reject(new Error(`The writer thread ended before it started (exit code ${code}).`));
        else if (!this.stopping) this.restartLater(code);
      });
    });
  }

  private restartLater(code: number): void {
    this.logger.error({ exitCode: code, restartInMs: RESTART_MS }, 'writer thread ended; starting a new one');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this.spawn().then(
        () => this.dispatcher.wake(),
        (e) => {
          this.logger.error({ err: e }, 'writer thread could not start');
          if (!this.stopping) this.restartLater(1);
        },
      );
    }, RESTART_MS);
    this.restartTimer.unref();
  }
}
