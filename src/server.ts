/** Composition root: config -> store -> engine -> api. */
import type { Logger } from 'pino';
import { buildApp, type WaymarkApp } from './api/app.ts';
import type { Config } from './config.ts';
import { BusinessCalendar } from './domain/calendar.ts';
import { Engine, type BootstrapResult } from './engine/Engine.ts';
import { createLogger } from './logger.ts';
import type { ThrottleOptions } from './engine/LoginThrottle.ts';
import { Store } from './store/Store.ts';
import { claimServerLock } from './store/serverLock.ts';
import { ThreadWriteLock } from './store/threadWriteLock.ts';

export { createLogger };

export interface Waymark {
  config: Config;
  store: Store;
  engine: Engine;
  web: WaymarkApp;
  logger: Logger;
  bootstrap: BootstrapResult;
  /** The address it listens on (after listen()). */
  url: string;
  listen(): Promise<string>;
  /** Graceful stop: refuse new requests, finish those in flight and the event being applied, close. */
  close(): Promise<void>;
}

export interface WaymarkOptions {
  logger?: Logger;
  now?: () => number;
  throttle?: ThrottleOptions;
  /** Apply events in this process (false for one-shot CLI commands). Default true. */
  dispatch?: boolean;
}

export async function createWaymark(config: Config, opts: WaymarkOptions = {}): Promise<Waymark> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  // On an SQLite file, the commands that admit events and the dispatcher run on a thread of their
  // own (engine/writerThread.ts), with connections of their own and a write lock shared with this
  // thread. Not with an injected clock (tests that move time): the other thread could not share it.
  const threaded = config.writerThread && !config.postgresUrl && config.sqlitePath !== ':memory:' && opts.dispatch !== false && !opts.now;
  const writeLock = threaded ? { buffer: ThreadWriteLock.newBuffer(), side: 1 as const } : undefined;
  const store = Store.open({
    sqlitePath: config.sqlitePath,
    synchronous: config.sqliteSynchronous,
    postgresUrl: config.postgresUrl,
    poolSize: config.dbPoolSize,
    maxPendingWrites: config.shedding.maxPendingWrites,
    logger,
    writeLock,
  });
  try {
    await store.migrate();
  } catch (e) {
    await store.close();
    throw e;
  }
  const engine = new Engine({
    store,
    logger,
    calendar: new BusinessCalendar(config.calendar),
    timeZone: config.calendar.timeZone,
    domain: config.domain,
    now: opts.now,
    throttle: opts.throttle,
    claimLeaseMs: config.claimLeaseMs,
    applyInGroupCommit: config.applyInGroupCommit,
    writerThread: writeLock && {
      sqlitePath: config.sqlitePath,
      synchronous: config.sqliteSynchronous,
      lockBuffer: writeLock.buffer,
      calendar: config.calendar,
      domain: config.domain,
      claimLeaseMs: config.claimLeaseMs,
      maxPendingWrites: config.shedding.maxPendingWrites,
      applyInGroupCommit: config.applyInGroupCommit,
    },
  });
  // The writer thread (if any) loads its modules meanwhile: starting it is most of a start-up.
  const starting = opts.dispatch !== false ? engine.start() : Promise.resolve();
  let bootstrap: BootstrapResult;
  let web: WaymarkApp;
  try {
    bootstrap = await engine.bootstrap(config.dataDir, config.adminPassword);
    web = await buildApp({ engine, logger, rootAliases: config.rootAliases, allowedOrigins: config.allowedOrigins, tls: config.tls, shedding: { maxEventLoopDelayMs: config.shedding.maxEventLoopDelayMs, maxInFlight: config.shedding.maxInFlight } });
    await starting;
  } catch (e) {
    await starting.catch(() => {});
    await engine.stop().catch(() => {});
    await store.close().catch(() => {});
    throw e;
  }
  let releaseLock = (): void => {};
  const waymark: Waymark = {
    config, store, engine, web, logger, bootstrap, url: '',
    async listen() {
      const address = await web.app.listen({ host: config.host, port: config.port });
      waymark.url = address.replace('[::1]', '127.0.0.1');
      // `waymark restore` refuses while this record names a live server.
      if (!config.postgresUrl && config.sqlitePath !== ':memory:') releaseLock = claimServerLock(config.sqlitePath, waymark.url);
      return waymark.url;
    },
    async close() {
      web.drain();
      await web.app.close();
      await engine.stop();
      await store.close();
      releaseLock();
    },
  };
  return waymark;
}
