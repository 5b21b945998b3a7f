import type { Logger } from 'pino';
import type { BusinessCalendar } from '../domain/calendar.ts';
import type { Store } from '../store/Store.ts';
import type { ModelCache } from './ModelCache.ts';

/** What every engine part needs. Built once in Engine; passed, never global. */
export interface EngineDeps {
  store: Store;
  now: () => number;
  calendar: BusinessCalendar;
  timeZone: string;
  /** Domain of built-in accounts (WAYMARK_DOMAIN). */
  domain: string;
  logger: Logger;
  models: ModelCache;
}
