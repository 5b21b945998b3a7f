/**
 * Configuration from the environment. A bad value stops start-up with one line naming the variable.
 */
import path from 'node:path';
import { readTls, type TlsFiles } from './configTls.ts';
import { checkPasswordRules } from './domain/passwords.ts';
import {
  DEFAULT_CALENDAR,
  parseHolidays,
  parseTimeZone,
  parseWorkDays,
  parseWorkHours,
  type CalendarConfig,
} from './domain/calendar.ts';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** SQLite file path (from WAYMARK_DATABASE_URL or <dataDir>/waymark.db); unused with PostgreSQL. */
  sqlitePath: string;
  /** PostgreSQL URL when WAYMARK_DATABASE_URL is postgres://...; null for SQLite. */
  postgresUrl: string | null;
  /** Connections per node in the PostgreSQL pool (WAYMARK_DB_POOL_SIZE). */
  dbPoolSize: number;
  /** How long a node's claim on an event lasts before another node takes it over (WAYMARK_CLAIM_LEASE_MS). */
  claimLeaseMs: number;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** SQLite file: admit and apply events on the writer thread (WAYMARK_WRITER_THREAD, default on). */
  writerThread: boolean;
  /** On the writer thread: apply events in the group commit that admits them (WAYMARK_APPLY_IN_GROUP_COMMIT, default on). */
  applyInGroupCommit: boolean;
  adminPassword: string | undefined;
  domain: string;
  calendar: CalendarConfig;
  rootAliases: string[];
  allowedOrigins: string[];
  logLevel: string;
  /** WAYMARK_TLS_CERT / WAYMARK_TLS_KEY: serve HTTPS with these; null for plain HTTP. */
  tls: TlsFiles | null;
  /** Load shedding: WAYMARK_MAX_EVENT_LOOP_DELAY_MS, WAYMARK_MAX_PENDING_WRITES, WAYMARK_MAX_IN_FLIGHT (0 turns one off). */
  shedding: { maxEventLoopDelayMs: number; maxPendingWrites: number; maxInFlight: number };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(env.WAYMARK_DATA_DIR || 'data');
  const calendar = {
    timeZone: read(env, 'WAYMARK_TIMEZONE', DEFAULT_CALENDAR.timeZone, parseTimeZone),
    workDays: read(env, 'WAYMARK_BUSINESS_DAYS', DEFAULT_CALENDAR.workDays, parseWorkDays),
    ...read(env, 'WAYMARK_BUSINESS_HOURS', { workStart: DEFAULT_CALENDAR.workStart, workEnd: DEFAULT_CALENDAR.workEnd }, parseWorkHours),
    holidays: read(env, 'WAYMARK_HOLIDAYS', DEFAULT_CALENDAR.holidays, parseHolidays),
  };
  return {
    host: env.WAYMARK_HOST || '127.0.0.1',
    port: read(env, 'WAYMARK_PORT', 13490, parsePort),
    dataDir,
    ...read(env, 'WAYMARK_DATABASE_URL', { sqlitePath: path.join(dataDir, 'waymark.db'), postgresUrl: null }, parseDatabaseUrl),
    dbPoolSize: read(env, 'WAYMARK_DB_POOL_SIZE', 10, parsePoolSize),
    claimLeaseMs: read(env, 'WAYMARK_CLAIM_LEASE_MS', 30_000, parseLease),
    sqliteSynchronous: read(env, 'WAYMARK_SQLITE_SYNCHRONOUS', 'FULL' as const, parseSynchronous),
    writerThread: read(env, 'WAYMARK_WRITER_THREAD', true, parseOnOff),
    applyInGroupCommit: read(env, 'WAYMARK_APPLY_IN_GROUP_COMMIT', true, parseOnOff),
    adminPassword: readAdminPassword(env),
    domain: read(env, 'WAYMARK_DOMAIN', 'LOCAL', parseDomain),
    calendar,
    rootAliases: read(env, 'WAYMARK_ROOT_ALIASES', [], parseRootAliases),
    allowedOrigins: read(env, 'WAYMARK_ALLOWED_ORIGINS', [], parseOrigins),
    logLevel: read(env, 'WAYMARK_LOG_LEVEL', 'info', parseLogLevel),
    tls: readTls(env),
    shedding: {
      maxEventLoopDelayMs: read(env, 'WAYMARK_MAX_EVENT_LOOP_DELAY_MS', 50, (v) => parseLimit(v, 0, 60_000)),
      maxPendingWrites: read(env, 'WAYMARK_MAX_PENDING_WRITES', 5000, (v) => parseLimit(v, 0, 1_000_000)),
      maxInFlight: read(env, 'WAYMARK_MAX_IN_FLIGHT', 128, (v) => parseLimit(v, 0, 100_000)),
    },
  };
}

