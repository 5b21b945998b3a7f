/**
 * The sender of the events the engine sends itself: timers that fire, a child instance telling
 * its parent that it ended. Its name is `<WAYMARK_DOMAIN>\system`; it holds no right.
 */
import { userKey } from '../domain/userNames.ts';
import type { Caller } from './accessPolicy.ts';
import type { EngineDeps } from './context.ts';

export function systemCaller(deps: Pick<EngineDeps, 'domain'>): Caller {
  const userName = `${deps.domain}\\system`;
  return { userName, userKey: userKey(userName), rights: new Set() };
}
