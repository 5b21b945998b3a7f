/**
 * The load generator, run as its own child process (forked by load.ts) so that it never shares an
 * event loop with the server or with the benchmark driver. It runs one spec at a time:
 *
 * - `autocannon`: closed loop, N connections, as fast as the server answers (throughput figures).
 * - `paced`: open loop at a fixed rate, evenly spaced (1 ms ticks), over raw keep-alive sockets;
 *   latency is measured from the moment a request was due, so queueing in the client or the server
 *   is counted (no coordinated omission). Microsecond resolution. Used for latency at a given rate.
 *
 * Request templates may hold `{feed:NAME}` placeholders, replaced per request by the next id of
 * that feed (`seq`: each id once, in order; `cycle`: round robin).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Feed, LoadResult, LoadSpec, ReqTemplate } from './load.ts';

const FEED_RE = /\{feed:([A-Za-z0-9_]+)\}/g;

class Feeds {
  private readonly state = new Map<string, { feed: Feed; pos: number }>();
  exhausted = new Set<string>();
  constructor(feeds: Record<string, Feed> = {}) {
    for (const [name, feed] of Object.entries(feeds)) this.state.set(name, { feed, pos: 0 });
  }
  next(name: string): string {
    const s = this.state.get(name);
    if (!s || s.feed.ids.length === 0) throw new Error(`no feed ${name}`);
    if (s.pos >= s.feed.ids.length) {
      if (s.feed.mode === 'seq') this.exhausted.add(name);
      s.pos = 0;
    }
    return s.feed.ids[s.pos++];
  }
  used(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, s] of this.state) out[name] = this.exhausted.has(name) ? s.feed.ids.length : s.pos;
    return out;
  }
}

type Take = (feed: string) => string;

function compile(template: string): (take: Take) => string {
  const parts: (string | { feed: string })[] = [];
  let last = 0;
  for (const m of template.matchAll(FEED_RE)) {
    parts.push(template.slice(last, m.index), { feed: m[1] });
    last = m.index! + m[0].length;
  }
  parts.push(template.slice(last));
  return (take) => {
    let s = '';
    for (const p of parts) s += typeof p === 'string' ? p : take(p.feed);
    return s;
  };
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

function headersOf(spec: LoadSpec, t: ReqTemplate): Record<string, string> {
  const h: Record<string, string> = {};
  if (spec.auth) h.authorization = basic(spec.auth[0], spec.auth[1]);
  if (t.body !== undefined) h['content-type'] = 'application/json';
  return { ...h, ...t.headers };
}

/** Per request: a function giving path and body with the feed placeholders filled in. */
function builder(t: ReqTemplate, feeds: Feeds): () => { path: string; body?: string } {
  const path = compile(t.path);
  const body = t.body !== undefined ? compile(t.body) : null;
  return () => {
    const picked = new Map<string, string>();
    const take: Take = (name) => {
      let id = picked.get(name);
      if (id === undefined) picked.set(name, (id = feeds.next(name)));
      return id;
    };
    return { path: path(take), body: body ? body(take) : undefined };
  };
}

function text(body: unknown): string {
  return typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : '';
}

