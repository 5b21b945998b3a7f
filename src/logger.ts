/** The server's logger: secrets redacted, and the request id on every line written while serving a request. */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { requestIdMixin } from './engine/requestContext.ts';

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    mixin: requestIdMixin,
    redact: { paths: ['req.headers.authorization', '*.password', '*.Password', 'password', 'Password'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Where a logger writes (lines from another thread are written there as they are). */
export function destinationOf(logger: Logger): DestinationStream {
  return (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
}
