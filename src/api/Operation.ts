import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../engine/accessPolicy.ts';
import type { Engine } from '../engine/Engine.ts';
import type { JsonSchemaObject } from './bodies.ts';

/**
 * One operation of the interface: path, verb, body schema, and how its result goes on the wire.
 * - wrapped: GET result as `{"<Name>Result": value}`
 * - bare: POST result as is
 * - empty: 200 with an empty body
 * - event: a WFEvent row (honours `Prefer: wait`), bare
 * - stream: a wrapped array produced lazily, a page of items at a time (large lists)
 */
export interface Operation {
  name: string;
  area: 'Workflow' | 'Admin';
  method: 'GET' | 'POST';
  params?: string[];
  body?: JsonSchemaObject;
  reply: 'wrapped' | 'bare' | 'empty' | 'event' | 'stream';
  /** Wrapper key when it differs from `<name>Result`. */
  resultKey?: string;
  summary: string;
  run(ctx: OperationContext): Promise<unknown>;
  /**
   * A 'wrapped' or 'bare' read's result at once, where the engine has it without waiting
   * (Engine's `…Now` reads), or undefined: then `run` answers. Its route answers without a
   * promise. A JsonText result (records SQLite wrote as JSON) goes into the answer as it is.
   */
  runNow?(ctx: OperationContext): unknown;
  /**
   * A 'stream' answer that may be served from memory: a token that changes whenever the answer
   * would (checking the caller's rights first). An answer that fits in one body is kept with its
   * token and sent again while the token is unchanged.
   */
  version?(ctx: OperationContext): Promise<string>;
}

export interface OperationContext {
  engine: Engine;
  caller: Caller;
  params: Record<string, string>;
  body: Record<string, unknown>;
  request: FastifyRequest;
  reply: FastifyReply;
}
