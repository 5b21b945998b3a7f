/**
 * Registers every operation under every root (`EngineServer`, `EngineService`, aliases), answers
 * 405 with Allow for a known path with the wrong verb, and 404 otherwise.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WaymarkError } from '../domain/errors.ts';
import { JsonText } from '../domain/jsonText.ts';
import type { Engine } from '../engine/Engine.ts';
import { requestContext } from '../engine/requestContext.ts';
import { toWFEvent } from '../engine/records.ts';
import type { EventRow } from '../store/queries/events.ts';
import { canonicalBody } from './bodies.ts';
import { itemJson, ListStream } from './listStream.ts';
import type { Operation, OperationContext } from './Operation.ts';
import { sendProblem } from './problem.ts';
import { wfEventSchema } from './schemas.ts';

export const ROOTS = ['EngineServer', 'EngineService'] as const;
const MAX_WAIT_SECONDS = 30;

export function registerOperations(app: FastifyInstance, engine: Engine, operations: Operation[], aliases: string[]): void {
  const roots = [...ROOTS, ...aliases];
  const known = new Map<string, { methods: Set<string>; params: number }>();
  for (const op of operations) {
    const memo: Memo = { version: '', body: null };
    for (const [i, root] of roots.entries()) {
      const url = `/${root}/${op.area}/${op.name}${(op.params ?? []).map((p) => `/:${p}`).join('')}`;
      app.route({
        method: op.method,
        url,
        schema: {
          hide: i > 0,
          tags: [op.area],
          summary: op.summary,
          operationId: i === 0 ? op.name : undefined,
          ...(op.body && op.method === 'POST' ? { body: op.body } : {}),
          response: op.reply === 'event' ? { 200: wfEventSchema } : undefined,
        },
        // GET bodies are never read (Fastify does not parse them; the handler passes {}), so GET
        // routes skip this hook; POST runs it synchronously, without a promise.
        ...(op.method === 'POST'
          ? {
              preValidation: (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
                try {
                  request.body = canonicalBody(request.body, op.body);
                } catch (e) {
                  done(e as Error);
                  return;
                }
                done();
              },
            }
          : {}),
        handler: op.runNow && (op.reply === 'wrapped' || op.reply === 'bare') ? (request, reply) => handleNow(engine, op, memo, request, reply) : (request, reply) => handle(engine, op, memo, request, reply),
      });
      const key = `/${root}/${op.area}/${op.name}`.toLowerCase();
      const entry = known.get(key) ?? { methods: new Set<string>(), params: op.params?.length ?? 0 };
      entry.methods.add(op.method);
      known.set(key, entry);
    }
  }
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(known, request.url);
    if (allowed) {
      reply.header('Allow', allowed);
      return sendProblem(reply, new WaymarkError('MethodNotAllowed', `${request.method} is not allowed here; use ${allowed}.`));
    }
    return sendProblem(reply, new WaymarkError('NotFound', `There is no operation at ${request.method} ${pathOf(request.url).slice(0, 200)}.`));
  });
}

/** The last answer of an operation with a `version`, and its token (body null: none kept). */
interface Memo {
  version: string;
  /** Kept as bytes: sending a string would encode it to UTF-8 again for every answer. */
  body: Buffer | null;
}

/**
 * A read answered at once when the engine has its result without waiting (Operation.runNow): no
 * promise on the way, which under the request's AsyncLocalStorage scope also means no promise hook
 * (GetActivityInst: 228 → 200 thousand instructions per request, `npm run bench -- instructions`,
 * docs/performance-log.md, sixteenth round). Errors it
 * throws reach the error handler as the awaited path's do.
 */
function handleNow(engine: Engine, op: Operation, memo: Memo, request: FastifyRequest, reply: FastifyReply): unknown {
  const caller = request.caller;
  if (!caller) throw new Error('authentication hook did not run');
  const body = (request.body ?? {}) as Record<string, unknown>;
  const result = op.runNow!({ engine, caller, params: request.params as Record<string, string>, body, request, reply });
  if (result === undefined) return handle(engine, op, memo, request, reply);
  if (op.reply === 'bare' && result instanceof JsonText) reply.type('application/json; charset=utf-8').send(result.text);
  else sendWrapped(op, reply, result);
  // Nothing returned: the answer is sent (returning the reply would make Fastify await its `then`).
  return undefined;
}

function sendWrapped(op: Operation, reply: FastifyReply, result: unknown): FastifyReply {
  reply.type('application/json; charset=utf-8');
  const key = op.resultKey ?? `${op.name}Result`;
  // A result already in JSON text (the `…Now` reads' records, written by SQLite) goes in as is.
  if (result instanceof JsonText) return reply.send(`{${JSON.stringify(key)}:${result.text}}`);
  return reply.send(JSON.stringify({ [key]: result }));
}

