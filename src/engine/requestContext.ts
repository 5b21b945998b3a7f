/**
 * The request a piece of work runs for, so that every log line written while serving a request
 * carries its `reqId` (the `X-Request-Id` of the response), also lines written by the engine
 * through its own logger. The API enters the context for each request; background work (the
 * dispatcher) is started outside it, so its lines are never attributed to a request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestScope {
  reqId: string;
  /**
   * The request will wait for the event it admits to be final (`Prefer: wait`): set by the API
   * before the operation runs, so that the writer thread answers with the final row where it has
   * it (finalRows.ts).
   */
  waitsForEvent?: boolean;
}

export const requestContext = new AsyncLocalStorage<RequestScope>();

/** Whether the current request waits for the event it admits (RequestScope.waitsForEvent). */
export function requestWaitsForEvent(): boolean {
  return requestContext.getStore()?.waitsForEvent === true;
}

/** Run `fn` outside any request: work it starts does not inherit the caller's request id. */
export function outsideRequest<T>(fn: () => T): T {
  return requestContext.exit(fn);
}

/**
 * A pino `mixin`: adds the current request's `reqId` to a line unless the logger already binds
 * one (Fastify's request logger does).
 */
export function requestIdMixin(_merge: object, _level: number, logger?: { bindings(): Record<string, unknown> }): Record<string, unknown> {
  const scope = requestContext.getStore();
  if (!scope) return {};
  if (logger && 'reqId' in logger.bindings()) return {};
  return { reqId: scope.reqId };
}
