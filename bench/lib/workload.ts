/**
 * The benchmark's data sets and operations, shared by the read, write, latency and scale
 * scenarios: what is seeded, which requests are sent, and how one operation is measured.
 */
import type { Api } from './api.ts';
import { pool } from './api.ts';
import { cannedRoute, type BareRoute } from './bare.ts';
import type { Ctx, Row } from './context.ts';
import { IdFeed, type LoadResult, type ReqTemplate } from './load.ts';
import { DbWatch, Seeder, type CopyIds } from './seed.ts';
import type { Progress } from './pg.ts';
import type { ServerHandle } from './server.ts';
import os from 'node:os';
import { cpuWindow, describeCpu, processCpuPer, processTicks, serverCpuPer, threadTicks, type CpuPerUnit } from './threadCpu.ts';
import { ADMIN, log } from './util.ts';

export const W = '/EngineServer/Workflow';
export const READ_CONNECTIONS = 50;
export const WRITE_CONNECTIONS = 50;
export const WINDOW_S = 5;
export const WARMUP_S = 1;

// ---------------------------------------------------------------- reads

export interface ReadSet {
  tenDefId: string;
  procInstIds: string[];
  activityIds: string[];
  workItemIds: string[];
  users: number;
}

/**
 * 99 more users (100 in all), the 10-activity model, and `instances` instances of it waiting at
 * their user task (10 activity instances each), all made over HTTP.
 */
export async function seedReads(api: Api, instances = 100): Promise<ReadSet> {
  await pool(Array.from({ length: 99 }, (_, i) => i + 1), 8, (i) => api.registerUser(`LOCAL\\reader${String(i).padStart(3, '0')}`));
  const tenDefId = await api.deploy('ten.bpmn');
  const procInstIds = await pool(Array.from({ length: instances }), 8, () => api.startInstance(tenDefId));
  const activityIds: string[] = [];
  for (const pi of procInstIds) {
    const r = await api.get(`${W}/GetActivityInstsByPIID/${pi}`);
    const acts = r.json.GetActivityInstsByPIIDResult as any[];
    if (acts.length !== 10) throw new Error(`expected 10 activity instances, got ${acts.length}`);
    activityIds.push(...acts.map((a) => a.ID));
  }
  const items = await api.workList('New');
  const mine = new Set(procInstIds);
  const workItemIds = items.filter((w) => mine.has(w.ProcInstID)).map((w) => w.WorkItemID);
  if (workItemIds.length !== instances) throw new Error(`expected ${instances} work items, got ${workItemIds.length}`);
  const users = (await api.get('/EngineServer/Admin/GetRegisterUsers')).json.GetRegisterUsersResult.length;
  return { tenDefId, procInstIds, activityIds, workItemIds, users };
}

export interface ReadOp {
  name: string;
  request: ReqTemplate;
  feed?: { name: string; ids: string[] };
  /** Route pattern for the bare baseline. */
  bareUrl: string;
  /** A concrete path, to capture a real answer. */
  samplePath: string;
}

export function readOps(set: ReadSet): ReadOp[] {
  const op = (name: string, feedName: string, ids: string[]): ReadOp => ({
    name,
    request: { method: 'GET', path: `${W}/${name}/{feed:${feedName}}` },
    feed: { name: feedName, ids },
    bareUrl: `${W}/${name}/:id`,
    samplePath: `${W}/${name}/${ids[0]}`,
  });
  const all: ReadOp[] = [
    op('GetActivityInst', 'act', set.activityIds),
    op('GetWorkItem', 'wi', set.workItemIds),
    op('GetActivityInstsByPIID', 'pi', set.procInstIds),
    {
      name: 'GetRegisterUsers',
      request: { method: 'GET', path: '/EngineServer/Admin/GetRegisterUsers' },
      bareUrl: '/EngineServer/Admin/GetRegisterUsers',
      samplePath: '/EngineServer/Admin/GetRegisterUsers',
    },
  ];
  // WAYMARK_BENCH_READ_OPS=GetActivityInst,GetWorkItem: only these (a profile of one op).
  const only = (process.env.WAYMARK_BENCH_READ_OPS ?? '').split(',').filter((n) => n !== '');
  return only.length === 0 ? all : all.filter((o) => only.includes(o.name));
}

