/** The Fastify application: hooks, routes, error handling, the OpenAPI document. */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Logger } from 'pino';
import { WaymarkError } from '../domain/errors.ts';
import type { Engine } from '../engine/Engine.ts';
import { requestContext, type RequestScope } from '../engine/requestContext.ts';
import { adminOperations } from './admin/adminOperations.ts';
import { registerAnswerCoalescing } from './answerCoalescing.ts';
import { clientErrorHandler } from './clientErrors.ts';
import { securityHeaders } from './securityHeaders.ts';
import { BODY_LIMIT, registerJsonParser } from './bodies.ts';
import { registerGuards } from './guards.ts';
import { registerLoadShedding, type SheddingOptions } from './loadShedding.ts';
import { errorHandler, sendProblem } from './problem.ts';
import { nextRequestId } from './requestIds.ts';
import { registerOperations } from './routes.ts';
import { queryOperations } from './queryOperations.ts';
import { workflowOperations } from './workflow/workflowOperations.ts';

export interface AppOptions {
  engine: Engine;
  logger: Logger;
  rootAliases: string[];
  allowedOrigins: string[];
  /** PEM certificate and key: serve HTTPS (with HSTS) instead of HTTP. */
  tls?: { cert: Buffer; key: Buffer } | null;
  /** Overload protection; defaults to DEFAULT_SHEDDING. */
  shedding?: SheddingOptions;
}

/**
 * Event-loop delay 50 ms: at the maximum closed-loop read rate (50 connections) the mean delay
 * stays far below it (no 503 in `bench reads`); at three times that rate it sheds (`bench
 * overload`, docs/reliability.md). In-flight 128: mostly for writes, which wait for a commit.
 */
export const DEFAULT_SHEDDING: SheddingOptions = { maxEventLoopDelayMs: 50, maxInFlight: 128 };

export interface WaymarkApp {
  app: FastifyInstance;
  /** Start refusing new requests with 503 (graceful shutdown). */
  drain(): void;
}

export const OPERATIONS = [...workflowOperations, ...queryOperations, ...adminOperations];

export async function buildApp(opts: AppOptions): Promise<WaymarkApp> {
  let draining = false;
  const tls = opts.tls ? { cert: opts.tls.cert, key: opts.tls.key } : null;
  const headers = securityHeaders(tls !== null);
  const app = Fastify({
    https: tls,
    clientErrorHandler: clientErrorHandler(opts.logger as unknown as FastifyBaseLogger, tls !== null),
    // A path with broken percent-encoding never reaches a route: answer it like any other 400.
    frameworkErrors: (_error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      reply.headers(headers);
      sendProblem(reply, new WaymarkError('InvalidRequest', 'The path is not a valid URL: a % is not followed by two hexadecimal digits of UTF-8.'));
    },
    loggerInstance: opts.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // request.log is the server's logger itself, not a child made per request: the logger's mixin
    // (logger.ts) already puts the request's id on every line written while serving it. The child
    // cost 1.5 % of the request thread in `bench e2e` (pino re-parsing the redaction paths and
    // serialising the binding for every request), for lines that are rarely written.
    childLoggerFactory: (logger) => logger,
    bodyLimit: BODY_LIMIT,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 1024 },
    exposeHeadRoutes: false,
    return503OnClosing: false,
    requestIdHeader: false,
    genReqId: nextRequestId,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, allowUnionTypes: true } },
  }) as unknown as FastifyInstance;
  // First hook, synchronous: the answer's constant headers and X-Request-Id (set once, here, so
  // that every later answer, also a refusal or an error, carries them), the %00 check, and the
  // request scope: everything logged while serving the request, also by the engine, carries its
  // id. One sync hook instead of two async onRequest hooks and an async onSend hook: three
  // promises and a hook pass per request fewer (bench reads profile, docs/performance-log.md).
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    reply.header('X-Request-Id', request.id);
    const scope: RequestScope = { reqId: request.id, waitsForEvent: false };
    if (!request.url.includes('%00')) return requestContext.run(scope, done);
    // Refused a microtask later, as the async hook did: a request whose body is malformed HTTP
    // behind this path still gets the HTTP parser's 400 (clientErrors.ts) first.
    requestContext.run(scope, () => queueMicrotask(() => done(new WaymarkError('InvalidRequest', 'The path must not contain the NUL character (%00).'))));
  });
  app.setErrorHandler(errorHandler);
  registerJsonParser(app);
  await app.register(swagger, {
    openapi: {
      info: { title: 'Waymark', description: 'Workflow engine REST interface (AgilePoint NX family).', version: '0.1.0' },
      components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
      security: [{ basic: [] }],
    },
  });
  await registerLoadShedding(app, opts.shedding ?? DEFAULT_SHEDDING);
  registerGuards(app, opts.engine, { allowedOrigins: opts.allowedOrigins, isDraining: () => draining });
  // Answers leave together at the end of each turn of the event loop (answerCoalescing.ts); after
  // the other onSend hooks, which run when the answer is made.
  registerAnswerCoalescing(app);
  registerOperations(app, opts.engine, OPERATIONS, opts.rootAliases);
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()));
  return {
    app,
    drain: () => {
      draining = true;
    },
  };
}
