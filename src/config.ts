/**
 * Configuration from the environment. A bad value stops start-up with one line naming the variable.
 */
import path from 'node:path';
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
  /** SQLite file path (from WAYMARK_DATABASE_URL or <dataDir>/waymark.db). */
  sqlitePath: string;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  adminPassword: string | undefined;
  domain: string;
  calendar: CalendarConfig;
  rootAliases: string[];
  allowedOrigins: string[];
  logLevel: string;
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
    sqlitePath: read(env, 'WAYMARK_DATABASE_URL', path.join(dataDir, 'waymark.db'), parseDatabaseUrl),
    sqliteSynchronous: read(env, 'WAYMARK_SQLITE_SYNCHRONOUS', 'FULL' as const, parseSynchronous),
    adminPassword: readAdminPassword(env),
    domain: read(env, 'WAYMARK_DOMAIN', 'LOCAL', parseDomain),
    calendar,
    rootAliases: read(env, 'WAYMARK_ROOT_ALIASES', [], parseRootAliases),
    allowedOrigins: read(env, 'WAYMARK_ALLOWED_ORIGINS', [], parseOrigins),
    logLevel: read(env, 'WAYMARK_LOG_LEVEL', 'info', parseLogLevel),
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

function parseDatabaseUrl(s: string): string {
  if (/^postgres(ql)?:\/\//i.test(s)) throw new Error('PostgreSQL URLs are not supported by this release; give a SQLite file path.');
  if (/^sqlite:/i.test(s)) return path.resolve(s.replace(/^sqlite:(\/\/)?/i, ''));
  return s === ':memory:' ? s : path.resolve(s);
}

function parseSynchronous(s: string): 'FULL' | 'NORMAL' {
  const v = s.toUpperCase();
  if (v !== 'FULL' && v !== 'NORMAL') throw new Error(`"${s}" must be FULL or NORMAL.`);
  return v;
}

function readAdminPassword(env: Env): string | undefined {
  const pw = env.WAYMARK_ADMIN_PASSWORD;
  if (pw === undefined || pw === '') return undefined;
  if (pw.length < 8) throw new ConfigError('WAYMARK_ADMIN_PASSWORD: must be at least 8 characters long.');
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