/** Canned routes answering like the real server did for each op (same status, headers, bytes). */
export async function captureBareRoutes(api: Api, ops: ReadOp[]): Promise<{ routes: BareRoute[]; sizes: Record<string, number> }> {
  const routes: BareRoute[] = [];
  const sizes: Record<string, number> = {};
  for (const op of ops) {
    const real = await api.get(op.samplePath);
    if (real.status !== 200) throw new Error(`${op.samplePath}: ${real.status} ${real.text.slice(0, 200)}`);
    routes.push(cannedRoute('GET', op.bareUrl, real));
    sizes[op.name] = Buffer.byteLength(real.text);
  }
  return { routes, sizes };
}

/** CPU per answered request over a measured window, µs: the server's main thread, the whole server, the load generator. */
export interface CpuPerRequest {
  serverMain: number;
  server: number | null;
  load: number | null;
}

/**
 * Warm up, then measure one read op at full speed (closed loop). With `urls` (several servers on
 * one database) the connections alternate between them. With `serverPid`, also the CPU each
 * answer cost, read from /proc: which side of the 2 cores the gap to the baseline is on.
 */
export async function measureRead(ctx: Ctx, url: string, op: ReadOp, duration = WINDOW_S, urls?: string[], serverPid?: number, warmupS = WARMUP_S): Promise<LoadResult & { cpu?: CpuPerRequest }> {
  const load = await ctx.load();
  const feeds = op.feed ? { [op.feed.name]: { ids: op.feed.ids, mode: 'cycle' as const } } : undefined;
  if (warmupS > 0) await load.run({ url, urls, requests: [op.request], feeds, duration: warmupS, connections: READ_CONNECTIONS });
  const threads = serverPid ? threadTicks(serverPid) : null;
  const proc = serverPid ? processTicks(serverPid) : null;
  const loadBefore = processTicks(load.pid);
  const r = await load.run({ url, urls, requests: [op.request], feeds, duration, connections: READ_CONNECTIONS });
  if (r.non2xx || r.errors) log(`  ${op.name}: ${r.non2xx} non-2xx, ${r.errors} errors ${JSON.stringify(r.statusCodes)}`);
  if (!serverPid || !threads) return r;
  const answered = r.ok;
  const cpu: CpuPerRequest = {
    serverMain: serverCpuPer(serverPid, threads, threadTicks(serverPid), answered).requestThread,
    server: processCpuPer(proc, processTicks(serverPid), answered),
    load: processCpuPer(loadBefore, processTicks(load.pid), answered),
  };
  return { ...r, cpu };
}

// ---------------------------------------------------------------- writes

export interface WriteTemplates {
  simpleDefId: string;
  /** Instance of simple.bpmn whose work item is New (in the admin's pool). */
  newInstance: string;
  /** Instance of simple.bpmn whose work item is Assigned to the admin. */
  assignedInstance: string;
  /** Real events to copy as a Sent backlog: AssignWorkItem, CreateWorkItem (linked), CancelProcessInstance. */
  events: { assign: string; link: string; cancel: string };
}

/** Deploy simple.bpmn and make the two template instances over HTTP (server running). */
export async function makeWriteTemplates(api: Api): Promise<WriteTemplates> {
  const simpleDefId = await api.deploy('simple.bpmn');
  const newInstance = await api.startInstance(simpleDefId);
  const assignedInstance = await api.startInstance(simpleDefId);
  const items = await api.workList('New');
  const wi = items.find((w) => w.ProcInstID === assignedInstance);
  if (!wi) throw new Error('template work item not found');
  const assign = await api.processed(`${W}/AssignWorkItem/${wi.WorkItemID}`, {});
  // A third instance, only for its events: a linked work item, then the cancel.
  const eventsInstance = await api.startInstance(simpleDefId);
  const ewi = (await api.workList('New')).find((w) => w.ProcInstID === eventsInstance);
  if (!ewi) throw new Error('template work item not found');
  const link = await api.processed(`${W}/CreateLinkedWorkItem`, { SourceWorkItemID: ewi.WorkItemID, WorkToPerform: 'Check', UserID: ADMIN, Length: '1', Unit: 'DAY' });
  const cancel = await api.processed(`${W}/CancelProcInst/${eventsInstance}`, {});
  return { simpleDefId, newInstance, assignedInstance, events: { assign: assign.EventID, link: link.EventID, cancel: cancel.EventID } };
}

