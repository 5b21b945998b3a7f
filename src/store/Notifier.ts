/**
 * Cross-node wake-ups: PostgreSQL LISTEN/NOTIFY, or an in-process emitter for SQLite (one node).
 * Only an optimisation: every consumer also polls, so a lost notification delays, never loses.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';

export type Listener = (payload: string) => void;

export interface Notifier {
  listen(channel: string, fn: Listener): void;
  close(): Promise<void>;
}

export class LocalNotifier implements Notifier {
  readonly emitter = new EventEmitter();
  listen(channel: string, fn: Listener): void {
    this.emitter.on(channel, fn);
  }
  emit(channel: string, payload: string): void {
    this.emitter.emit(channel, payload);
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** One dedicated connection that LISTENs; reconnects with back-off when it drops. */
export class PgNotifier implements Notifier {
  private client: pg.Client | null = null;
  private readonly listeners = new Map<string, Listener[]>();
  private closed = false;
  private retryMs = 250;

  constructor(private readonly url: string, private readonly logger: Logger | null) {}

  listen(channel: string, fn: Listener): void {
    const fresh = !this.listeners.has(channel);
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), fn]);
    if (!this.client) void this.connect();
    else if (fresh) void this.client.query(`LISTEN ${quoteIdent(channel)}`).catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url });
    this.client = client;
    client.on('notification', (n) => {
      for (const fn of this.listeners.get(n.channel) ?? []) fn(n.payload ?? '');
    });
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
      this.retryMs = 250;
    } catch (e) {
      this.logger?.warn({ err: { message: (e as Error).message } }, 'LISTEN connection failed; retrying');
      this.reconnect(client);
    }
  }

  private reconnect(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    client.removeAllListeners();
    client.end().catch(() => {});
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
    setTimeout(() => void this.connect(), wait).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad channel name ${name}`);
  return name;
}
