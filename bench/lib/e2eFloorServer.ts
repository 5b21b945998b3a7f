/**
 * The floor: the four calls of `bench e2e` (CreateProcInst, GetWorkListByUserID, AssignWorkItem,
 * CompleteWorkItem) answered by the least a server can do and still keep the same durable effects
 * — an instance row, a work item with its pool, one event row per change, each change committed
 * (WAL, synchronous FULL) before its answer, commits shared per turn of the event loop — on one
 * thread, with Fastify and a Basic check. No engine, no BPMN, no audit, no rights, no second
 * thread: it measures what this machine allows for this flow, so that the e2e figure (and, with
 * `seedItems`, the AssignWorkItem figure of `bench writes`) can be read against it
 * (docs/performance.md). Started in its own process by e2eFloor.ts.
 */
import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import Fastify, { type FastifyReply } from 'fastify';
import { floorItemId } from './e2eFloor.ts';

interface Init {
  dbPath: string;
  defId: string;
  users: string[];
  password: string;
  /** New work items made before serving (ids floorItemId(0..n-1)), each in its own instance, pooled to the first user. */
  seedItems?: number;
}

const SCHEMA = `
create table definitions (def_id text primary key, def_name text not null);
create table instances (proc_inst_id text primary key, def_id text not null, status text not null, initiator text not null,
  started_date integer not null, completed_date integer);
create table work_items (work_item_id text primary key, proc_inst_id text not null, name text not null, status text not null,
  user_id text not null, created_date integer not null, assigned_date integer, completed_date integer);
create table work_item_pool (work_item_id text not null, member_key text not null, primary key (work_item_id, member_key));
create index work_item_pool_member on work_item_pool (member_key);
create table events (seq integer primary key autoincrement, event_id text not null unique, event_name text not null,
  status text not null, proc_inst_id text not null, work_item_id text not null, user_id text not null,
  sent_date integer not null, end_date integer not null);
`;

const wireDate = (ms: number | null) => `/Date(${ms ?? -62135596800000}+0000)/`;
const newId = () => randomUUID().replaceAll('-', '').toUpperCase();