export interface WriteGroups {
  /** New items to take (AssignWorkItem, each once). */
  assign: string[];
  /** Items Assigned to the admin to release (UndoAssignWorkItem, each once). */
  undo: string[];
  /** Open items to link to (CreateLinkedWorkItem, round robin). */
  link: string[];
  /** Running instances to cancel (each once). */
  cancel: string[];
  /** Items Assigned to the admin to complete (each once). */
  complete: string[];
  seedSeconds: number;
  seedRows: number;
}

/** Copy the templates into the stopped server's database: one group of targets per write op. */
export function seedWriteGroups(dbPath: string, t: WriteTemplates, n: { assign: number; undo: number; link: number; cancel: number; complete: number }): WriteGroups {
  const seeder = new Seeder(dbPath);
  try {
    const fresh = seeder.template(t.newInstance);
    const assigned = seeder.template(t.assignedInstance);
    const wis = (c: CopyIds[]) => c.map((x) => x.workItemIds[0]);
    let seconds = 0;
    let rows = 0;
    const clone = (tpl: typeof fresh, count: number) => {
      const r = seeder.clone(tpl, count, { keepIds: true });
      seconds += r.seconds;
      rows += r.rows;
      return r.ids;
    };
    const groups: WriteGroups = {
      assign: wis(clone(fresh, n.assign)),
      undo: wis(clone(assigned, n.undo)),
      link: wis(clone(fresh, n.link)),
      cancel: clone(fresh, n.cancel).map((x) => x.procInstId),
      complete: wis(clone(assigned, n.complete)),
      seedSeconds: seconds,
      seedRows: rows,
    };
    log(`  seeded write targets: ${rows} rows in ${seconds.toFixed(1)} s (${Math.round(rows / seconds)} rows/s)`);
    return groups;
  } finally {
    seeder.close();
  }
}

export interface WriteOp {
  name: string;
  request: ReqTemplate;
  feed?: IdFeed;
  feedName?: string;
  cycle?: string[];
  /** Counted for the target (the spec's write operations) or only informational. */
  target: boolean;
}

export function writeOps(groups: WriteGroups, t: WriteTemplates): WriteOp[] {
  return [
    { name: 'AssignWorkItem', target: true, feedName: 'assign', feed: new IdFeed(groups.assign), request: { method: 'POST', path: `${W}/AssignWorkItem/{feed:assign}`, body: '{}' } },
    { name: 'UndoAssignWorkItem', target: true, feedName: 'undo', feed: new IdFeed(groups.undo), request: { method: 'POST', path: `${W}/UndoAssignWorkItem/{feed:undo}`, body: '{}' } },
    {
      name: 'CreateLinkedWorkItem',
      target: true,
      feedName: 'link',
      cycle: groups.link,
      request: {
        method: 'POST',
        path: `${W}/CreateLinkedWorkItem`,
        body: JSON.stringify({ SourceWorkItemID: '{feed:link}', WorkToPerform: 'Check the figures', UserID: ADMIN, Length: '2', Unit: 'DAY' }),
      },
    },
    { name: 'CancelProcInst', target: true, feedName: 'cancel', feed: new IdFeed(groups.cancel), request: { method: 'POST', path: `${W}/CancelProcInst/{feed:cancel}`, body: '{}' } },
    { name: 'CreateProcInst', target: false, request: { method: 'POST', path: `${W}/CreateProcInst`, body: JSON.stringify({ ProcessID: t.simpleDefId }) } },
    { name: 'CompleteWorkItem', target: false, feedName: 'complete', feed: new IdFeed(groups.complete), request: { method: 'POST', path: `${W}/CompleteWorkItem/{feed:complete}`, body: '{}' } },
  ];
}

export function feedsOf(op: WriteOp): Record<string, { ids: string[]; mode: 'seq' | 'cycle' }> | undefined {
  if (op.feed && op.feedName) return { [op.feedName]: op.feed.remaining() };
  if (op.cycle && op.feedName) return { [op.feedName]: { ids: op.cycle, mode: 'cycle' } };
  return undefined;
}

/** The dispatcher's progress, read from the database (DbWatch on SQLite, PgWatch on PostgreSQL). */
export interface ProgressWatch {
  progress(): Progress | Promise<Progress>;
  drain(): Promise<{ drained: boolean; seconds: number; events: number; rate: number; left: number }>;
}

