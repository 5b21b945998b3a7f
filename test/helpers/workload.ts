/**
 * A deterministic workload for multi-node and crash tests: each instance of
 * test/fixtures/multinode.bpmn is driven through create, take, release, take, two linked tasks
 * (one dependent), complete, CompleteProcedure, complete — or canceled after its links — with the
 * calls spread over several nodes, as behind a load balancer.
 */
import { basic } from './harness.ts';

export const ADMIN: [string, string] = ['LOCAL\\admin', 'admin-password-1'];
export const PAIRS = 10;
export const userOf = (pair: number, which: 'a' | 'b'): [string, string] => [`LOCAL\\u${pair}${which}`, `u${pair}${which}-password-1`];

export interface Call {
  (method: string, urlPath: string, body: unknown, as: [string, string], opts?: { wait?: boolean; node?: number }): Promise<{ status: number; json: any }>;
}

/** HTTP over several nodes; a node that does not answer is skipped (a load balancer's retry). */
export function balancer(urls: () => string[], accepted: Set<string>): Call {
  let next = 0;
  return async (method, urlPath, body, as, opts = {}) => {
    const list = urls();
    for (let attempt = 0; attempt < list.length * 20; attempt++) {
      const url = list[(opts.node ?? next++) % list.length];
      if (opts.node !== undefined) opts.node++;
      try {
        const res = await fetch(url + urlPath, {
          method,
          headers: {
            authorization: basic(as[0], as[1]),
            'content-type': 'application/json',
            ...(opts.wait ? { prefer: 'wait=30' } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        const json = text ? JSON.parse(text) : undefined;
        if (json && typeof json.EventID === 'string' && json.Status) accepted.add(json.EventID);
        if (res.status === 503) {
          await new Promise((r) => setTimeout(r, 100 + 50 * attempt));
          continue;
        }
        return { status: res.status, json };
      } catch {
        await new Promise((r) => setTimeout(r, 50 + 25 * attempt));
      }
    }
    throw new Error(`no node answered ${method} ${urlPath}`);
  };
}

/** Register the users of every pair (as the admin). */
export async function setUpUsers(call: Call): Promise<void> {
  for (let p = 0; p < PAIRS; p++) {
    for (const which of ['a', 'b'] as const) {
      const [name, password] = userOf(p, which);
      const r = await call('POST', '/EngineServer/Admin/RegisterUser', { UserName: name, Password: password }, ADMIN);
      if (r.status !== 200) throw new Error(`RegisterUser ${name}: ${r.status} ${JSON.stringify(r.json)}`);
    }
  }
}

const W = '/EngineServer/Workflow';

/** Drive instance `i` to its end; returns its ProcInstID. Every step must succeed. */
export async function driveInstance(call: Call, defId: string, i: number): Promise<string> {
  const pair = i % PAIRS;
  const a = userOf(pair, 'a');
  const b = userOf(pair, 'b');
  const ok = (r: { status: number; json: any }, what: string) => {
    if (r.status !== 200) throw new Error(`${what} (instance ${i}): ${r.status} ${JSON.stringify(r.json)}`);
    if (r.json?.Status && r.json.Status !== 'Processed' && r.json.Status !== 'Sent') throw new Error(`${what} (instance ${i}): ${JSON.stringify(r.json)}`);
    return r.json;
  };
  const created = ok(await call('POST', `${W}/CreateProcInst`, {
    ProcessID: defId, ProcInstName: `load-${i}`, Attributes: [{ Name: 'reviewers', Value: `${a[0]},${b[0]}` }],
  }, ADMIN, { wait: true }), 'CreateProcInst');
  const pi = created.ProcInstID;
  const list = ok(await call('POST', `${W}/GetWorkListByUserID`, { UserName: a[0], Status: 'New' }, a), 'work list');
  const item = list.find((w: any) => w.ProcInstID === pi);
  if (!item) throw new Error(`instance ${i}: no pooled task for ${a[0]}`);
  const wi = item.WorkItemID;
  ok(await call('POST', `${W}/AssignWorkItem/${wi}`, { clientData: `a${i}` }, a, { wait: true }), 'take');
  ok(await call('POST', `${W}/UndoAssignWorkItem/${wi}`, { clientData: null }, a, { wait: true }), 'release');
  ok(await call('POST', `${W}/AssignWorkItem/${wi}`, {}, b, { wait: true }), 'take again');
  const link = (dependent: boolean) =>
    call('POST', `${W}/CreateLinkedWorkItem`, {
      SourceWorkItemID: wi, WorkToPerform: dependent ? 'dependent' : 'independent', UserID: a[0], Length: '1', Unit: 'DAY', bDependent: dependent,
    }, ADMIN);
  // Two events of one instance in flight at once, admitted by different nodes.
  const [l1, l2] = await Promise.all([link(true), link(false)]);
  const linkEvents = [ok(l1, 'link dependent'), ok(l2, 'link independent')];
  for (const e of linkEvents) await waitFinal(call, e.EventID);
  if (i % 4 === 0) {
    ok(await call('POST', `${W}/CancelProcInst/${pi}`, undefined, ADMIN, { wait: true }), 'cancel');
    return pi;
  }
  for (const e of linkEvents) ok(await call('POST', `${W}/CompleteWorkItem/${e.WorkItemID}`, {}, a, { wait: true }), 'complete link');
  ok(await call('POST', `${W}/CompleteWorkItem/${wi}`, {}, b, { wait: true }), 'complete source');
  const procs = ok(await call('POST', `${W}/QueryProcedureList`, { ColumnName: 'PROC_INST_ID', Operator: 'EQ', WhereClause: pi }, ADMIN), 'procedures');
  ok(await call('POST', `${W}/CompleteProcedure/${procs[0].WorkItemID}`, undefined, ADMIN, { wait: true }), 'complete procedure');
  const mine = ok(await call('POST', `${W}/GetWorkListByUserID`, { UserName: ADMIN[0], Status: 'Assigned' }, ADMIN), 'admin list');
  const confirm = mine.find((w: any) => w.ProcInstID === pi);
  if (!confirm) throw new Error(`instance ${i}: no Confirm task`);
  ok(await call('POST', `${W}/CompleteWorkItem/${confirm.WorkItemID}`, {}, ADMIN, { wait: true }), 'complete confirm');
  return pi;
}

export async function waitFinal(call: Call, eventId: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call('GET', `${W}/GetEvent/${eventId}`, undefined, ADMIN);
    const e = r.json?.GetEventResult;
    if (e && e.Status !== 'Sent' && e.Status !== 'Deferred') return e;
    if (Date.now() > deadline) throw new Error(`event ${eventId} still ${e?.Status}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** What a user can see of an instance at the end, independent of ids and times. */
export async function fingerprint(call: Call, pi: string): Promise<string> {
  const inst = (await call('GET', `${W}/GetProcInst/${pi}`, undefined, ADMIN)).json.GetProcInstResult;
  const acts = (await call('GET', `${W}/GetActivityInstsByPIID/${pi}`, undefined, ADMIN)).json.GetActivityInstsByPIIDResult;
  const events = (await call('GET', `${W}/GetEventsByProcInstID/${pi}`, undefined, ADMIN)).json.GetEventsByProcInstIDResult;
  return JSON.stringify({
    status: inst.Status,
    activities: acts.map((x: any) => `${x.Name}:${x.TokenPos.Value}:${x.InStack}`),
    // A multiset: events admitted concurrently (and internal timer events) have no defined order.
    events: events.map((e: any) => `${e.EventName}:${e.Status}`).sort(),
  });
}

/** Run `fn` over 0..n-1 with at most `width` at a time. */
export async function pool<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}
