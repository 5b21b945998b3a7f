/**
 * Basic credentials -> Caller. Verified passwords and effective rights are cached (scrypt costs
 * about 40 ms per check); every change to users, passwords, roles or memberships bumps the
 * security epoch: cached logins are re-checked against the store (a new scrypt only when the
 * stored hash changed) at once in this process, at once on other nodes sharing a PostgreSQL
 * database (they read the epoch on every request), and within EPOCH_CHECK_MS in another process
 * on the same SQLite file (the command line).
 *
 * A cached login keeps the password that was verified, in this process's memory only (as the
 * request that presented it does; docs/security.md), and a later request is compared with it in
 * constant time. This replaced an HMAC-SHA256 of the presented password on every request (3.4 %
 * of the server's CPU in `bench reads`); a hit whose epoch is current is answered synchronously,
 * without a promise.
 */
import crypto from 'node:crypto';
import { WaymarkError } from '../domain/errors.ts';
import { DUMMY_HASH, verifyPassword } from '../domain/passwords.ts';
import { flagsToRights } from '../domain/rights.ts';
import { parseUserName, userKey } from '../domain/userNames.ts';
import { enabledRoleFlagsOfUser } from '../store/queries/roles.ts';
import { DEFINITIONS_EPOCH_KEY, noteDefinitionsEpoch } from '../store/queries/definitions.ts';
import { bumpCounter, getSetting, getTwoSettings } from '../store/queries/settings.ts';
import { findPasswordHash, findUser } from '../store/queries/users.ts';
import type { Executor } from '../store/Store.ts';
import type { Caller } from './accessPolicy.ts';
import type { EngineDeps } from './context.ts';
import { LoginThrottle, type ThrottleOptions } from './LoginThrottle.ts';

export const EPOCH_KEY = 'security_epoch';
/** How stale another process's view of users and rights may get. */
export const EPOCH_CHECK_MS = 1000;
/**
 * A cached login unused this long is forgotten; every use extends it. (A fixed lifetime made every
 * active user pay a new scrypt at the same moment: in the soak all 50 users' logins expired in the
 * 11th minute and the p99 went from ~90 ms to 426 ms.) Changes still take effect at once through
 * the security epoch.
 */
const CACHE_TTL_MS = 10 * 60 * 1000;
const MAX_CACHED = 10_000;

interface CachedLogin {
  /** The verified password, UTF-8: a request presenting the same bytes is this login. */
  password: Buffer;
  /** The stored hash the password was verified against: unchanged hash, no new scrypt. */
  hash: string;
  caller: Caller;
  epoch: number;
  expires: number;
}

export class Authenticator {
  private readonly cache = new Map<string, CachedLogin>();
  private readonly verifying = new Map<string, { password: Buffer; result: Promise<{ caller: Caller; hash: string } | null> }>();
  private epoch = -1;
  private epochCheckedAt = 0;
  /** Where nodes share the database: the epoch read that the requests of this turn wait for (see refreshEpoch). */
  private turnEpoch: Promise<void> | null = null;
  /** Reads of the stored epoch so far (tests; they show how many requests shared one). */
  epochReads = 0;
  readonly throttle: LoginThrottle;

  constructor(private readonly deps: EngineDeps, throttle: ThrottleOptions) {
    this.throttle = new LoginThrottle(throttle);
  }

  /**
   * Resolve credentials to a caller, or throw Unauthenticated / TooManyFailedLogins. A cached
   * login with a current epoch is answered synchronously (the caller, not a promise).
   */
  authenticate(rawUserName: string, password: string, address: string): Caller | Promise<Caller> {
    const parsed = parseUserName(rawUserName);
    const key = parsed ? userKey(parsed.full) : `invalid:${rawUserName.toLowerCase()}`;
    const now = this.deps.now();
    this.throttle.check(key, address, now);
    if (this.epochIsFresh(now)) {
      const hit = this.cache.get(key);
      if (hit && hit.epoch === this.epoch && hit.expires > now && samePassword(hit.password, password)) {
        hit.expires = now + CACHE_TTL_MS;
        return hit.caller;
      }
    }
    return this.authenticateAfterEpoch(parsed !== null, key, password, address);
  }