process.once('message', async (init: Init) => {
  const db = new SQLite(init.dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);
  db.prepare('insert into definitions values (?, ?)').run(init.defId, 'simple');
  const q = {
    definition: db.prepare('select def_name from definitions where def_id = ?'),
    insertInstance: db.prepare("insert into instances values (?, ?, 'Running', ?, ?, null)"),
    completeInstance: db.prepare("update instances set status = 'Completed', completed_date = ? where proc_inst_id = ?"),
    insertItem: db.prepare("insert into work_items values (?, ?, 'Task', 'New', '', ?, null, null)"),
    item: db.prepare('select * from work_items where work_item_id = ?'),
    assign: db.prepare("update work_items set status = 'Assigned', user_id = ?, assigned_date = ? where work_item_id = ?"),
    complete: db.prepare("update work_items set status = 'Completed', completed_date = ? where work_item_id = ?"),
    insertPool: db.prepare('insert into work_item_pool values (?, ?)'),
    isMember: db.prepare('select 1 from work_item_pool where work_item_id = ? and member_key = ?'),
    dropPool: db.prepare('delete from work_item_pool where work_item_id = ?'),
    pooledNew: db.prepare(
      "select w.* from work_item_pool m join work_items w on w.work_item_id = m.work_item_id where m.member_key = ? and w.status = 'New'",
    ),
    insertEvent: db.prepare("insert into events (event_id, event_name, status, proc_inst_id, work_item_id, user_id, sent_date, end_date) values (?, ?, 'Processed', ?, ?, ?, ?, ?)"),
    begin: db.prepare('begin immediate'),
    commit: db.prepare('commit'),
  };
  const passwords = new Map(init.users.map((u) => [u.toLowerCase(), init.password]));
  if (init.seedItems) {
    const member = init.users[0].toLowerCase();
    const now = Date.now();
    db.transaction(() => {
      for (let i = 0; i < init.seedItems!; i++) {
        const id = floorItemId(i);
        q.insertInstance.run(`P${id.slice(1)}`, init.defId, init.users[0], now);
        q.insertItem.run(id, `P${id.slice(1)}`, now);
        q.insertPool.run(id, member);
      }
    })();
  }

  // Group commit: the changes asked for in one turn of the event loop share a transaction.
  type Job = { run: () => unknown; reply: FastifyReply };
  let queue: Job[] = [];
  const flush = () => {
    const jobs = queue;
    queue = [];
    const answers: [FastifyReply, number, unknown][] = [];
    q.begin.run();
    for (const job of jobs) {
      try {
        answers.push([job.reply, 200, job.run()]);
      } catch (e) {
        answers.push([job.reply, 409, { code: 'Conflict', detail: (e as Error).message }]);
      }
    }
    q.commit.run();
    for (const [reply, status, body] of answers) reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
  };
  const change = (reply: FastifyReply, run: () => unknown) => {
    if (queue.length === 0) setImmediate(flush);
    queue.push({ run, reply });
    return reply;
  };
  const event = (name: string, procInstId: string, workItemId: string, user: string, now: number) => {
    const eventId = newId();
    q.insertEvent.run(eventId, name, procInstId, workItemId, user, now, now);
    return {
      ActivityInstID: '', AutoStart: false, CustomAttributes: null, Diagnostic: false, EndDate: wireDate(now), Entries: 1, Error: null,
      EventID: eventId, EventName: name, HighPriority: false, ParamsXml: '', ParentProcInstID: '', ProcDefID: init.defId,
      ProcInstID: procInstId, ProcInstName: '', Sender: user, SentDate: wireDate(now), SourceWorkItemID: '', Status: 'Processed',
      UserID: user, WorkItemID: workItemId, WorkObjectID: '', WorkObjectInfo: '',
    };
  };
  const workItem = (w: Record<string, any>) => ({
    ActivatedDate: wireDate(null), ActivityInstID: '', ApplName: '', AssignedDate: wireDate(w.assigned_date), CancelledDate: wireDate(null),
    ClientData: null, CompletedDate: wireDate(w.completed_date), CreatedDate: wireDate(w.created_date), DefName: 'simple', DisplayName: w.name,
    DueDate: wireDate(null), LastModifiedBy: '', LastModifiedDate: wireDate(w.created_date), Name: w.name, OriginalUserID: '', Pending: false,
    PoolInfo: '', Priority: '', ProcDefID: init.defId, ProcInstID: w.proc_inst_id, ProcInstName: '', Session: 1, SourceWorkItemID: '',
    Status: w.status, UserID: w.user_id, WaitWorkPerformed: false, WorkItemID: w.work_item_id, WorkObjectID: '',
  });

  const app = Fastify({ logger: false });
  app.decorateRequest('user', '');
  app.addHook('onRequest', async (request, reply) => {
    const h = request.headers.authorization;
    const [name, password] = typeof h === 'string' && /^basic /i.test(h) ? Buffer.from(h.slice(6).trim(), 'base64').toString('utf8').split(':') : [];
    if (name === undefined || passwords.get(name.toLowerCase()) !== password) {
      return reply.code(401).header('www-authenticate', 'Basic realm="Waymark"').send({ code: 'Unauthenticated' });
    }
    (request as any).user = name;
  });
  app.post('/EngineServer/Workflow/CreateProcInst', (request, reply) => {
    const user = (request as any).user as string;
    const defId = (request.body as any)?.ProcessID;
    return change(reply, () => {
      if (!q.definition.get(defId)) throw new Error(`no definition ${defId}`);
      const now = Date.now();
      const procInstId = newId();
      const workItemId = newId();
      q.insertInstance.run(procInstId, defId, user, now);
      q.insertItem.run(workItemId, procInstId, now);
      q.insertPool.run(workItemId, user.toLowerCase());
      return event('CreateProcInst', procInstId, '', user, now);
    });
  });
  app.post('/EngineServer/Workflow/GetWorkListByUserID', (request, reply) => {
    const user = ((request as any).user as string).toLowerCase();
    reply.type('application/json; charset=utf-8');
    return reply.send(JSON.stringify(q.pooledNew.all(user).map((w) => workItem(w as Record<string, any>))));
  });
  app.post('/EngineServer/Workflow/AssignWorkItem/:id', (request, reply) => {
    const user = (request as any).user as string;
    const id = (request.params as { id: string }).id;
    return change(reply, () => {
      const w = q.item.get(id) as Record<string, any> | undefined;
      if (!w || w.status !== 'New' || !q.isMember.get(id, user.toLowerCase())) throw new Error(`work item ${id} cannot be taken`);
      const now = Date.now();
      q.assign.run(user, now, id);
      return event('AssignWorkItem', w.proc_inst_id, id, user, now);
    });
  });
  app.post('/EngineServer/Workflow/CompleteWorkItem/:id', (request, reply) => {
    const user = (request as any).user as string;
    const id = (request.params as { id: string }).id;
    return change(reply, () => {
      const w = q.item.get(id) as Record<string, any> | undefined;
      if (!w || w.status !== 'Assigned' || w.user_id !== user) throw new Error(`work item ${id} cannot be completed`);
      const now = Date.now();
      q.complete.run(now, id);
      q.dropPool.run(id);
      q.completeInstance.run(now, w.proc_inst_id);
      return event('CompleteWorkItem', w.proc_inst_id, id, user, now);
    });
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.send!({ url: address });
  process.once('SIGTERM', () => {
    void app.close().then(() => {
      db.close();
      process.exit(0);
    });
  });
});
process.send!({ ready: true });