async function handle(engine: Engine, op: Operation, memo: Memo, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const caller = request.caller;
  if (!caller) throw new Error('authentication hook did not run');
  const ctx = {
    engine,
    caller,
    params: request.params as Record<string, string>,
    body: (request.body ?? {}) as Record<string, unknown>,
    request,
    reply,
  };
  if (op.version) return sendVersioned(op, memo, ctx, await op.version(ctx));
  const waitSeconds = op.reply === 'event' ? preferredWait(request) : null;
  if (waitSeconds !== null) {
    const scope = requestContext.getStore();
    if (scope) scope.waitsForEvent = true;
  }
  const result = await op.run(ctx);
  if (op.reply === 'wrapped') return sendWrapped(op, reply, result);
  reply.type('application/json; charset=utf-8');
  switch (op.reply) {
    case 'bare':
      return reply.send(JSON.stringify(result ?? null));
    case 'empty':
      // No body, so no Content-Type: an empty string is not a JSON document.
      reply.removeHeader('content-type');
      return reply.send();
    case 'event':
      if (result === null) return reply.send('null');
      if (waitSeconds === null) return reply.send(JSON.stringify(toWFEvent(result as EventRow)));
      reply.header('Preference-Applied', `wait=${waitSeconds}`);
      return reply.send(JSON.stringify(toWFEvent(await engine.awaitEvent(result as EventRow, waitSeconds))));
    case 'stream':
      return reply.send(await wrappedList(`${op.name}Result`, result as AsyncGenerator<unknown[]>, reply.raw));
  }
}

/**
 * A list answer kept in memory while its version holds (GetRegisterUsers: the user directory,
 * until a user changes). Built anew, 100 users cost about 0.4 ms of reading, mapping and
 * serialising per call, which held `bench reads` at 0.09-0.11x bare Fastify. Only an answer that
 * fits in one body (ONE_BODY_LIMIT) is kept, as bytes: sent as a string, each answer was encoded
 * to UTF-8 again, 30 KB of new memory per call (at 6,000 calls/s, 180 MB/s for the collector).
 * A longer one streams every time.
 */
async function sendVersioned(op: Operation, memo: Memo, ctx: OperationContext, version: string): Promise<unknown> {
  const { reply } = ctx;
  reply.type('application/json; charset=utf-8');
  if (memo.body !== null && memo.version === version) return reply.send(memo.body);
  const body = await wrappedList(`${op.name}Result`, (await op.run(ctx)) as AsyncGenerator<unknown[]>, reply.raw);
  if (typeof body !== 'string') return reply.send(body);
  memo.version = version;
  memo.body = Buffer.from(body, 'utf8');
  return reply.send(memo.body);
}

/** `Prefer: wait=N`: answer once the event is final, or after N seconds (at most 30); null: no wait. */
function preferredWait(request: FastifyRequest): number | null {
  const prefer = request.headers.prefer;
  if (typeof prefer !== 'string') return null;
  const match = /(?:^|[,;\s])wait\s*=\s*(\d{1,6})/i.exec(prefer);
  return match ? Math.min(Number(match[1]), MAX_WAIT_SECONDS) : null;
}

/** Above this many characters a list answer is streamed instead of sent as one body. */
const ONE_BODY_LIMIT = 64 * 1024;

/**
 * `{"<key>":[...]}` from pages of items. A list that fits ONE_BODY_LIMIT is sent as one string
 * with Content-Length, in one socket write; a longer one is streamed (chunked) in pieces of
 * PIECE_BYTES written into reused buffers (listStream.ts), so a large list is never held in
 * memory at once. Streaming every list cost 4-5 socket writes and an async generator per answer:
 * GetRegisterUsers with 100 users (30 KB) ran at 0.06x bare Fastify in `bench reads`. The first
 * page is pulled before anything is sent, so rights are checked (and can fail with a proper
 * status) before the 200 goes out.
 */
async function wrappedList(key: string, pages: AsyncGenerator<unknown[]>, response: ServerResponse): Promise<string | Readable> {
  let body = `{${JSON.stringify(key)}:[`;
  let first = true;
  for (let page = await pages.next(); !page.done; page = await pages.next()) {
    for (const item of page.value) {
      body += first ? itemJson(item) : `,${itemJson(item)}`;
      first = false;
    }
    if (body.length > ONE_BODY_LIMIT) return new ListStream(body, first, pages, response);
  }
  return `${body}]}`;
}

function allowedMethods(known: Map<string, { methods: Set<string>; params: number }>, url: string): string | null {
  const segments = pathOf(url).split('/').filter((s) => s !== '');
  if (segments.length < 3) return null;
  const entry = known.get(`/${segments.slice(0, 3).join('/')}`.toLowerCase());
  if (!entry || entry.params !== segments.length - 3) return null;
  return [...entry.methods].sort().join(', ');
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
