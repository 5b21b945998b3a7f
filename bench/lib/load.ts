/** Parent side of the load generator: forks loadWorker.ts and sends it specs over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ADMIN, ADMIN_PASSWORD } from './util.ts';

export interface ReqTemplate {
  method: 'GET' | 'POST';
  /** May hold `{feed:NAME}`. */
  path: string;
  /** JSON text; may hold `{feed:NAME}`. Sent with Content-Type application/json. */
  body?: string;
  headers?: Record<string, string>;
}

export interface Feed {
  ids: string[];
  /** seq: each id once (wraps around and reports exhaustion); cycle: round robin. */
  mode: 'seq' | 'cycle';
}

export interface LoadSpec {
  kind: 'autocannon' | 'paced';
  url: string;
  /** Several servers (on one database): connection i goes to urls[i % urls.length]; `url` is ignored. */
  urls?: string[];
  connections: number;
  /** Seconds. */
  duration: number;
  /** paced: requests per second, evenly spaced. */
  rate?: number;
  /** autocannon: overall rate limit (bursty per second; prefer `paced` for latency). */
  overallRate?: number;
  auth?: [string, string];
  /** Cycled per connection. */
  requests: ReqTemplate[];
  feeds?: Record<string, Feed>;
  flow?: 'e2e';
  flowOptions?: { users: string[]; password: string; defId: string };
  timeoutSec?: number;
}

export interface LoadResult {
  kind: string;
  seconds: number;
  total: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** paced: requests due but never sent because the server fell behind the offered rate. */
  dropped?: number;
  /** paced: when the first request was due (epoch ms; the others follow at 1 / rate). */
  startedAtMs?: number;
  /** paced: requests that fell due in the window (sent or dropped). */
  due?: number;
  /** 2xx answers per second. */
  rate: number;
  offeredRate?: number;
  statusCodes: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  counters: Record<string, number>;
  chainMs?: { n: number; p50: number; p90: number; p99: number; max: number };
  feedUsed: Record<string, number>;
  feedExhausted: string[];
}

export class LoadGenerator {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: any) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`load generator: ${m.error}`));
    });
    child.on('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`load generator exited with ${code}`));
      this.pending.clear();
    });
  }

  static async start(): Promise<LoadGenerator> {
    const child = fork(path.join(import.meta.dirname, 'loadWorker.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`load generator exited with ${code} while starting`)));
    });
    return new LoadGenerator(child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  run(spec: Partial<LoadSpec> & Pick<LoadSpec, 'url' | 'requests'>): Promise<LoadResult> {
    const full: LoadSpec = { kind: 'autocannon', connections: 50, duration: 5, auth: [ADMIN, ADMIN_PASSWORD], ...spec };
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ id, spec: full });
    });
  }

  close(): void {
    this.child.kill();
  }
}

/** A list of ids handed out over several runs (warm-up, then measurement) without reuse. */
export class IdFeed {
  private pos = 0;
  constructor(private readonly ids: string[]) {}
  /** The ids not used yet. */
  remaining(): Feed {
    return { ids: this.ids.slice(this.pos), mode: 'seq' };
  }
  advance(used: number | undefined): void {
    this.pos = Math.min(this.ids.length, this.pos + (used ?? 0));
  }
  get left(): number {
    return this.ids.length - this.pos;
  }
}