export interface WriteMeasurement {
  accepted: LoadResult;
  /** Events the dispatcher applied per second while the load ran. */
  appliedDuring: number;
  /** Rate at which the backlog left at the end was applied with no load (null: not waited for). */
  drain: { drained: boolean; seconds: number; events: number; rate: number; left: number } | null;
  backlogAtEnd: number;
  /** CPU per accepted event over the window (with `serverPid`): admission and the application that ran meanwhile. */
  cpu?: CpuPerUnit;
}

/**
 * Warm up, let the dispatcher catch up, then measure acceptance (2xx/s) and application. With
 * `server.urls` (several servers on one database) the connections alternate between them.
 * `drainAfter: false` skips waiting for the backlog after the window (when the caller stops the
 * server next, or drains later anyway).
 */
export async function measureWrite(
  ctx: Ctx,
  server: Pick<ServerHandle, 'url'> & { urls?: string[] },
  watch: ProgressWatch,
  op: WriteOp,
  duration = WINDOW_S,
  opts: { drainAfter?: boolean; serverPid?: number; warmupS?: number } = {},
): Promise<WriteMeasurement> {
  const load = await ctx.load();
  const run = async (seconds: number) => {
    const r = await load.run({ url: server.url, urls: server.urls, requests: [op.request], feeds: feedsOf(op), duration: seconds, connections: WRITE_CONNECTIONS });
    if (op.feed && op.feedName) op.feed.advance(r.feedUsed[op.feedName]);
    return r;
  };
  if ((opts.warmupS ?? WARMUP_S) > 0) await run(opts.warmupS ?? WARMUP_S);
  await watch.drain();
  const p0 = await watch.progress();
  const window = opts.serverPid ? cpuWindow(opts.serverPid, load.pid, os.availableParallelism()) : null;
  const accepted = await run(duration);
  const cpu = window?.stop(accepted.ok);
  const p1 = await watch.progress();
  const appliedDuring = (p1.applied - p0.applied) / ((p1.at - p0.at) / 1000);
  const drain = opts.drainAfter === false ? null : await watch.drain();
  if (accepted.non2xx || accepted.errors) log(`  ${op.name}: ${accepted.non2xx} non-2xx, ${accepted.errors} errors ${JSON.stringify(accepted.statusCodes)}`);
  if (accepted.feedExhausted.length) log(`  ${op.name}: ran out of seeded targets (${accepted.feedExhausted.join(', ')}); the figure is a lower bound`);
  log(`  ${op.name}: accepted ${Math.round(accepted.rate)}/s, applied during ${Math.round(appliedDuring)}/s, backlog ${p1.sent}${drain && Number.isFinite(drain.rate) ? `, drained at ${Math.round(drain.rate)}/s` : ''}`);
  if (cpu) log(`  ${op.name}: ${describeCpu(cpu, 'event')}`);
  return { accepted, appliedDuring, drain, backlogAtEnd: p1.sent, cpu };
}

// ---------------------------------------------------------------- rows

export function ratioRow(scenario: string, metric: string, figure: number, unit: string, baseline: number, baselineName: string, minRatio: number, extra?: { min?: number; note?: string }): Row {
  const ratio = figure / baseline;
  const targetParts = [`≥ ${minRatio} × ${baselineName}`];
  if (extra?.min !== undefined) targetParts.unshift(`≥ ${extra.min.toLocaleString('en-US')} ${unit}`);
  const met = ratio >= minRatio && (extra?.min === undefined || figure >= extra.min);
  return { scenario, metric, figure, unit, baseline, baselineName, ratio, target: targetParts.join(' and '), met, note: extra?.note };
}

export function maxRow(scenario: string, metric: string, figure: number, unit: string, max: number, baseline?: number, baselineName?: string, note?: string): Row {
  return { scenario, metric, figure, unit, baseline, baselineName, ratio: baseline ? figure / baseline : null, target: `≤ ${max} ${unit}`, met: figure <= max, note };
}

export function infoRow(scenario: string, metric: string, figure: number | null, unit: string, note?: string, baseline?: number, baselineName?: string): Row {
  return { scenario, metric, figure, unit, baseline, baselineName, ratio: baseline && figure !== null ? figure / baseline : null, target: '', met: null, note };
}

export { DbWatch };
