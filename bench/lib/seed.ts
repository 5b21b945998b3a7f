/**
 * Fast seeding straight into the SQLite file, while the server is stopped: a real process instance
 * (made over HTTP, so every row is what the engine writes) is read back from every per-instance
 * table and copied N times with fresh ids, in batched transactions. Columns are discovered with
 * PRAGMA table_info, so the copies follow the schema of src/store/schema.sql as it is today.
 *
 * What is copied for a template instance P:
 * - every row of every table that has a `proc_inst_id` column, where it is P;
 * - work_item_pool rows of P's work items; custom_attributes rows of P's custom_id;
 * - audit_trail rows whose object_id is one of P's ids or whose event_id is one of P's events.
 * Every 32-hex id found in those rows (except process definition ids) is replaced by a new
 * time-ordered id (also inside names and ParamsXml); autoincrement keys are left to SQLite.
 */
import SQLite from 'better-sqlite3';
import { newId } from '../../src/domain/ids.ts';

export const ID_RE = /(?<![0-9A-Fa-f])[0-9A-Fa-f]{32}(?![0-9A-Fa-f])/g;
export const HAS_ID = /(?<![0-9A-Fa-f])[0-9A-Fa-f]{32}(?![0-9A-Fa-f])/;

type Part = string | { slot: number; lower: boolean };
type ValueBuilder = { constant: unknown } | { parts: Part[] };

interface TableTemplate {
  table: string;
  columns: string[];
  rows: ValueBuilder[][];
  insert: SQLite.Statement;
  /** Inserts the rows of CHUNK copies at once (multi-row VALUES: fewer statement runs). */
  insertChunk: SQLite.Statement;
}

/** Copies per multi-row INSERT. */
const CHUNK = 50;

export interface Template {
  procInstId: string;
  ids: string[];
  tables: TableTemplate[];
  /** Slots of interesting ids, to hand back the copies' ids. */
  procInstSlot: number;
  workItemSlots: number[];
  activitySlots: number[];
  rowsPerCopy: number;
}

export interface CopyIds {
  procInstId: string;
  workItemIds: string[];
  activityIds: string[];
}

export interface CloneResult {
  copies: number;
  seconds: number;
  rows: number;
  ids: CopyIds[];
}

export class Seeder {
  readonly db: SQLite.Database;

  constructor(dbPath: string) {
    this.db = new SQLite(dbPath);
    // The server is stopped: no journal, no fsync, big cache. WAL comes back in close().
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -1000000');
    this.db.pragma('temp_store = MEMORY');
    this.db.pragma('locking_mode = EXCLUSIVE');
    // The copies are consistent by construction; checking every reference would double the cost.
    this.db.pragma('foreign_keys = OFF');
  }

  private columnsOf(table: string): { name: string; pk: number; type: string }[] {
    return this.db.prepare(`pragma table_info("${table}")`).all() as { name: string; pk: number; type: string }[];
  }

