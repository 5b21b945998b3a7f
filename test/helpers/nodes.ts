/**
 * Waymark servers as real child processes (`node bin/waymark.js serve`), for tests that kill,
 * restart or run several nodes side by side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { after } from 'node:test';

export const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'waymark.js');

export interface NodeProcess {
  url: string;
  child: ChildProcess;
  log(): string;
  /** SIGTERM and wait; resolves the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash) and wait. */
  kill(): Promise<void>;
}

const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Start `waymark serve` with `env` (bin: another script that serves); resolves once it answers HTTP. */
export async function startNode(env: Record<string, string>, opts: { bin?: string } = {}): Promise<NodeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [opts.bin ?? BIN, 'serve'], {
    // Event-loop-delay shedding off unless a test asks for it: test files share two busy cores.
    env: { ...process.env, WAYMARK_LOG_LEVEL: 'info', WAYMARK_MAX_EVENT_LOOP_DELAY_MS: '0', WAYMARK_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  let log = '';
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(url);
      break;
    } catch {
      if (i > 400 || child.exitCode !== null) throw new Error(`node did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    child,
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** CreateProcInst of a released process on a node, waiting (Prefer: wait=10) for its event to be final. */
export function createProcInstAndWait(url: string, headers: Record<string, string>, processId: string): Promise<Response> {
  return fetch(`${url}/EngineServer/Workflow/CreateProcInst`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', prefer: 'wait=10' },
    body: JSON.stringify({ ProcessID: processId }),
  });
}