function read<T>(env: Env, name: string, fallback: T, parse: (s: string) => T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  try {
    return parse(raw.trim());
  } catch (e) {
    throw new ConfigError(`${name}: ${(e as Error).message}`);
  }
}

function parsePort(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < 0 || n > 65535) throw new Error(`"${s}" is not a TCP port (0-65535).`);
  return n;
}

function parseDatabaseUrl(s: string): { sqlitePath: string; postgresUrl: string | null } {
  if (/^postgres(ql)?:\/\//i.test(s)) {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      throw new Error('is not a valid postgres://user:password@host:port/database URL.');
    }
    // A Unix socket is named by its directory: `?host=/run/postgresql` (pg's own parameter, which
    // wins over the URL's host part) or a percent-encoded host part (`%2Frun%2Fpostgresql`).
    const host = url.hostname || url.searchParams.get('host');
    if (!host || url.pathname.length <= 1) throw new Error('needs a host (or ?host=/socket/directory) and a database name: postgres://user:password@host:port/database.');
    return { sqlitePath: '', postgresUrl: s };
  }
  if (/^sqlite:/i.test(s)) return { sqlitePath: path.resolve(s.replace(/^sqlite:(\/\/)?/i, '')), postgresUrl: null };
  return { sqlitePath: s === ':memory:' ? s : path.resolve(s), postgresUrl: null };
}

function parsePoolSize(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < 2 || n > 500) throw new Error(`"${s}" must be a whole number from 2 to 500.`);
  return n;
}

function parseLimit(s: string, min: number, max: number): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < min || n > max) throw new Error(`"${s}" must be a whole number from ${min} to ${max} (0 turns the check off).`);
  return n;
}

function parseLease(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < 500 || n > 3_600_000) throw new Error(`"${s}" must be milliseconds from 500 to 3600000.`);
  return n;
}

/** The database a config points at, for logs: never the password. */
export function describeDatabase(config: Config): string {
  if (!config.postgresUrl) return config.sqlitePath;
  const url = new URL(config.postgresUrl);
  if (url.password) url.password = '***';
  // pg also reads passwords from the query string.
  for (const key of ['password', 'sslpassword']) if (url.searchParams.has(key)) url.searchParams.set(key, '***');
  return url.toString();
}

function parseOnOff(s: string): boolean {
  const v = s.toLowerCase();
  if (v !== 'on' && v !== 'off') throw new Error(`"${s}" must be on or off.`);
  return v === 'on';
}

function parseSynchronous(s: string): 'FULL' | 'NORMAL' {
  const v = s.toUpperCase();
  if (v !== 'FULL' && v !== 'NORMAL') throw new Error(`"${s}" must be FULL or NORMAL.`);
  return v;
}

function readAdminPassword(env: Env): string | undefined {
  const pw = env.WAYMARK_ADMIN_PASSWORD;
  if (pw === undefined || pw === '') return undefined;
  const problem = checkPasswordRules(pw, 'admin');
  if (problem) throw new ConfigError(`WAYMARK_ADMIN_PASSWORD: ${problem}`);
  return pw;
}

function parseDomain(s: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(s)) throw new Error(`"${s}" is not a domain name (letters, digits, . _ -).`);
  return s;
}

function parseRootAliases(s: string): string[] {
  return s.split(',').map((a) => a.trim()).filter((a) => a !== '').map((a) => {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(a)) throw new Error(`"${a}" is not a path segment (letters, digits, _ -).`);
    return a;
  });
}

function parseOrigins(s: string): string[] {
  return s.split(',').map((o) => o.trim()).filter((o) => o !== '').map((o) => {
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw new Error(`"${o}" is not an origin such as https://app.example.com.`);
    }
    if (url.origin !== o.replace(/\/$/, '')) throw new Error(`"${o}" is not an origin (scheme://host[:port], no path).`);
    return url.origin;
  });
}

function parseLogLevel(s: string): string {
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(s.toLowerCase())) throw new Error(`"${s}" must be one of ${levels.join(', ')}.`);
  return s.toLowerCase();
}
