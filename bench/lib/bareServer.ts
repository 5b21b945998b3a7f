/**
 * Baseline (1): a bare Fastify app, in its own process, that answers each benchmarked path with a
 * canned body of the same size as the real answer, after the same kind of Basic check (decode the
 * header, compare with a constant). No database, no engine: the floor that HTTP + Fastify +
 * auth-header parsing costs on this machine.
 */
import Fastify from 'fastify';
import type { BareRoute } from './bare.ts';

process.once('message', async (msg: { routes: BareRoute[]; expected: string }) => {
  const app = Fastify({ logger: false });
  app.addHook('onRequest', async (request, reply) => {
    const h = request.headers.authorization;
    const ok = typeof h === 'string' && /^basic /i.test(h) && Buffer.from(h.slice(6).trim(), 'base64').toString('utf8') === msg.expected;
    if (!ok) return reply.code(401).header('www-authenticate', 'Basic realm="Waymark"').send({ code: 'Unauthenticated' });
  });
  for (const r of msg.routes) {
    const body = r.body;
    app.route({
      method: r.method,
      url: r.url,
      handler: (_request, reply) => {
        reply.code(r.status).headers(r.headers);
        if (r.contentType) reply.type(r.contentType);
        return reply.send(body);
      },
    });
  }
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.send!({ url: address });
});
process.send!({ ready: true });