  private async authenticateAfterEpoch(wellFormed: boolean, key: string, password: string, address: string): Promise<Caller> {
    await this.refreshEpoch();
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.deps.now() && samePassword(hit.password, password)) {
      const refreshed = hit.epoch === this.epoch ? hit.caller : await this.revalidate(key, hit);
      if (refreshed) {
        hit.expires = this.deps.now() + CACHE_TTL_MS;
        return refreshed;
      }
    }
    const verified = wellFormed ? await this.verifyOnce(key, password) : await this.rejectAfterWork(password);
    if (!verified) {
      this.throttle.recordFailure(key, address, this.deps.now());
      throw unauthenticated();
    }
    this.throttle.recordSuccess(key);
    this.remember(key, { password: Buffer.from(password, 'utf8'), ...verified, epoch: this.epoch, expires: this.deps.now() + CACHE_TTL_MS });
    return verified.caller;
  }

  /** After a security change: keep a cached login if its user and stored hash are unchanged. */
  private async revalidate(key: string, hit: CachedLogin): Promise<Caller | null> {
    const db = this.deps.store.db;
    const [user, cred] = await Promise.all([findUser(db, key), findPasswordHash(db, key)]);
    if (!user || !cred || user.disabled === 1 || cred.password_hash !== hit.hash) {
      this.cache.delete(key);
      return null;
    }
    hit.caller = { userName: user.user_name, userKey: key, rights: await this.rightsOf(db, key) };
    hit.epoch = this.epoch;
    return hit.caller;
  }

  /** Called after any committed change to users, credentials, roles or memberships. */
  async securityChanged(db: Executor): Promise<void> {
    this.epoch = await bumpCounter(db, EPOCH_KEY);
    this.epochCheckedAt = this.deps.now();
  }

  /** Effective rights: the union of the rights of the enabled roles the user belongs to. */
  async rightsOf(db: Executor, key: string): Promise<Set<number>> {
    const rights = new Set<number>();
    for (const flags of await enabledRoleFlagsOfUser(db, key)) for (const r of flagsToRights(flags)) rights.add(r);
    return rights;
  }

  /**
   * Concurrent requests of one user with the same password share one scrypt (a client that opens
   * many connections at once, or all of them after the cached login was forgotten, paid one each).
   */
  private verifyOnce(key: string, password: string): Promise<{ caller: Caller; hash: string } | null> {
    const running = this.verifying.get(key);
    if (running && samePassword(running.password, password)) return running.result;
    const entry = { password: Buffer.from(password, 'utf8'), result: this.verify(key, password) };
    this.verifying.set(key, entry);
    const forget = () => {
      if (this.verifying.get(key) === entry) this.verifying.delete(key);
    };
    entry.result.then(forget, forget);
    return entry.result;
  }

  private async verify(key: string, password: string): Promise<{ caller: Caller; hash: string } | null> {
    const db = this.deps.store.db;
    const [user, cred] = await Promise.all([findUser(db, key), findPasswordHash(db, key)]);
    const ok = await verifyPassword(password, cred?.password_hash ?? DUMMY_HASH);
    if (!ok || !user || !cred || user.disabled === 1) return null;
    return { caller: { userName: user.user_name, userKey: key, rights: await this.rightsOf(db, key) }, hash: cred.password_hash };
  }

  /** Spend the same time as a real check so that unknown names cannot be told apart. */
  private async rejectAfterWork(password: string): Promise<null> {
    await verifyPassword(password, DUMMY_HASH);
    return null;
  }

  /** The epoch was read recently enough to trust (never on a database shared by nodes). */
  private epochIsFresh(now: number): boolean {
    // Nodes sharing a database re-read the epoch on every request, so that disabling a role or
    // unregistering a user on one node holds on all of them at once.
    const interval = this.deps.store.caps.sharedByNodes ? 0 : EPOCH_CHECK_MS;
    return this.epoch >= 0 && now - this.epochCheckedAt < interval;
  }

  /**
   * Where nodes share the database, the requests read in one turn of the event loop wait for one
   * read of the epoch, started once that turn has read them all (setImmediate: after the poll
   * phase in which their bytes were read). Each request still sees every change committed before
   * it arrived — the read starts after every one of them arrived — which is the guarantee that
   * a read per request gave, at one round trip per turn instead of one per request (`bench pg`:
   * docs/performance-log.md, twenty-first round). A request of a later turn never joins a read
   * already sent: the turn's read forgets itself as it starts.
   */
  private refreshEpoch(): Promise<void> {
    const now = this.deps.now();
    if (this.epochIsFresh(now)) return Promise.resolve();
    if (!this.deps.store.caps.sharedByNodes) {
      this.epochCheckedAt = now;
      return this.readEpoch();
    }
    this.turnEpoch ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.turnEpoch = null;
        this.epochCheckedAt = this.deps.now();
        this.readEpoch().then(resolve, reject);
      });
    });
    return this.turnEpoch;
  }

  private async readEpoch(): Promise<void> {
    this.epochReads++;
    const db = this.deps.store.db;
    if (!this.deps.store.caps.sharedByNodes) {
      this.epoch = Number((await getSetting(db, EPOCH_KEY)) ?? '0');
      return;
    }
    // Where nodes share the database, the definitions epoch comes with it: the turn's
    // CreateProcInst calls then start from the summaries kept under it (definitions.ts).
    const [security, definitions] = await getTwoSettings(db, EPOCH_KEY, DEFINITIONS_EPOCH_KEY);
    this.epoch = Number(security ?? '0');
    noteDefinitionsEpoch(db, Number(definitions ?? '0'));
  }

  private remember(key: string, entry: CachedLogin): void {
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(key, entry);
  }
}

/**
 * The presented password equals the verified one, compared in constant time. A different length
 * returns at once: every mismatch is followed by a scrypt check (about 40 ms), which drowns it.
 */
function samePassword(verified: Buffer, presented: string): boolean {
  const bytes = Buffer.from(presented, 'utf8');
  return bytes.length === verified.length && crypto.timingSafeEqual(bytes, verified);
}

export function unauthenticated(detail = 'Send valid credentials: Authorization: Basic base64(DOMAIN\\user:password).'): WaymarkError {
  return new WaymarkError('Unauthenticated', detail, { 'WWW-Authenticate': 'Basic realm="Waymark", charset="UTF-8"' });
}
