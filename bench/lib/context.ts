/** What scenarios share: result rows, the run context (servers, load generator, profiles). */
import fs from 'node:fs';
import path from 'node:path';
import { LoadGenerator } from './load.ts';
import { PgHost } from './pg.ts';
import { formatProfile, newestProfile, summarizeProfile, type ProfileSummary } from './profile.ts';
import { startServer, type ServerHandle, type ServerOptions } from './server.ts';
import { RESULTS, busyness, log, removeDir } from './util.ts';

export interface Row {
  scenario: string;
  metric: string;
  figure: number | null;
  unit: string;
  baseline?: number | null;
  baselineName?: string;
  /** figure / baseline (or as the target defines it). */
  ratio?: number | null;
  target: string;
  /** null: informational, no target. */
  met: boolean | null;
  note?: string;
}

export interface ScenarioResult {
  name: string;
  rows: Row[];
  /** Figures other scenarios use (max rates, empty-database figures) and raw measurements. */
  data: Record<string, any>;
  seconds: number;
  profiles?: ProfileSummary[];
  error?: string;
  /** Load average and CPU pressure at the start and the end (noise from other processes). */
  busy?: { before: ReturnType<typeof busyness>; after: ReturnType<typeof busyness> };
}

export interface Scenario {
  name: string;
  title: string;
  /** Scenarios whose figures this one needs (run first when missing). */
  needs?: string[];
  run(ctx: Ctx): Promise<Omit<ScenarioResult, 'name' | 'seconds'>>;
}

export class Ctx {
  readonly results = new Map<string, ScenarioResult>();
  private readonly servers = new Set<ServerHandle>();
  private readonly dirs = new Set<string>();
  private profiles: ProfileSummary[] = [];
  current = '';
  private loadGen: LoadGenerator | null = null;
  /** The PostgreSQL cluster, started by the first scenario that asks for it, stopped by close(). */
  readonly pg = new PgHost(() => {
    // Ctrl-C or SIGTERM: no server may outlive the run (nor keep retrying a stopped database).
    for (const s of this.servers) {
      try {
        process.kill(s.pid, 'SIGKILL');
      } catch {}
    }
    this.loadGen?.close();
  });

  constructor(
    readonly opts: { profile: boolean; keep: boolean; serverEnv?: Record<string, string> },
    private readonly registry: Map<string, Scenario>,
  ) {}

  async load(): Promise<LoadGenerator> {
    this.loadGen ??= await LoadGenerator.start();
    return this.loadGen;
  }

  /** Run a scenario once per run (dependencies included); later calls return the same result. */
  async require(name: string): Promise<ScenarioResult> {
    const done = this.results.get(name);
    if (done) return done;
    const scenario = this.registry.get(name);
    if (!scenario) throw new Error(`unknown scenario ${name}`);
    for (const dep of scenario.needs ?? []) await this.require(dep);
    const outer = this.current;
    const outerProfiles = this.profiles;
    this.current = name;
    this.profiles = [];
    log(`=== ${name}: ${scenario.title}`);
    const t0 = performance.now();
    const before = busyness();
    let result: ScenarioResult;
    try {
      const r = await scenario.run(this);
      result = { name, ...r, seconds: (performance.now() - t0) / 1000, profiles: this.profiles.length ? this.profiles : undefined };
    } catch (e) {
      log(`${name} failed: ${(e as Error).stack}`);
      result = {
        name,
        rows: [{ scenario: name, metric: 'FAILED', figure: null, unit: '', target: '', met: false, note: (e as Error).message.split('\n')[0] }],
        data: {},
        seconds: (performance.now() - t0) / 1000,
        error: (e as Error).stack,
      };
    } finally {
      await this.cleanup();
      this.current = outer;
    }
    this.profiles = outerProfiles;
    result.busy = { before, after: busyness() };
    log(`=== ${name} done in ${result.seconds.toFixed(1)} s (load ${before.load1} -> ${result.busy.after.load1}, CPU pressure avg60 ${result.busy.after.cpuSomeAvg60}%)`);
    this.results.set(name, result);
    return result;
  }

  /** Start a server; with --profile it runs under node --cpu-prof (profile summarised on stop). */
  async startServer(label: string, opts: ServerOptions = {}): Promise<ServerHandle> {
    const profileDir = this.opts.profile ? path.join(RESULTS, 'profiles', `${this.current}-${label}`) : undefined;
    if (profileDir) removeDir(profileDir);
    const s = await startServer({ ...opts, env: { ...this.opts.serverEnv, ...opts.env }, profileDir });
    if (!opts.dataDir) this.dirs.add(s.dataDir);
    this.servers.add(s);
    const stop = s.stop.bind(s);
    s.stop = async () => {
      await stop();
      this.servers.delete(s);
      if (profileDir) {
        const file = newestProfile(profileDir);
        if (file) {
          const summary = summarizeProfile(file, 30);
          this.profiles.push(summary);
          log(`\n${formatProfile(summary)}`);
        }
      }
    };
    return s;
  }

  /** A directory removed at the end of the scenario (unless --keep). */
  track(dir: string): string {
    this.dirs.add(dir);
    return dir;
  }

  private async cleanup(): Promise<void> {
    for (const s of [...this.servers]) await s.stop().catch(() => {});
    if (!this.opts.keep) for (const d of this.dirs) removeDir(d);
    else for (const d of this.dirs) log(`kept ${d}`);
    this.dirs.clear();
  }

  close(): void {
    this.loadGen?.close();
    this.pg.stop();
  }
}

export function ensureResultsDir(): void {
  fs.mkdirSync(RESULTS, { recursive: true });
}
