/** Composition root: config -> store -> engine -> api. */
import pino, { type Logger } from 'pino';
import { buildApp, type WaymarkApp } from './api/app.ts';
import type { Config } from './config.ts';
import { BusinessCalendar } from './domain/calendar.ts';
import { Engine, type BootstrapResult } from './engine/Engine.ts';
import type { ThrottleOptions } from './engine/LoginThrottle.ts';
import { Store } from './store/Store.ts';

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
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', '*.password', '*.Password', 'password', 'Password'], censor: '[redacted]' },
  });
}

export async function createWaymark(config: Config, opts: WaymarkOptions = {}): Promise<Waymark> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const store = Store.open({ sqlitePath: config.sqlitePath, synchronous: config.sqliteSynchronous });
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
  });
  const bootstrap = await engine.bootstrap(config.dataDir, config.adminPassword);
  const web = await buildApp({ engine, logger, rootAliases: config.rootAliases, allowedOrigins: config.allowedOrigins });
  engine.start();
  const waymark: Waymark = {
    config, store, engine, web, logger, bootstrap, url: '',
    async listen() {
      const address = await web.app.listen({ host: config.host, port: config.port });
      waymark.url = address.replace('[::1]', '127.0.0.1');
      return waymark.url;
    },
    async close() {
      web.drain();
      await web.app.close();
      await engine.stop();
      await store.close();
    },
  };
  return waymark;
}
