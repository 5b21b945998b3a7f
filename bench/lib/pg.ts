/**
 * PostgreSQL for the benchmark:
 *
 * - `PgHost`: a throwaway cluster from the installed server binaries (scripts/pg-cluster.ts; as
 *   root it runs as the `postgres` user), started on first use and stopped when the run ends — also
 *   when a scenario throws, on Ctrl-C (SIGINT), SIGTERM or an uncaught error. One fresh database
 *   per scenario (or per group of servers that share one).
 * - `PgWatch`: the dispatcher's progress read from the database (the PostgreSQL twin of DbWatch).
 * - `PgSeeder`: seeding straight into a database before any load runs on it: a real instance
 *   (made over HTTP) is read back from every per-instance table, as text, and copied N times with
 *   fresh time-ordered ids, each table in one INSERT ... SELECT per batch that builds the rows on
 *   the server from arrays of new ids. Columns come from the catalog (pg_attribute), so the
 *   copies follow the migrations as they are today; serial/identity keys are left to PostgreSQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { findPgBin, startPgCluster, type PgCluster } from '../../scripts/pg-cluster.ts';
import { newId } from '../../src/domain/ids.ts';
import { HAS_ID, ID_RE, sentEventCopy, type CloneResult, type CopyIds, type WorkItemPlace } from './seed.ts';
import type { WriteGroups, WriteTemplates } from './workload.ts';
import { log } from './util.ts';

/** What the cluster runs with, for the results file and the docs. */
export interface PgInfo {
  version: string;
  bin: string;
  settings: Record<string, string>;
}

const REPORTED_SETTINGS = ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_level', 'shared_buffers', 'max_connections', 'work_mem', 'checkpoint_timeout', 'max_wal_size'];

