/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a malformed request line or
 * header, headers over the size limit, a bad chunked body) still get an RFC 9457 problem body,
 * a request id and the security headers, like every other answer.
 */
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { problemOf } from './problem.ts';
import { nextRequestId } from './requestIds.ts';
import { securityHeaders } from './securityHeaders.ts';

export function clientErrorHandler(log: FastifyBaseLogger, tls: boolean) {
  return (err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const reqId = nextRequestId();
    log.debug({ reqId, code: err.code }, 'malformed request refused');
    const detail =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are larger than the server accepts.'
        : 'The request is not valid HTTP/1.1 (request line, headers or chunked body).';
    const body = JSON.stringify(problemOf('InvalidRequest', detail, reqId));
    const headers = {
      'Content-Type': 'application/problem+json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
      'X-Request-Id': reqId,
      ...securityHeaders(tls),
    };
    const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 400 Bad Request\r\n${head}\r\n${body}`);
  };
}
