/**
 * Failed-login throttling per user name and per client address, in a sliding window.
 * Past the limit every attempt (right password or not) answers 429 with Retry-After until the
 * oldest counted failure leaves the window. Kept in memory per node.
 */
import { WaymarkError } from '../domain/errors.ts';

export interface ThrottleOptions {
  /** Failures per user name within the window before 429. */
  maxPerUser: number;
  /** Failures per address within the window before 429. */
  maxPerAddress: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { maxPerUser: 10, maxPerAddress: 50, windowMs: 5 * 60 * 1000 };
const MAX_TRACKED = 100_000;

export class LoginThrottle {
  private readonly byUser = new Map<string, number[]>();
  private readonly byAddress = new Map<string, number[]>();

  constructor(private readonly opts: ThrottleOptions) {}

  check(userKey: string, address: string, now: number): void {
    const wait = Math.max(
      this.waitMs(this.byUser, userKey, this.opts.maxPerUser, now),
      this.waitMs(this.byAddress, address, this.opts.maxPerAddress, now),
    );
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new WaymarkError('TooManyFailedLogins', `Too many failed logins; try again in ${seconds} seconds.`, {
        'Retry-After': String(seconds),
      });
    }
  }

  recordFailure(userKey: string, address: string, now: number): void {
    push(this.byUser, userKey, now);
    push(this.byAddress, address, now);
  }

  recordSuccess(userKey: string): void {
    this.byUser.delete(userKey);
  }

  private waitMs(map: Map<string, number[]>, key: string, max: number, now: number): number {
    const times = map.get(key);
    if (!times) return 0;
    while (times.length > 0 && times[0] <= now - this.opts.windowMs) times.shift();
    if (times.length === 0) map.delete(key);
    if (times.length < max) return 0;
    return times[times.length - max] + this.opts.windowMs - now;
  }
}

function push(map: Map<string, number[]>, key: string, now: number): void {
  if (map.size >= MAX_TRACKED && !map.has(key)) map.delete(map.keys().next().value as string);
  const times = map.get(key) ?? [];
  times.push(now);
  if (times.length > 1000) times.splice(0, times.length - 1000);
  map.set(key, times);
}
