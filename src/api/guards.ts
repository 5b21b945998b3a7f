/**
 * Hooks that run before any operation: shutdown refusal, cross-site refusal (CORS for configured
 * origins) and Basic authentication. Every path, known or not, authenticates.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WaymarkError } from '../domain/errors.ts';
import type { Caller } from '../engine/accessPolicy.ts';
import { unauthenticated } from '../engine/Authenticator.ts';
import type { Engine } from '../engine/Engine.ts';
import { sendProblem } from './problem.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

export interface GuardOptions {
  allowedOrigins: string[];
  /** True while the server drains: new requests get 503. */
  isDraining: () => boolean;
}

const MAX_CREDENTIALS = 2048;

export function registerGuards(app: FastifyInstance, engine: Engine, opts: GuardOptions): void {
  app.decorateRequest('caller', null);
  // Synchronous (callback) hook: a cached login resolves without a promise; only a login that
  // needs the database or scrypt continues asynchronously.
  app.addHook('onRequest', (request, reply, done) => {
    if (opts.isDraining()) {
      reply.header('Connection', 'close');
      sendProblem(reply, new WaymarkError('ServiceUnavailable', 'The server is shutting down; retry on another node or shortly.', { 'Retry-After': '5' }));
      return;
    }
    const crossSite = crossSiteProblem(request, reply, opts.allowedOrigins);
    if (crossSite === 'preflight') {
      reply.code(204).send();
      return;
    }
    if (crossSite) {
      sendProblem(reply, crossSite);
      return;
    }
    let caller: Caller | Promise<Caller>;
    try {
      caller = authenticate(engine, request);
    } catch (e) {
      // Refused a microtask later, as the async hook did: a request whose body is malformed HTTP
      // still gets the HTTP parser's 400 (clientErrors.ts), not a 401 or 429, first.
      queueMicrotask(() => done(e as Error));
      return;
    }
    if (caller instanceof Promise) {
      caller.then((c) => {
        request.caller = c;
        done();
      }, done);
      return;
    }
    request.caller = caller;
    done();
  });
}

function authenticate(engine: Engine, request: FastifyRequest): Caller | Promise<Caller> {
  const header = request.headers.authorization;
  if (!header) throw unauthenticated();
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match || match[1].length > MAX_CREDENTIALS) throw unauthenticated('The Authorization header must be Basic base64(DOMAIN\\user:password).');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw unauthenticated('The Basic credentials must be DOMAIN\\user:password.');
  return engine.auth.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1), request.ip);
}

/**
 * Browsers send Origin / Sec-Fetch-Site. A request from another site is refused unless its origin
 * is configured in WAYMARK_ALLOWED_ORIGINS; same-origin requests and non-browser clients pass.
 */
function crossSiteProblem(request: FastifyRequest, reply: FastifyReply, allowed: string[]): WaymarkError | 'preflight' | null {
  const origin = request.headers.origin;
  const allowedOrigin = typeof origin === 'string' && allowed.includes(origin);
  if (allowedOrigin) {
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Allow-Credentials', 'true');
    reply.header('Vary', 'Origin');
    if (request.method === 'OPTIONS') {
      reply.header('Access-Control-Allow-Methods', 'GET, POST');
      reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Prefer, appID, locale');
      reply.header('Access-Control-Max-Age', '600');
      return 'preflight';
    }
    return null;
  }
  const site = request.headers['sec-fetch-site'];
  const sameOrigin = typeof origin === 'string' && origin === ownOrigin(request);
  if (site === 'cross-site' || (typeof origin === 'string' && origin !== 'null' && !sameOrigin) || origin === 'null') {
    return new WaymarkError('CrossSiteRequest', 'Requests from other web sites are refused; add the site to WAYMARK_ALLOWED_ORIGINS to allow it.');
  }
  return null;
}

function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? ''}`;
}