function parse(body: unknown): any {
  try {
    return JSON.parse(text(body));
  } catch {
    return undefined;
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summarize(latencies: number[]) {
  const s = Float64Array.from(latencies).sort();
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s.length ? s[s.length - 1] : NaN };
}

async function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const feeds = new Feeds(spec.feeds);
  const counters: Record<string, number> = {};
  const chainMs: number[] = [];
  const count = (k: string) => {
    counters[k] = (counters[k] ?? 0) + 1;
  };
  let requests: any[];
  if (spec.flow === 'e2e') requests = e2eFlow(spec, count, chainMs);
  else {
    requests = spec.requests.map((t) => {
      const base = { method: t.method, headers: headersOf(spec, t) };
      if (!/\{feed:/.test(t.path + (t.body ?? ''))) return { ...base, path: t.path, body: t.body };
      const build = builder(t, feeds);
      return {
        ...base,
        path: t.path,
        setupRequest: (req: any) => {
          const b = build();
          req.path = b.path;
          if (b.body !== undefined) req.body = b.body;
          return req;
        },
      };
    });
  }
  // Several URLs: autocannon gives connection i the URL i % n, each with its own Host header.
  const several = spec.urls && spec.urls.length > 1;
  const t0 = Date.now();
  const r: any = await autocannon({
    url: several ? spec.urls! : (spec.urls?.[0] ?? spec.url),
    connections: spec.connections,
    duration: spec.duration,
    timeout: spec.timeoutSec ?? 30,
    requests,
    ...(several ? {} : { headers: { host: new URL(spec.urls?.[0] ?? spec.url).host } }),
    ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
  });
  const seconds = (Date.now() - t0) / 1000;
  return {
    kind: 'autocannon',
    seconds,
    total: r.requests.total,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    rate: r['2xx'] / seconds,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]: [string, any]) => [k, v.count])),
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, mean: r.latency.mean },
    counters,
    chainMs: chainMs.length ? summarize(chainMs) : undefined,
    feedUsed: feeds.used(),
    feedExhausted: [...feeds.exhausted],
  };
}

/**
 * CreateProcInst -> GetWorkListByUserID -> AssignWorkItem -> CompleteWorkItem, each state change
 * with `Prefer: wait` so that the next step sees it applied. Each chain runs as one of the bench
 * users (round robin); the model's pool is the initiator, so the chain's user claims its own task.
 */
function e2eFlow(spec: LoadSpec, count: (k: string) => void, chainMs: number[]): any[] {
  const o = spec.flowOptions!;
  let next = 0;
  const wait = { prefer: 'wait=10' };
  const post = (path: string, body: string, extra: Record<string, string> = {}) => ({
    method: 'POST',
    path,
    body,
    headers: { 'content-type': 'application/json', ...extra },
  });
  return [
    {
      ...post('/EngineServer/Workflow/CreateProcInst', JSON.stringify({ ProcessID: o.defId }), wait),
      setupRequest: (req: any, ctx: any) => {
        const user = o.users[next++ % o.users.length];
        ctx.auth = basic(user, o.password);
        ctx.t0 = performance.now();
        req.headers = { ...req.headers, authorization: ctx.auth };
        return req;
      },
      onResponse: (status: number, body: unknown, ctx: any) => {
        const e = status === 200 ? parse(body) : undefined;
        if (e?.Status === 'Processed') ctx.pi = e.ProcInstID;
        else count(`create_${status}_${e?.Status ?? ''}`);
      },
    },
    {
      ...post('/EngineServer/Workflow/GetWorkListByUserID', '{"Status":"New"}'),
      setupRequest: (req: any, ctx: any) => {
        if (!ctx.pi) return null;
        req.headers = { ...req.headers, authorization: ctx.auth };
        return req;
      },
      onResponse: (status: number, body: unknown, ctx: any) => {
        const list = status === 200 ? parse(body) : undefined;
        const item = Array.isArray(list) ? list.find((w: any) => w.ProcInstID === ctx.pi) : undefined;
        if (item) ctx.wi = item.WorkItemID;
        else count(`worklist_${status}_missing`);
      },
    },
    {
      ...post('/EngineServer/Workflow/AssignWorkItem/X', '{}', wait),
      setupRequest: (req: any, ctx: any) => {
        if (!ctx.wi) return null;
        req.path = `/EngineServer/Workflow/AssignWorkItem/${ctx.wi}`;
        req.headers = { ...req.headers, authorization: ctx.auth };
        return req;
      },
      onResponse: (status: number, body: unknown, ctx: any) => {
        const e = status === 200 ? parse(body) : undefined;
        if (e?.Status === 'Processed') ctx.assigned = true;
        else count(`assign_${status}_${e?.Status ?? ''}`);
      },
    },
    {
      ...post('/EngineServer/Workflow/CompleteWorkItem/X', '{}', wait),
      setupRequest: (req: any, ctx: any) => {
        if (!ctx.assigned) return null;
        req.path = `/EngineServer/Workflow/CompleteWorkItem/${ctx.wi}`;
        req.headers = { ...req.headers, authorization: ctx.auth };
        return req;
      },
      onResponse: (status: number, body: unknown, ctx: any) => {
        const e = status === 200 ? parse(body) : undefined;
        if (e?.Status === 'Processed') {
          count('completed');
          chainMs.push(performance.now() - ctx.t0);
        } else count(`complete_${status}_${e?.Status ?? ''}`);
      },
    },
  ];
}

