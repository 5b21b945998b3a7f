/** The Fastify application: hooks, routes, error handling, the OpenAPI document. */
import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Logger } from 'pino';
import type { Engine } from '../engine/Engine.ts';
import { adminOperations } from './admin/adminOperations.ts';
import { BODY_LIMIT, registerJsonParser } from './bodies.ts';
import { registerGuards } from './guards.ts';
import { errorHandler } from './problem.ts';
import { registerOperations } from './routes.ts';
import { workflowOperations } from './workflow/workflowOperations.ts';

export interface AppOptions {
  engine: Engine;
  logger: Logger;
  rootAliases: string[];
  allowedOrigins: string[];
}

export interface WaymarkApp {
  app: FastifyInstance;
  /** Start refusing new requests with 503 (graceful shutdown). */
  drain(): void;
}

export const OPERATIONS = [...workflowOperations, ...adminOperations];

export async function buildApp(opts: AppOptions): Promise<WaymarkApp> {
  let draining = false;
  const app = Fastify({
    loggerInstance: opts.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 1024 },
    exposeHeadRoutes: false,
    return503OnClosing: false,
    requestIdHeader: false,
    genReqId: () => crypto.randomBytes(8).toString('hex'),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, allowUnionTypes: true } },
  });
  app.setErrorHandler(errorHandler);
  registerJsonParser(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Cache-Control', 'no-store');
    reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    reply.header('Referrer-Policy', 'no-referrer');
  });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Waymark', description: 'Workflow engine REST interface (AgilePoint NX family).', version: '0.1.0' },
      components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
      security: [{ basic: [] }],
    },
  });
  registerGuards(app, opts.engine, { allowedOrigins: opts.allowedOrigins, isDraining: () => draining });
  registerOperations(app, opts.engine, OPERATIONS, opts.rootAliases);
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()));
  return {
    app,
    drain: () => {
      draining = true;
    },
  };
}
