/**
 * Baseline (3), run as its own process: bpmn-engine executes the benchmark BPMN in memory, no
 * persistence; every user task is signalled as soon as it waits (the in-memory equivalent of
 * claim + complete). The model is parsed once (as Waymark caches its parsed models) and each
 * instance is a new Engine on the serialized context. Prints one JSON line.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Engine } from 'bpmn-engine';

const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 50);
const source = process.env.BENCH_BPMN!;
// The package does not export its package.json: read it next to its main file (lib/index.cjs).
const main = createRequire(import.meta.url).resolve('bpmn-engine');
const version = JSON.parse(fs.readFileSync(path.join(path.dirname(main), '..', 'package.json'), 'utf8')).version as string;

// Parse and serialize once: _serializeSource is what Engine does with `source` on every execute.
const sourceContext = await (new Engine({}) as any)._serializeSource(source);

async function one(): Promise<void> {
  const listener = new EventEmitter();
  listener.on('wait', (api: any) => api.signal());
  const engine = new Engine({ name: 'bench', sourceContext } as any);
  const end = engine.waitFor('end');
  await engine.execute({ listener });
  await end;
}

// Warm up the JIT, then measure.
const warmEnd = performance.now() + 1000;
while (performance.now() < warmEnd) await one();
let completed = 0;
// The process's CPU over the measured window, all its threads (GC helpers included): what one
// instance costs bpmn-engine, to compare with Waymark's CPU per instance (bench/scenarios/e2e.ts).
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const stopAt = t0 + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < stopAt) {
      await one();
      completed++;
    }
  }),
);
const s = (performance.now() - t0) / 1000;
const used = process.cpuUsage(cpu0);
const cpuUs = used.user + used.system;
console.log(JSON.stringify({ instancesPerSec: completed / s, completed, seconds: s, concurrency, version, cpuUsPerInstance: cpuUs / completed, cores: cpuUs / 1e6 / s }));