/** One keep-alive HTTP/1.1 connection that runs one request at a time and parses just enough. */
class RawConnection {
  private buf = Buffer.alloc(0);
  private done: ((status: number) => void) | null = null;
  private failed: ((e: Error) => void) | null = null;
  busy = false;

  private constructor(private readonly sock: net.Socket) {
    sock.setNoDelay(true);
    sock.on('data', (d) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      this.tryComplete();
    });
    sock.on('error', (e) => this.fail(e));
    sock.on('close', () => this.fail(new Error('connection closed')));
  }

  static open(host: string, port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port }, () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  send(request: Buffer): Promise<number> {
    this.busy = true;
    return new Promise((resolve, reject) => {
      this.done = resolve;
      this.failed = reject;
      this.sock.write(request);
    });
  }

  close(): void {
    this.sock.destroy();
  }

  private fail(e: Error): void {
    const f = this.failed;
    this.done = this.failed = null;
    this.busy = false;
    f?.(e);
  }

  private tryComplete(): void {
    const b = this.buf;
    const he = b.indexOf('\r\n\r\n');
    if (he < 0) return;
    const head = b.toString('latin1', 0, he);
    const status = Number(head.slice(9, 12));
    const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let end = -1;
    if (cl) {
      const need = he + 4 + Number(cl[1]);
      if (b.length >= need) end = need;
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      let p = he + 4;
      for (;;) {
        const le = b.indexOf('\r\n', p);
        if (le < 0) return;
        const size = parseInt(b.toString('latin1', p, le), 16);
        if (size === 0) {
          if (b.length >= le + 4) end = le + 4;
          break;
        }
        p = le + 2 + size + 2;
        if (p > b.length) return;
      }
    } else end = he + 4;
    if (end < 0) return;
    this.buf = b.subarray(end);
    const d = this.done;
    this.done = this.failed = null;
    this.busy = false;
    d?.(status);
  }
}

