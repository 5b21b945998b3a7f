/** Starts the bare-Fastify baseline (bareServer.ts), and other baseline servers, as child processes. */
import { fork } from 'node:child_process';
import path from 'node:path';
import type { Reply } from './api.ts';
import { ADMIN, ADMIN_PASSWORD } from './util.ts';

export interface BareRoute {
  method: 'GET' | 'POST';
  /** Fastify route pattern, e.g. /EngineServer/Workflow/GetActivityInst/:id */
  url: string;
  status: number;
  contentType: string | null;
  headers: Record<string, string>;
  body: string;
}

export interface BareServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Headers of a real answer worth replaying (same names and value lengths), minus the per-connection ones. */
export function cannedHeaders(real: Reply): { contentType: string | null; headers: Record<string, string> } {
  const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'content-type']);
  const headers: Record<string, string> = {};
  real.headers.forEach((v, k) => {
    if (!skip.has(k)) headers[k] = v;
  });
  return { contentType: real.headers.get('content-type'), headers };
}

/** A route answering with a canned copy of a real reply (same status, headers, body bytes). */
export function cannedRoute(method: 'GET' | 'POST', url: string, real: Reply): BareRoute {
  return { method, url, status: real.status, body: real.text, ...cannedHeaders(real) };
}

/** @param wrapper a program that runs node (e.g. valgrind and its flags), as in ServerOptions. */
export function startBare(routes: BareRoute[], wrapper?: string[]): Promise<BareServer> {
  return startChildServer('bareServer.ts', { routes, expected: `${ADMIN}:${ADMIN_PASSWORD}` }, wrapper);
}

/**
 * Forks `script` (a file of bench/lib), hands it `init` once it is ready, and resolves with the
 * URL it listens on (the baselines' servers: bareServer.ts, e2eFloorServer.ts).
 */
export async function startChildServer(script: string, init: unknown, wrapper?: string[]): Promise<BareServer> {
  const execArgv = wrapper ? [...wrapper.slice(1), process.execPath, '--import', 'tsx'] : ['--import', 'tsx'];
  const child = fork(path.join(import.meta.dirname, script), [], { execPath: wrapper?.[0], execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  child.send(init as object);
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m.url));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: url.replace('localhost', '127.0.0.1'),
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exit;
    },
  };
}
