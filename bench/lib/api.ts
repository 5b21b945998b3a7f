/** A small HTTP client for setting up benchmark data (not for load: that is load.ts). */
import { ADMIN, ADMIN_PASSWORD, basic, fixture } from './util.ts';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export type As = [string, string];

export class Api {
  constructor(readonly url: string) {}

  async request(method: string, path: string, opts: { body?: unknown; as?: As; headers?: Record<string, string> } = {}): Promise<Reply> {
    const as = opts.as ?? [ADMIN, ADMIN_PASSWORD];
    const headers: Record<string, string> = { authorization: basic(as[0], as[1]), ...opts.headers };
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.url + path, { method, headers, body });
    const text = await res.text();
    let json: any;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  get(path: string, as?: As): Promise<Reply> {
    return this.request('GET', path, { as });
  }

  post(path: string, body?: unknown, opts: { as?: As; headers?: Record<string, string> } = {}): Promise<Reply> {
    return this.request('POST', path, { body, ...opts });
  }

  /** POST that must answer 200. */
  async ok(path: string, body?: unknown, opts: { as?: As; headers?: Record<string, string> } = {}): Promise<any> {
    const r = await this.post(path, body, opts);
    if (r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return r.json;
  }

  /** Deploy and release a bench fixture; returns its DefID. */
  async deploy(file: string): Promise<string> {
    const created = await this.ok('/EngineServer/Workflow/CreateProcDef', { Xml: fixture(file) });
    await this.ok(`/EngineServer/Workflow/ReleaseProcDef/${created.DefID}`);
    return created.DefID;
  }

  async registerUser(name: string, password?: string): Promise<void> {
    await this.ok('/EngineServer/Admin/RegisterUser', { UserName: name, FullName: name.split('\\')[1], ...(password ? { Password: password } : {}) });
  }

  /** A role with rights and user members. */
  async role(name: string, rights: (number | string)[], members: string[]): Promise<void> {
    await this.ok('/EngineServer/Admin/AddRole', { RoleName: name, Rights: rights, Enabled: true });
    for (const m of members) await this.ok('/EngineServer/Admin/AddRoleMember', { RoleName: name, Assignee: m, AssigneeType: 'User' });
  }

  /** Start an instance and wait until its start event is applied; returns the ProcInstID. */
  async startInstance(defId: string, as?: As): Promise<string> {
    const e = await this.ok('/EngineServer/Workflow/CreateProcInst', { ProcessID: defId }, { as, headers: { prefer: 'wait=10' } });
    if (e.Status !== 'Processed') throw new Error(`CreateProcInst ended ${e.Status}: ${JSON.stringify(e.Error)}`);
    return e.ProcInstID;
  }

  /** The open work items of the caller (or of `user`, with right 81). */
  async workList(status: string | null, as?: As, user?: string): Promise<any[]> {
    return this.ok('/EngineServer/Workflow/GetWorkListByUserID', { Status: status, ...(user ? { UserName: user } : {}) }, { as });
  }

  /** Apply a state-changing POST and wait for its event to be final; it must be Processed. */
  async processed(path: string, body?: unknown, as?: As): Promise<any> {
    const e = await this.ok(path, body, { as, headers: { prefer: 'wait=10' } });
    if (e.Status !== 'Processed') throw new Error(`${path} ended ${e.Status}: ${JSON.stringify(e.Error)}`);
    return e;
  }
}

/** Run `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}