export class PgHost {
  private cluster: PgCluster | null = null;
  private starting: Promise<PgCluster | null> | null = null;
  private nextDb = 1;
  info: PgInfo | null = null;
  /** Why PostgreSQL is not available (no binaries, or the cluster did not start). */
  unavailable: string | null = null;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the servers and the PostgreSQL cluster`);
    this.beforeSignalExit?.();
    this.stop();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  private readonly onExit = () => this.stop();

  /** `beforeSignalExit`: runs on SIGINT/SIGTERM before the cluster stops (kills the servers). */
  constructor(private readonly beforeSignalExit?: () => void) {}

  /** The cluster's admin URL (database `postgres`), starting it on first use; null when there is none. */
  async ensure(): Promise<PgCluster | null> {
    if (this.cluster) return this.cluster;
    if (this.unavailable) return null;
    this.starting ??= this.start();
    return this.starting;
  }

  private async start(): Promise<PgCluster | null> {
    const bin = findPgBin();
    if (!bin) {
      this.unavailable = 'no PostgreSQL server binaries under /usr/lib/postgresql';
      return null;
    }
    const t0 = performance.now();
    try {
      // Stop it whatever way the run ends: a signal handler (which then exits) and an exit hook.
      process.on('SIGINT', this.onSignal);
      process.on('SIGTERM', this.onSignal);
      process.on('exit', this.onExit);
      // pg_stat_statements where the server has it: the e2e part counts the statements per
      // completed instance with it (PgStatements). Its cost is one hash and a shared-memory
      // update per statement.
      const keepStatements = fs.existsSync(path.join(bin, '..', 'lib', 'pg_stat_statements.so'));
      this.cluster = await startPgCluster(bin, keepStatements ? { settings: { shared_preload_libraries: 'pg_stat_statements' } } : {});
    } catch (e) {
      this.removeHooks();
      this.unavailable = `the PostgreSQL cluster did not start: ${(e as Error).message.split('\n')[0]}`;
      return null;
    }
    const c = new pg.Client({ connectionString: this.cluster.url });
    await c.connect();
    try {
      const version = (await c.query('show server_version')).rows[0].server_version as string;
      const r = await c.query('select name, current_setting(name) as value from pg_settings where name = any($1::text[])', [REPORTED_SETTINGS]);
      const settings: Record<string, string> = {};
      for (const name of REPORTED_SETTINGS) {
        const row = r.rows.find((x) => x.name === name);
        if (row) settings[name] = row.value;
      }
      this.info = { version, bin, settings };
    } finally {
      await c.end();
    }
    log(`PostgreSQL ${this.info.version} cluster at ${this.cluster.url} started in ${((performance.now() - t0) / 1000).toFixed(1)} s (${JSON.stringify(this.info.settings)})`);
    return this.cluster;
  }

  /** The cluster's postmaster (its backends are its children), null when none runs. */
  postmasterPid(): number | null {
    return this.cluster?.postmasterPid() ?? null;
  }

  /** A new empty database; its URL. */
  /** A fresh database; with `template` (a URL this host made), a copy of that one (nobody may be connected to it). */
  async createDatabase(label: string, opts: { template?: string } = {}): Promise<string> {
    const cluster = await this.ensure();
    if (!cluster) throw new Error(`PostgreSQL unavailable: ${this.unavailable}`);
    const name = `bench_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${this.nextDb++}`;
    const template = opts.template === undefined ? '' : ` template ${q(new URL(opts.template).pathname.slice(1))}`;
    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    try {
      await c.query(`create database "${name}"${template}`);
    } finally {
      await c.end();
    }
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    return url.toString();
  }

  /** Stop the cluster and delete its data (synchronous: also safe in an exit hook). */
  stop(): void {
    const cluster = this.cluster;
    this.cluster = null;
    this.starting = null;
    this.removeHooks();
    if (!cluster) return;
    try {
      cluster.discard();
      log('PostgreSQL cluster stopped');
    } catch (e) {
      log(`stopping the PostgreSQL cluster: ${(e as Error).message.split('\n')[0]}`);
    }
  }

  private removeHooks(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    process.off('exit', this.onExit);
  }
}

export interface Progress {
  admitted: number;
  sent: number;
  deferred: number;
  applied: number;
  at: number;
}

/** Read-only view of a PostgreSQL database a server runs on: backlog and progress of the dispatcher. */
export class PgWatch {
  private constructor(private readonly client: pg.Client) {}

  static async open(url: string): Promise<PgWatch> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new PgWatch(client);
  }

  /** Events written (max seq), still Sent, and Deferred (timers): applied = written - sent - deferred. */
  async progress(): Promise<Progress> {
    const at = performance.now();
    const r = await this.client.query(
      `/* bench watch */ select (select coalesce(max(seq), 0) from events)::float8 as admitted,
              (select count(*) from events where status = 'Sent')::float8 as sent,
              (select count(*) from events where status = 'Deferred')::float8 as deferred`,
    );
    const { admitted, sent, deferred } = r.rows[0] as { admitted: number; sent: number; deferred: number };
    return { admitted, sent, deferred, applied: admitted - sent - deferred, at };
  }

  /** Wait until no event is Sent (or the timeout passes); reports the drain rate. */
  async drain(timeoutMs = 120_000): Promise<{ drained: boolean; seconds: number; events: number; rate: number; left: number }> {
    const start = await this.progress();
    let p = start;
    while (p.sent > 0 && p.at - start.at < timeoutMs) {
      await new Promise((r) => setTimeout(r, 100));
      p = await this.progress();
    }
    const seconds = (p.at - start.at) / 1000;
    const events = p.applied - start.applied;
    return { drained: p.sent === 0, seconds, events, rate: seconds > 0 ? events / seconds : NaN, left: p.sent };
  }

  /** Bytes of every table of the schema with its indexes and TOAST (pg_total_relation_size), by table. */
  async relationBytes(): Promise<Map<string, number>> {
    const r = await this.client.query(
      "select c.relname as name, pg_total_relation_size(c.oid)::float8 as bytes from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')",
    );
    return new Map(r.rows.map((x) => [x.name as string, x.bytes as number]));
  }

  /** Rewrite every relation with its live rows only (no server may be using the database). */
  async vacuumFull(): Promise<void> {
    await this.client.query('vacuum full');
  }

  async count(sqlText: string, params: unknown[] = []): Promise<number> {
    const r = await this.client.query(`/* bench watch */ ${sqlText}`, params);
    return Number(Object.values(r.rows[0])[0]);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** One statement text as pg_stat_statements counts it. */
export interface CountedStatement {
  calls: number;
  /** PostgreSQL's own time executing it, per call (planning excluded). */
  execUs: number;
  text: string;
}

/**
 * The statements one database of the cluster ran since `reset()`, from pg_stat_statements (the
 * cluster must preload it: PgHost does where the server has it). Its own queries and PgWatch's
 * (marked `/* bench watch *\/`) are left out.
 */
export class PgStatements {
  private constructor(private readonly client: pg.Client) {}

