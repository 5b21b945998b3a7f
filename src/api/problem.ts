/**
 * The one error handler: every non-2xx answer is an RFC 9457 problem body
 * (`application/problem+json`) with a stable `code` (WIRE.md §Errors). No stack, no SQL, no paths.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, WaymarkError, isWaymarkError, type ErrorCode } from '../domain/errors.ts';
import { isUnavailableDbError, isUniqueViolation } from '../domain/dbErrors.ts';

export const PROBLEM_BASE = 'https://waymark.dev/problems/';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
}

export function problemOf(code: ErrorCode, detail: string, requestId: string): ProblemBody {
  const { status, title } = ERROR_CODES[code];
  return { type: PROBLEM_BASE + code, title, status, detail, code, requestId };
}

export function sendProblem(reply: FastifyReply, error: WaymarkError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/problem+json; charset=utf-8')
    .send(problemOf(error.code, error.detail, String(reply.request.id)));
}


export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(reply, classify(error, request));
}

/** Turn any thrown value into a WaymarkError; unexpected ones are logged with the request id. */
export function classify(error: FastifyError | Error, request: FastifyRequest): WaymarkError {
  if (isWaymarkError(error)) return error;
  const e = error as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (e.validation) {
    const tooLong = (e.validation[0] as { keyword?: string } | undefined)?.keyword === 'maxLength';
    return new WaymarkError(tooLong ? 'ValueTooLong' : 'InvalidRequest', validationSentence(e));
  }
  switch (e.code) {
    case 'FST_UNDER_PRESSURE':
      return new WaymarkError('ServiceUnavailable', 'The server is overloaded; retry in a second.', { 'Retry-After': '1' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new WaymarkError('PayloadTooLarge', 'The request body is larger than 1 MiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new WaymarkError('UnsupportedMediaType', 'Send the body as JSON (Content-Type: application/json).');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new WaymarkError('InvalidRequest', 'The Content-Length header does not match the body.');
  }
  if (isUniqueViolation(e)) {
    return new WaymarkError('ConcurrentChange', 'Another request created the same thing at the same moment; read it again and retry if still needed.');
  }
  if (isUnavailableDbError(e)) {
    request.log.error({ err: { code: e.code, message: e.message } }, 'database unavailable');
    return new WaymarkError('ServiceUnavailable', 'The database is busy or unavailable; try again shortly.', { 'Retry-After': '1' });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new WaymarkError('InvalidRequest', 'The request could not be read.');
  }
  request.log.error({ err: error }, 'unexpected error');
  return new WaymarkError('InternalError', `Something went wrong on the server; quote request id ${request.id} when reporting it.`);
}

function validationSentence(e: { validation?: unknown[]; validationContext?: string }): string {
  const first = (e.validation?.[0] ?? {}) as { instancePath?: string; message?: string; keyword?: string; params?: Record<string, unknown> };
  const where = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (first.keyword === 'required') return `${String(first.params?.missingProperty)} is required.`;
  if (first.keyword === 'maxLength') {
    return `${where || 'A value'} is longer than the ${String(first.params?.limit)} characters allowed.`;
  }
  const subject = where || (e.validationContext === 'body' ? 'The body' : 'A value');
  return `${subject} ${first.message ?? 'is not valid'}.`;
}
