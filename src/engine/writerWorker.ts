/**
 * The writer thread (see writerThread.ts): opens the SQLite file with connections of its own,
 * holding side 2 of the write lock, runs the commands the request thread sends by name, and the
 * same Dispatcher the request thread would run, with engine parts built from the same configuration.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BusinessCalendar } from '../domain/calendar.ts';
import { createLogger } from '../logger.ts';
import type { EventRow } from '../store/queries/events.ts';
import { Store } from '../store/Store.ts';
import { runCommand, type CommandName } from './commandRegistry.ts';
import type { EngineDeps } from './context.ts';
import { Dispatcher } from './Dispatcher.ts';
import { outsideRequest } from './requestContext.ts';
import { FinalRows } from './finalRows.ts';
import { Outbox, toWireError, type FromWriter, type ToWriter, type WriterThreadData } from './writerThread.ts';
import { ModelCache } from './ModelCache.ts';
import { decodeRights } from './rightsWire.ts';

if (!parentPort) throw new Error('writerWorker.ts runs as a worker thread (writerThread.ts starts it).');
const port = parentPort;
const data = workerData as WriterThreadData;
const outbox = new Outbox<FromWriter>((messages) => port.postMessage(messages));
const post = (m: FromWriter): void => outbox.post(m);

const logger = createLogger(data.logLevel, { write: (line: string) => post({ type: 'log', line }) });
const store = Store.open({
  sqlitePath: data.sqlitePath,
  synchronous: data.synchronous,
  writeLock: { buffer: data.lockBuffer, side: 2 },
  maxPendingWrites: data.maxPendingWrites,
  logger,
});
const deps: EngineDeps = {
  store,
  now: Date.now,
  calendar: new BusinessCalendar(data.calendar),
  timeZone: data.calendar.timeZone,
  domain: data.domain,
  logger,
  models: new ModelCache(),
};
const finals = new FinalRows();
const dispatcher = new Dispatcher(
  deps,
  {
    notify(ids: Iterable<string>, rows?: ReadonlyMap<string, EventRow>) {
      const list = [...ids];
      if (list.length > 0) post({ type: 'final', ids: list, rows: finals.finalized(list, rows) });
    },
  },
  data.claimLeaseMs,
);
// Events admitted by a group commit are applied in its own transaction (Dispatcher.inlineTail).
if (data.applyInGroupCommit) store.setGroupCommitTail(dispatcher.inlineTail());

/**
 * Without applyInGroupCommit (where a group commit applies what it admits and wakes the dispatcher
 * itself when it leaves something), wake the dispatcher once the answers of this turn are sent: it
 * would otherwise start its batch
 * at once, in the same turn, and the answers — sent together at the end of the turn (Outbox) —
 * would wait for the whole batch (on the request thread, the answer is written before the batch
 * runs). Scheduled outside the request, whose id the dispatcher's log lines must not carry.
 */
let wakeQueued = false;
function wakeAfterAnswers(): void {
  if (wakeQueued) return;
  wakeQueued = true;
  outsideRequest(() =>
    setImmediate(() => {
      wakeQueued = false;
      dispatcher.wake();
    }),
  );
}

/**
 * A command runs without a request scope (requestContext): the commands log nothing of their own
 * (a failure goes back to the request thread, which logs it with the request's id), and a scope
 * entered here was inherited by everything the command started — the group commit it joined and
 * the events that commit applies, whose log lines then carried the id of whichever request came
 * first (test/e2e/writer-thread.test.ts). It also kept async_hooks' promise hooks on for every
 * promise of this thread (~3 % of its CPU in `bench e2e`).
 */
function command(m: Extract<ToWriter, { type: 'command' }>): void {
  const caller = { userName: m.caller.userName, userKey: m.caller.userKey, rights: decodeRights(m.caller.rights) };
  runCommand(m.name as CommandName, deps, caller, m.args as never).then(
    (value) => {
      post({ type: 'result', id: m.id, ok: true, value: m.wait && value ? finals.answer(value) : value });
      if (value && !data.applyInGroupCommit) wakeAfterAnswers();
    },
    (e: unknown) => post({ type: 'result', id: m.id, ok: false, error: toWireError(e) }),
  );
}

function receive(m: ToWriter): void {
  switch (m.type) {
    case 'command':
      command(m);
      break;
    case 'wake':
      dispatcher.wake();
      break;
    case 'dispatcher': {
      const done = () => post({ type: 'done', id: m.id });
      const op = m.op === 'start' ? dispatcher.start() : m.op === 'stop' ? dispatcher.stop() : dispatcher.idle();
      void op.then(done, (e: unknown) => {
        logger.error({ err: e }, `dispatcher ${m.op} failed`);
        done();
      });
      break;
    }
    case 'close':
      void dispatcher
        .stop()
        .then(() => store.close())
        .finally(() => {
          outbox.flush();
          port.close();
        });
      break;
  }
}

port.on('message', (messages: ToWriter[]) => {
  for (const m of messages) receive(m);
});

await dispatcher.start();
post({ type: 'ready', nodeId: dispatcher.nodeId });