  /** Null where the cluster does not keep statements. */
  static async open(url: string): Promise<PgStatements | null> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('create extension if not exists pg_stat_statements');
    } catch {
      await client.end();
      return null;
    }
    return new PgStatements(client);
  }

  async reset(): Promise<void> {
    await this.client.query('select pg_stat_statements_reset()');
  }

  /** Every statement text run in this database since reset(), most calls first. */
  async read(): Promise<CountedStatement[]> {
    const r = await this.client.query(
      `select calls::float8 as calls, total_exec_time::float8 as ms, query from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database())
          and query not like '%pg_stat_statements%' and query not like '/* bench watch */%'
        order by calls desc, query`,
    );
    return r.rows.map((x: { calls: number; ms: number; query: string }) => ({ calls: x.calls, execUs: (1000 * x.ms) / x.calls, text: x.query.replace(/\s+/g, ' ') }));
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/**
 * What one statement's round trip costs a Node client with the pg driver on this machine: a named
 * (prepared) single-row SELECT by primary key on one connection, run `count` times one after the
 * other in this process, after a warm-up. The CPU is this process's own (process.cpuUsage: the
 * driver's JavaScript and the socket's system calls), so run it while this process does nothing
 * else. A baseline for the server's CPU per statement on PostgreSQL, which runs its statements
 * through the same driver one round trip each.
 */
export async function pgRoundTrip(url: string, count = 4000): Promise<{ cpuUs: number; wallUs: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create temporary table round_trip (id text primary key, a text, b bigint, c text, d bigint)');
    await client.query("insert into round_trip select 'k' || i, 'text', i, 'more text', i from generate_series(0, 99) as i");
    const text = 'select * from round_trip where id = $1';
    const one = (i: number) => client.query({ name: 'round_trip', text, values: [`k${i % 100}`] });
    for (let i = 0; i < 500; i++) await one(i);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < count; i++) await one(i);
    const cpu = process.cpuUsage(cpu0);
    return { cpuUs: (cpu.user + cpu.system) / count, wallUs: ((performance.now() - t0) * 1000) / count };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- seeding

interface Column {
  name: string;
  type: string;
}

/** A value of a template row: a constant (text or null), or text with id slots in it. */
type Part = string | { slot: number; lower: boolean };
type Cell = { constant: string | null } | { parts: Part[] };

interface PgTableTemplate {
  table: string;
  columns: Column[];
  rows: Cell[][];
  /** Slots this table's rows use (the arrays the INSERT needs). */
  slots: number[];
}

export interface PgTemplate {
  procInstId: string;
  ids: string[];
  tables: PgTableTemplate[];
  procInstSlot: number;
  workItemSlots: number[];
  activitySlots: number[];
  rowsPerCopy: number;
}

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

export class PgSeeder {
  private constructor(private readonly client: pg.Client) {}

  static async open(url: string): Promise<PgSeeder> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // Seeding runs while no server is on the database; a lost tail would only lose bench data.
    await client.query('set synchronous_commit = off');
    return new PgSeeder(client);
  }

  private async tables(): Promise<string[]> {
    const r = await this.client.query("select c.relname from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') order by 1");
    return r.rows.map((x) => x.relname as string);
  }

  /** Columns that take a value on insert (serial, identity and generated columns are left out). */
  private async columnsOf(table: string): Promise<{ all: string[]; insertable: Column[] }> {
    const r = await this.client.query(
      `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
              coalesce(pg_get_expr(d.adbin, d.adrelid), '') as def, a.attidentity as ident, a.attgenerated as gen
         from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped
        order by a.attnum`,
      [q(table)],
    );
    const all = r.rows.map((x) => x.name as string);
    const insertable = r.rows.filter((x) => !String(x.def).startsWith('nextval(') && x.ident === '' && x.gen === '').map((x) => ({ name: x.name as string, type: x.type as string }));
    return { all, insertable };
  }

  /** Rows of `table` matching `where` (with `params`), every column as text. */
  private async rowsAsText(table: string, columns: Column[], where: string, params: unknown[]): Promise<(string | null)[][]> {
    const r = await this.client.query({ text: `select ${columns.map((c) => `${q(c.name)}::text`).join(', ')} from ${q(table)} where ${where}`, values: params, rowMode: 'array' });
    return r.rows as (string | null)[][];
  }

  async template(procInstId: string): Promise<PgTemplate> {
    const globalIds = new Set<string>(['0'.repeat(32)]);
    for (const r of (await this.client.query('select def_id, base_def_id from process_definitions')).rows) {
      globalIds.add(String(r.def_id).toUpperCase());
      globalIds.add(String(r.base_def_id).toUpperCase());
    }
    const tables = await this.tables();
    const cols = new Map<string, { all: string[]; insertable: Column[] }>();
    for (const t of tables) cols.set(t, await this.columnsOf(t));
    const picked: { table: string; columns: Column[]; rows: (string | null)[][] }[] = [];
    const pick = async (table: string, where: string, params: unknown[]) => {
      if (!tables.includes(table)) return [];
      const columns = cols.get(table)!.insertable;
      const rows = await this.rowsAsText(table, columns, where, params);
      picked.push({ table, columns, rows });
      return rows.map((row) => Object.fromEntries(columns.map((c, i) => [c.name, row[i]])));
    };
    const ownIds = new Set<string>([procInstId]);
    const byProc = tables.filter((t) => cols.get(t)!.all.includes('proc_inst_id'));
    const found: Record<string, Record<string, string | null>[]> = {};
    for (const t of byProc) {
      found[t] = await pick(t, 'proc_inst_id = $1', [procInstId]);
      for (const r of found[t]) for (const v of Object.values(r)) if (typeof v === 'string') for (const m of v.matchAll(ID_RE)) if (!globalIds.has(m[0].toUpperCase())) ownIds.add(m[0].toUpperCase());
    }
    const instance = found.process_instances?.[0];
    if (!instance) throw new Error(`no process instance ${procInstId}`);
    const workItems = (found.work_items ?? []).map((r) => r.work_item_id as string);
    const events = (found.events ?? []).map((r) => r.event_id as string);
    if (workItems.length) await pick('work_item_pool', 'work_item_id = any($1::text[])', [workItems]);
    await pick('custom_attributes', 'custom_id = $1', [instance.custom_id]);
    if (tables.includes('audit_trail')) {
      const auditCols = cols.get('audit_trail')!;
      const order = auditCols.all.includes('id') ? ' order by id' : '';
      await pick('audit_trail', `(object_id = any($1::text[]) or event_id = any($2::text[]))${order}`, [[...ownIds], events]);
    }
    // Referenced tables first: foreign keys are checked at the end of each INSERT.
    const refs = await this.client.query(
      `select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
         from pg_constraint c where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`,
    );
    const parents = new Map<string, Set<string>>();
    for (const r of refs.rows) {
      const child = String(r.child).replace(/"/g, '');
      const parent = String(r.parent).replace(/"/g, '');
      if (child !== parent) (parents.get(child) ?? parents.set(child, new Set()).get(child)!).add(parent);
    }
    const ordered: typeof picked = [];
    const placed = new Set<string>();
    const place = (p: (typeof picked)[number], path: Set<string>) => {
      if (placed.has(p.table) || path.has(p.table)) return;
      path.add(p.table);
      for (const parent of parents.get(p.table) ?? []) for (const pp of picked.filter((x) => x.table === parent)) place(pp, path);
      placed.add(p.table);
      ordered.push(p);
    };
    for (const p of picked) place(p, new Set());
    const ids = [...ownIds];
    const slotOf = new Map(ids.map((id, i) => [id, i]));
    const out: PgTableTemplate[] = [];
    let rowsPerCopy = 0;
    for (const { table, columns, rows } of ordered) {
      if (rows.length === 0) continue;
      const slots = new Set<number>();
      const cells = rows.map((row) =>
        row.map((v): Cell => {
          if (v === null || !HAS_ID.test(v)) return { constant: v };
          const parts: Part[] = [];
          let last = 0;
          for (const m of v.matchAll(ID_RE)) {
            const slot = slotOf.get(m[0].toUpperCase());
            if (slot === undefined) continue;
            slots.add(slot);
            parts.push(v.slice(last, m.index), { slot, lower: m[0] !== m[0].toUpperCase() });
            last = m.index! + m[0].length;
          }
          parts.push(v.slice(last));
          return { parts };
        }),
      );
      out.push({ table, columns, rows: cells, slots: [...slots].sort((a, b) => a - b) });
      rowsPerCopy += rows.length;
    }
    const activities = (found.activity_instances ?? []).map((r) => r.id as string);
    return {
      procInstId,
      ids,
      tables: out,
      procInstSlot: slotOf.get(procInstId)!,
      workItemSlots: workItems.map((w) => slotOf.get(w.toUpperCase())!),
      activitySlots: activities.map((a) => slotOf.get(a.toUpperCase())!),
      rowsPerCopy,
    };
  }

  /**
   * `count` copies of the template with fresh time-ordered ids (one millisecond per copy), in
   * transactions of `batch` copies: per table one INSERT ... SELECT over unnest() of the new ids.
   */
  async clone(t: PgTemplate, count: number, opts: { batch?: number; baseTime?: number; deadline?: number } = {}): Promise<CloneResult> {
    const batch = opts.batch ?? 5000;
    const base = opts.baseTime ?? Date.now() - count - 60_000;
    const t0 = performance.now();
    const statements = t.tables.map((tt) => {
      // Slot k of the table is column s<k> of the unnest; the ids arrays are $1..$n in tt.slots order.
      const param = new Map(tt.slots.map((s, i) => [s, i]));
      const expr = (cell: Cell, type: string): string => {
        if ('constant' in cell) return cell.constant === null ? `null::${type}` : `${literal(cell.constant)}::${type}`;
        const pieces = cell.parts
          .filter((p) => p !== '')
          .map((p) => (typeof p === 'string' ? literal(p) : p.lower ? `lower(n.s${param.get(p.slot)})` : `n.s${param.get(p.slot)}`));
        return `(${pieces.join(' || ')})::${type}`;
      };
      const from = tt.slots.length
        ? ` from unnest(${tt.slots.map((_, i) => `$${i + 1}::text[]`).join(', ')}) as n(${tt.slots.map((_, i) => `s${i}`).join(', ')})`
        : ' from generate_series(1, $1::int)';
      const selects = tt.rows.map((row) => `select ${row.map((cell, i) => expr(cell, tt.columns[i].type)).join(', ')}${from}`);
      return { text: `insert into ${q(tt.table)} (${tt.columns.map((c) => q(c.name)).join(', ')}) ${selects.join(' union all ')}`, slots: tt.slots };
    });
    const ids: CopyIds[] = [];
    let done = 0;
    while (done < count) {
      if (opts.deadline !== undefined && performance.now() > opts.deadline) break;
      const n = Math.min(batch, count - done);
      const fresh = t.ids.map(() => new Array<string>(n));
      for (let i = 0; i < n; i++) {
        const ms = base + done + i;
        for (let s = 0; s < fresh.length; s++) fresh[s][i] = newId(ms);
        ids.push({ procInstId: fresh[t.procInstSlot][i], workItemIds: t.workItemSlots.map((s) => fresh[s][i]), activityIds: t.activitySlots.map((s) => fresh[s][i]) });
      }
      await this.client.query('begin');
      try {
        for (const st of statements) await this.client.query(st.text, st.slots.length ? (st.slots.map((s) => fresh[s]) as unknown[]) : [n]);
        await this.client.query('commit');
      } catch (e) {
        await this.client.query('rollback').catch(() => {});
        throw e;
      }
      done += n;
    }
    return { copies: done, seconds: (performance.now() - t0) / 1000, rows: done * t.rowsPerCopy, ids };
  }

  /**
   * A backlog of `Sent` events, as if admitted and not yet applied: copies of a real event aimed at
   * `targets` (see sentEventCopy in seed.ts, shared with the SQLite seeder), inserted 2,000 to a
   * statement through jsonb_populate_recordset, so that each column takes its own type.
   */
  async sentEvents(templateEventId: string, targets: string[], kind: 'workItem' | 'instance'): Promise<number> {
    const r = await this.client.query('select to_jsonb(e) as row from events e where event_id = $1', [templateEventId]);
    const tpl = r.rows[0]?.row as Record<string, unknown> | undefined;
    if (!tpl) throw new Error(`no event ${templateEventId}`);
    const columns = (await this.columnsOf('events')).insertable.map((c) => c.name);
    const places = new Map<string, WorkItemPlace>();
    if (kind === 'workItem') {
      const w = await this.client.query('select work_item_id, proc_inst_id, activity_inst_id from work_items where work_item_id = any($1::text[])', [targets]);
      for (const row of w.rows) places.set(row.work_item_id, { proc_inst_id: row.proc_inst_id, activity_inst_id: row.activity_inst_id });
    }
    const cols = columns.map(q).join(', ');
    const insert = `insert into events (${cols}) select ${cols} from jsonb_populate_recordset(null::events, $1::jsonb)`;
    const now = Date.now();
    await this.client.query('begin');
    try {
      for (let i = 0; i < targets.length; i += 2000) {
        const rows = targets.slice(i, i + 2000).map((target) => {
          const place = kind === 'workItem' ? places.get(target) : undefined;
          if (kind === 'workItem' && !place) throw new Error(`no work item ${target}`);
          const values = sentEventCopy(tpl, columns, target, place, now);
          return Object.fromEntries(columns.map((c, k) => [c, values[k]]));
        });
        await this.client.query(insert, [JSON.stringify(rows)]);
      }
      await this.client.query('commit');
    } catch (e) {
      await this.client.query('rollback').catch(() => {});
      throw e;
    }
    return targets.length;
  }

  /** Register `count` users (no password) as copies of the admin's row, in one statement: LOCAL\user00001... */
  async users(count: number, prefix = 'user'): Promise<void> {
    const columns = (await this.columnsOf('users')).insertable.map((c) => c.name);
    const named: Record<string, string> = {
      user_key: `lower($1 || lpad(n::text, 5, '0'))`,
      user_name: `$1 || lpad(n::text, 5, '0')`,
      full_name: `'Bench user ' || n`,
    };
    const select = columns.map((c) => named[c] ?? `a.${q(c)}`).join(', ');
    await this.client.query(
      `insert into users (${columns.map(q).join(', ')}) select ${select} from users a, generate_series(1, $2::int) n where a.user_key = 'local\\admin'`,
      [`LOCAL\\${prefix}`, count],
    );
  }

  async count(table: string): Promise<number> {
    const r = await this.client.query(`select count(*)::int as n from ${q(table)}`);
    return r.rows[0].n as number;
  }

  async analyze(): Promise<void> {
    await this.client.query('analyze');
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** The write scenario's target groups, copied into a PostgreSQL database (before any load runs on it). */
export async function seedWriteGroupsPg(url: string, t: WriteTemplates, n: { assign: number; undo: number; link: number; cancel: number; complete: number }): Promise<WriteGroups> {
  const seeder = await PgSeeder.open(url);
  try {
    const fresh = await seeder.template(t.newInstance);
    const assigned = await seeder.template(t.assignedInstance);
    let seconds = 0;
    let rows = 0;
    const clone = async (tpl: PgTemplate, count: number) => {
      if (count <= 0) return [];
      const r = await seeder.clone(tpl, count);
      seconds += r.seconds;
      rows += r.rows;
      return r.ids;
    };
    const wis = (c: CopyIds[]) => c.map((x) => x.workItemIds[0]);
    const groups: WriteGroups = {
      assign: wis(await clone(fresh, n.assign)),
      undo: wis(await clone(assigned, n.undo)),
      link: wis(await clone(fresh, n.link)),
      cancel: (await clone(fresh, n.cancel)).map((x) => x.procInstId),
      complete: wis(await clone(assigned, n.complete)),
      seedSeconds: seconds,
      seedRows: rows,
    };
    // Fresh statistics, so the server's first plans see the seeded tables as they are.
    const a0 = performance.now();
    await seeder.analyze();
    seconds += (performance.now() - a0) / 1000;
    log(`  seeded write targets into PostgreSQL: ${rows} rows in ${seconds.toFixed(1)} s (${Math.round(rows / seconds)} rows/s, analyze included)`);
    return { ...groups, seedSeconds: seconds };
  } finally {
    await seeder.close();
  }
}