  private tables(): string[] {
    return (this.db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
  }

  template(procInstId: string): Template {
    const globalIds = new Set<string>();
    for (const r of this.db.prepare('select def_id, base_def_id from process_definitions').all() as { def_id: string; base_def_id: string }[]) {
      globalIds.add(r.def_id.toUpperCase());
      globalIds.add(r.base_def_id.toUpperCase());
    }
    globalIds.add('0'.repeat(32));
    const picked: { table: string; rows: Record<string, unknown>[] }[] = [];
    const tables = this.tables();
    const byProc = tables.filter((t) => this.columnsOf(t).some((c) => c.name === 'proc_inst_id'));
    const ownIds = new Set<string>([procInstId]);
    for (const t of byProc) {
      const rows = this.db.prepare(`select * from "${t}" where proc_inst_id = ?`).all(procInstId) as Record<string, unknown>[];
      picked.push({ table: t, rows });
      for (const r of rows) for (const v of Object.values(r)) if (typeof v === 'string') for (const m of v.matchAll(ID_RE)) if (!globalIds.has(m[0].toUpperCase())) ownIds.add(m[0].toUpperCase());
    }
    const workItems = (picked.find((p) => p.table === 'work_items')?.rows ?? []).map((r) => r.work_item_id as string);
    const events = (picked.find((p) => p.table === 'events')?.rows ?? []).map((r) => r.event_id as string);
    const instance = picked.find((p) => p.table === 'process_instances')?.rows[0];
    if (!instance) throw new Error(`no process instance ${procInstId}`);
    if (tables.includes('work_item_pool') && workItems.length) {
      picked.push({ table: 'work_item_pool', rows: this.db.prepare(`select * from work_item_pool where work_item_id in (${workItems.map(() => '?').join(',')})`).all(...workItems) as Record<string, unknown>[] });
    }
    if (tables.includes('custom_attributes')) {
      picked.push({ table: 'custom_attributes', rows: this.db.prepare('select * from custom_attributes where custom_id = ?').all(instance.custom_id) as Record<string, unknown>[] });
    }
    if (tables.includes('audit_trail')) {
      const objects = [...ownIds];
      const rows = this.db
        .prepare(`select * from audit_trail where object_id in (${objects.map(() => '?').join(',')}) or event_id in (${events.map(() => '?').join(',') || "''"}) order by id`)
        .all(...objects, ...events) as Record<string, unknown>[];
      picked.push({ table: 'audit_trail', rows });
    }
    const ids = [...ownIds];
    const slotOf = new Map(ids.map((id, i) => [id, i]));
    const tablesOut: TableTemplate[] = [];
    let rowsPerCopy = 0;
    for (const { table, rows } of picked) {
      if (rows.length === 0) continue;
      const autoKey = this.columnsOf(table).filter((c) => c.pk === 1 && /int/i.test(c.type)).map((c) => c.name);
      const columns = Object.keys(rows[0]).filter((c) => !autoKey.includes(c));
      const builders = rows.map((row) =>
        columns.map((c): ValueBuilder => {
          const v = row[c];
          if (typeof v !== 'string' || !HAS_ID.test(v)) return { constant: v };
          const parts: Part[] = [];
          let last = 0;
          for (const m of v.matchAll(ID_RE)) {
            const slot = slotOf.get(m[0].toUpperCase());
            if (slot === undefined) continue;
            parts.push(v.slice(last, m.index), { slot, lower: m[0] !== m[0].toUpperCase() });
            last = m.index! + m[0].length;
          }
          parts.push(v.slice(last));
          return { parts };
        }),
      );
      const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      const insert = this.db.prepare(head + tuple);
      const insertChunk = this.db.prepare(head + Array.from({ length: CHUNK * rows.length }, () => tuple).join(', '));
      tablesOut.push({ table, columns, rows: builders, insert, insertChunk });
      rowsPerCopy += rows.length;
    }
    const activities = (picked.find((p) => p.table === 'activity_instances')?.rows ?? []).map((r) => r.id as string);
    return {
      procInstId,
      ids,
      tables: tablesOut,
      procInstSlot: slotOf.get(procInstId)!,
      workItemSlots: workItems.map((w) => slotOf.get(w.toUpperCase())!),
      activitySlots: activities.map((a) => slotOf.get(a.toUpperCase())!),
      rowsPerCopy,
    };
  }

  /**
   * Insert `count` copies of the template (fewer if `deadline` — a performance.now() value — passes
   * first). Ids are time-ordered from `baseTime` on, one millisecond per copy.
   */
  clone(t: Template, count: number, opts: { keepIds?: boolean; deadline?: number; batch?: number; baseTime?: number } = {}): CloneResult {
    const batch = opts.batch ?? 5000;
    const base = opts.baseTime ?? Date.now() - count - 60_000;
    const out: CopyIds[] = [];
    const t0 = performance.now();
    let done = 0;
    const fresh = new Array<string>(t.ids.length);
    const lower = new Array<string>(t.ids.length);
    const value = (b: ValueBuilder): unknown => {
      if ('constant' in b) return b.constant;
      let s = '';
      for (const p of b.parts) s += typeof p === 'string' ? p : p.lower ? lower[p.slot] : fresh[p.slot];
      return s;
    };
    const values = t.tables.map(() => [] as unknown[]);
    const runBatch = this.db.transaction((n: number) => {
      for (let i = 0; i < n; i++) {
        const ms = base + done + i;
        for (let s = 0; s < fresh.length; s++) {
          fresh[s] = newId(ms);
          lower[s] = fresh[s].toLowerCase();
        }
        const last = i === n - 1;
        for (let k = 0; k < t.tables.length; k++) {
          const tt = t.tables[k];
          const vs = values[k];
          for (const row of tt.rows) for (const b of row) vs.push(value(b));
          if (vs.length === CHUNK * tt.rows.length * tt.columns.length) {
            tt.insertChunk.run(vs);
            vs.length = 0;
          } else if (last) {
            const width = tt.columns.length;
            for (let o = 0; o < vs.length; o += width) tt.insert.run(vs.slice(o, o + width));
            vs.length = 0;
          }
        }
        if (opts.keepIds) {
          out.push({
            procInstId: fresh[t.procInstSlot],
            workItemIds: t.workItemSlots.map((s) => fresh[s]),
            activityIds: t.activitySlots.map((s) => fresh[s]),
          });
        }
      }
    });
    while (done < count) {
      if (opts.deadline !== undefined && performance.now() > opts.deadline) break;
      const n = Math.min(batch, count - done);
      runBatch(n);
      done += n;
    }
    return { copies: done, seconds: (performance.now() - t0) / 1000, rows: done * t.rowsPerCopy, ids: out };
  }

  /**
   * A backlog of `Sent` events, as if admitted and not yet applied: copies of a real event
   * (`templateEventId`, any status), each aimed at one target. A target is a work item id
   * (`workItem`: the event's work item — or, for a linked-work-item event, its source — becomes the
   * target, with the target's instance and activity) or a process instance id (`instance`).
   * Other ids in the event (its own id, a pre-allocated new work item id) are made fresh.
   */
  sentEvents(templateEventId: string, targets: string[], kind: 'workItem' | 'instance'): number {
    const tpl = this.db.prepare('select * from events where event_id = ?').get(templateEventId) as Record<string, unknown> | undefined;
    if (!tpl) throw new Error(`no event ${templateEventId}`);
    const autoKey = this.columnsOf('events').filter((c) => c.pk === 1 && /int/i.test(c.type)).map((c) => c.name);
    const columns = Object.keys(tpl).filter((c) => !autoKey.includes(c));
    const insert = this.db.prepare(`insert into events (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
    const wiOf = this.db.prepare('select proc_inst_id, activity_inst_id from work_items where work_item_id = ?');
    const now = Date.now();
    this.db.transaction(() => {
      for (const target of targets) {
        const w = kind === 'workItem' ? (wiOf.get(target) as WorkItemPlace | undefined) : undefined;
        if (kind === 'workItem' && !w) throw new Error(`no work item ${target}`);
        insert.run(sentEventCopy(tpl, columns, target, w, now));
      }
    })();
    return targets.length;
  }

  /** Register `count` users (no password) as copies of the admin's row: LOCAL\user00001... */
  users(count: number, prefix = 'user'): void {
    const admin = this.db.prepare("select * from users where user_key = 'local\\admin'").get() as Record<string, unknown>;
    const columns = Object.keys(admin);
    const insert = this.db.prepare(`insert into users (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`);
    this.db.transaction(() => {
      for (let i = 1; i <= count; i++) {
        const name = `LOCAL\\${prefix}${String(i).padStart(5, '0')}`;
        insert.run(columns.map((c) => (c === 'user_key' ? name.toLowerCase() : c === 'user_name' ? name : c === 'full_name' ? `Bench user ${i}` : admin[c])));
      }
    })();
  }

  count(table: string): number {
    return (this.db.prepare(`select count(*) n from "${table}"`).get() as { n: number }).n;
  }

  close(): void {
    this.db.pragma('locking_mode = NORMAL');
    this.db.pragma('journal_mode = WAL');
    this.db.close();
  }
}

/** Where a work item sits: its instance and activity. */
export interface WorkItemPlace {
  proc_inst_id: string;
  activity_inst_id: string;
}

/**
 * One copy of a real event (`tpl`, any status) as a `Sent` backlog event aimed at `target`, as the
 * values of `columns`: a work item id (`place` given: the event's work item — or, for a
 * linked-work-item event, its source — becomes the target, with the target's instance and
 * activity) or a process instance id. Other ids in the event (its own id, a pre-allocated new work
 * item id) are made fresh, consistently within the copy (also inside its params); definition ids
 * are kept. Shared by the SQLite and PostgreSQL seeders.
 */
export function sentEventCopy(tpl: Record<string, unknown>, columns: readonly string[], target: string, place: WorkItemPlace | undefined, now: number): unknown[] {
  const map = new Map<string, string>();
  if (place) {
    const targetWiColumn = tpl.source_work_item_id ? 'source_work_item_id' : 'work_item_id';
    map.set(String(tpl.proc_inst_id).toUpperCase(), place.proc_inst_id);
    map.set(String(tpl.activity_inst_id).toUpperCase(), place.activity_inst_id);
    map.set(String(tpl[targetWiColumn]).toUpperCase(), target);
  } else {
    map.set(String(tpl.proc_inst_id).toUpperCase(), target);
  }
  if (tpl.proc_def_id) map.set(String(tpl.proc_def_id).toUpperCase(), String(tpl.proc_def_id));
  if (tpl.parent_proc_inst_id) map.set(String(tpl.parent_proc_inst_id).toUpperCase(), String(tpl.parent_proc_inst_id));
  const swap = (v: unknown) =>
    typeof v !== 'string'
      ? v
      : v.replace(ID_RE, (m) => {
          const up = m.toUpperCase();
          let id = map.get(up);
          if (id === undefined) map.set(up, (id = newId(now)));
          return m === up ? id : id.toLowerCase();
        });
  return columns.map((c) => {
    if (c === 'status') return 'Sent';
    if (c === 'end_date' || c === 'error_code' || c === 'error_message' || c === 'claimed_by' || c === 'claimed_at') return null;
    if (c === 'entries') return 0;
    return swap(tpl[c]);
  });
}

/** Read-only view of a running server's database: backlog and progress of the dispatcher. */
export class DbWatch {
  private readonly db: SQLite.Database;
  private readonly sent: SQLite.Statement;
  private readonly deferred: SQLite.Statement;
  private readonly maxSeq: SQLite.Statement;

  constructor(dbPath: string) {
    this.db = new SQLite(dbPath, { readonly: true, fileMustExist: true });
    this.sent = this.db.prepare("select count(*) n from events where status = 'Sent'");
    this.deferred = this.db.prepare("select count(*) n from events where status = 'Deferred'");
    this.maxSeq = this.db.prepare('select coalesce(max(seq), 0) n from events');
  }

  /**
   * Events written so far (max seq), those still Sent, and those Deferred (timers the handlers
   * schedule, e.g. a work item's overdue mark): applied = written - sent - deferred.
   */
  progress(): { admitted: number; sent: number; deferred: number; applied: number; at: number } {
    const at = performance.now();
    const admitted = (this.maxSeq.get() as { n: number }).n;
    const sent = (this.sent.get() as { n: number }).n;
    const deferred = (this.deferred.get() as { n: number }).n;
    return { admitted, sent, deferred, applied: admitted - sent - deferred, at };
  }

  /** Wait until no event is Sent (or the timeout passes); reports the drain rate. */
  async drain(timeoutMs = 120_000): Promise<{ drained: boolean; seconds: number; events: number; rate: number; left: number }> {
    const start = this.progress();
    let p = start;
    while (p.sent > 0 && p.at - start.at < timeoutMs) {
      await new Promise((r) => setTimeout(r, 100));
      p = this.progress();
    }
    const seconds = (p.at - start.at) / 1000;
    const events = p.applied - start.applied;
    return { drained: p.sent === 0, seconds, events, rate: seconds > 0 ? events / seconds : NaN, left: p.sent };
  }

  get(sqlText: string, ...params: unknown[]): any {
    return this.db.prepare(sqlText).get(...params);
  }

  close(): void {
    this.db.close();
  }
}