async function runPaced(spec: LoadSpec): Promise<LoadResult> {
  const rate = spec.rate!;
  const targets = (spec.urls?.length ? spec.urls : [spec.url]).map((x) => new URL(x));
  const feeds = new Feeds(spec.feeds);
  const templates = spec.requests.map((t) => ({ t, build: builder(t, feeds), headers: headersOf(spec, t) }));
  // Connection i goes to target i % n (several servers on one database).
  const conns = await Promise.all(
    Array.from({ length: spec.connections }, async (_, i) => {
      const u = targets[i % targets.length];
      return { conn: await RawConnection.open(u.hostname, Number(u.port)), host: u.host };
    }),
  );
  const idle = [...conns];
  // The requests due but not sent yet are those numbered sent .. issued - 1 (request i is due at
  // t0 + i / rate): two counters, not a queue of objects. A queue drained with Array#shift cost
  // time in proportion to its length, so past the server's capacity the client slowed itself down:
  // offered 144,605/s (3 × a read maximum of 48,202/s, thirty-eighth round), it sent 9,868/s and
  // the server never saw an overload.
  let sent = 0;
  const latencies: number[] = [];
  // Diagnostic (WAYMARK_BENCH_PACED_TRACE=DIR): each answer's due time and latency, to a file per run.
  const traceDir = process.env.WAYMARK_BENCH_PACED_TRACE;
  const trace: string[] = [];
  const statusCodes: Record<string, number> = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let issued = 0;
  let outstanding = 0;
  const makeRequest = (i: number, host: string): Buffer => {
    const { t, build, headers } = templates[i % templates.length];
    const { path, body } = build();
    let head = `${t.method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    const b = body !== undefined ? Buffer.from(body) : null;
    head += `content-length: ${b ? b.length : 0}\r\n\r\n`;
    return b ? Buffer.concat([Buffer.from(head, 'latin1'), b]) : Buffer.from(head, 'latin1');
  };
  const pump = () => {
    while (sent < issued && idle.length > 0) {
      const i = sent++;
      const due = t0 + (i * 1000) / rate;
      const { conn, host } = idle.pop()!;
      outstanding++;
      // Built when sent, with the Host of the connection's server (requests are sent in due order).
      conn.send(makeRequest(i, host)).then(
        (status) => {
          const ms = performance.now() - due;
          latencies.push(ms);
          if (traceDir) trace.push(`${(performance.timeOrigin + due).toFixed(3)} ${ms.toFixed(3)}`);
          statusCodes[status] = (statusCodes[status] ?? 0) + 1;
          if (status >= 200 && status < 300) ok++;
          else non2xx++;
          outstanding--;
          idle.push({ conn, host });
          pump();
        },
        () => {
          errors++;
          outstanding--;
          pump();
        },
      );
    }
  };
  const t0 = performance.now();
  const end = t0 + spec.duration * 1000;
  // Requests 0 .. total - 1 fall due in the window. At `now`, those numbered up to
  // floor((now - t0) * rate) are due, that one included: counting them as floor(...) without the
  // + 1, as this did until the thirty-ninth round, sent each request one interval after it was
  // due and counted that interval as latency (3.3 ms of every answer at 300/s; 0.05-0.34 ms at the
  // 2,900-22,000/s of `latency`; bare Fastify answered in 4.05 ms at p50, 0.77 ms with this count).
  const total = Math.floor(spec.duration * rate);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const dueCount = Math.min(total, Math.floor(((now - t0) * rate) / 1000) + 1);
      if (dueCount > issued) issued = dueCount;
      pump();
      if (now < end) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  // Requests still queued in the client when the window closes are dropped (the server could not
  // keep up with the offered rate); those in flight are waited for.
  const dropped = issued - sent;
  sent = issued;
  const drainUntil = performance.now() + (spec.timeoutSec ?? 10) * 1000;
  while (outstanding > 0 && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - t0) / 1000;
  for (const c of conns) c.conn.close();
  if (traceDir) fs.writeFileSync(path.join(traceDir, `paced-${Math.round(performance.timeOrigin + t0)}-${rate}.txt`), `${trace.join('\n')}\n`);
  const lat = summarize(latencies);
  return {
    kind: 'paced',
    seconds,
    total: latencies.length + errors,
    ok,
    non2xx,
    errors,
    timeouts: outstanding,
    dropped,
    startedAtMs: performance.timeOrigin + t0,
    due: issued,
    rate: ok / spec.duration,
    offeredRate: rate,
    statusCodes,
    latencyMs: { p50: lat.p50, p90: lat.p90, p99: lat.p99, max: lat.max, mean: latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1) },
    counters: {},
    feedUsed: feeds.used(),
    feedExhausted: [...feeds.exhausted],
  };
}

process.on('message', async (msg: { id: number; spec: LoadSpec }) => {
  try {
    const result = msg.spec.kind === 'paced' ? await runPaced(msg.spec) : await runAutocannon(msg.spec);
    process.send!({ id: msg.id, ok: true, result });
  } catch (e) {
    process.send!({ id: msg.id, ok: false, error: (e as Error).stack ?? String(e) });
  }
});
process.send!({ ready: true });
